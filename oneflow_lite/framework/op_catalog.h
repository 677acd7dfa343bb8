// The op catalog: every registered op as an OpDef, with the kernels that serve it per device
// type and dtype, generated from the op and kernel registries (never a hand-kept list).
#ifndef ONEFLOW_LITE_FRAMEWORK_OP_CATALOG_H_
#define ONEFLOW_LITE_FRAMEWORK_OP_CATALOG_H_

#include "oneflow_lite/proto/op_def.pb.h"

namespace oflite {

// Kernels are listed for every device type whose provider is built in, visible GPU or not.
proto::OpDefList OpCatalog();

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_OP_CATALOG_H_
