#include "oneflow_lite/proto/attr_value_proto.h"

namespace oflite {

AttrValue AttrValueFromProto(const proto::AttrValue& proto) {
  switch (proto.value_case()) {
    case proto::AttrValue::kAtBool:
      return AttrValue(proto.at_bool());
    case proto::AttrValue::kAtInt64:
      return AttrValue(static_cast<int64_t>(proto.at_int64()));
    case proto::AttrValue::kAtFloat:
      return AttrValue(proto.at_float());
    case proto::AttrValue::kAtDouble:
      return AttrValue(proto.at_double());
    case proto::AttrValue::kAtString:
      return AttrValue(proto.at_string());
    case proto::AttrValue::kAtShape:
      return AttrValue(Shape(
          std::vector<int64_t>(proto.at_shape().dim().begin(), proto.at_shape().dim().end())));
    case proto::AttrValue::kAtDataType:  // kept as read; AttrMap::Get checks it
      return AttrValue(static_cast<DataType>(proto.at_data_type()));
    case proto::AttrValue::kAtListInt64:
      return AttrValue(std::vector<int64_t>(proto.at_list_int64().value().begin(),
                                            proto.at_list_int64().value().end()));
    case proto::AttrValue::kAtListFloat:
      return AttrValue(std::vector<float>(proto.at_list_float().value().begin(),
                                          proto.at_list_float().value().end()));
    case proto::AttrValue::VALUE_NOT_SET:
      break;
  }
  return AttrValue();
}

proto::AttrValue AttrValueToProto(const AttrValue& value) {
  proto::AttrValue proto;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          proto.set_at_bool(x);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          proto.set_at_int64(x);
        } else if constexpr (std::is_same_v<T, float>) {
          proto.set_at_float(x);
        } else if constexpr (std::is_same_v<T, double>) {
          proto.set_at_double(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          proto.set_at_string(x);
        } else if constexpr (std::is_same_v<T, Shape>) {
          proto.mutable_at_shape()->mutable_dim()->Assign(x.dims().begin(), x.dims().end());
        } else if constexpr (std::is_same_v<T, DataType>) {
          proto.set_at_data_type(static_cast<proto::DataType>(x));
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          proto.mutable_at_list_int64()->mutable_value()->Assign(x.begin(), x.end());
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          proto.mutable_at_list_float()->mutable_value()->Assign(x.begin(), x.end());
        }
      },
      value.variant());
  return proto;
}

}  // namespace oflite
