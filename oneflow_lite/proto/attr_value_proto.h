// AttrValue to and from its serialized form (op definitions in `oflite ops --json`). Internal:
// oneflow_lite/proto/ is the library's protobuf side and is not installed.
#ifndef ONEFLOW_LITE_PROTO_ATTR_VALUE_PROTO_H_
#define ONEFLOW_LITE_PROTO_ATTR_VALUE_PROTO_H_

#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/proto/attr_value.pb.h"

namespace oflite {

// A dtype is kept as read, valid or not: AttrMap::Get checks it.
AttrValue AttrValueFromProto(const proto::AttrValue& proto);
proto::AttrValue AttrValueToProto(const AttrValue& value);

}  // namespace oflite

#endif  // ONEFLOW_LITE_PROTO_ATTR_VALUE_PROTO_H_
