// The op catalog: every registered op as an OpDef, with the kernels that serve it per device
// type and dtype, generated from the op and kernel registries (never a hand-kept list); what
// `oflite ops --json` prints. Internal, as all of oneflow_lite/proto/.
#ifndef ONEFLOW_LITE_PROTO_OP_CATALOG_H_
#define ONEFLOW_LITE_PROTO_OP_CATALOG_H_

#include "oneflow_lite/proto/op_def.pb.h"

namespace oflite {

class OpSchema;

// The op without kernels: OpCatalog adds those.
proto::OpDef OpDefOf(const OpSchema& schema);
// A kernel is listed for each device type whose provider is built in (visible GPU or not) and
// on which it serves some dtype.
proto::OpDefList OpCatalog();

}  // namespace oflite

#endif  // ONEFLOW_LITE_PROTO_OP_CATALOG_H_
