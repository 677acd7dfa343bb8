// AttrMap: an op's named, typed attributes, each stored as a protobuf AttrValue.
#ifndef ONEFLOW_LITE_FRAMEWORK_ATTR_MAP_H_
#define ONEFLOW_LITE_FRAMEWORK_ATTR_MAP_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/proto/attr_value.pb.h"

namespace oflite {

enum class AttrType {
  kNone,  // an AttrValue with nothing set
  kBool,
  kInt64,
  kFloat,
  kDouble,
  kString,
  kShape,
  kDataType,
  kListInt64,
  kListFloat,
};

const char* AttrTypeName(AttrType type);  // "bool", "int64", "list_int64", ...
AttrType AttrTypeOf(const proto::AttrValue& value);
std::string AttrValueToString(const proto::AttrValue& value);  // "3", "[2, 0, 1]", "float32"
// Parses text as a value of `type`: "3", "0.5", "true", "float16", "2,0,1" (lists), "2x3"
// (shapes, also "2,3"). ValueError naming the text and the type when it does not parse.
Maybe<proto::AttrValue> ParseAttrValue(AttrType type, const std::string& text);

// Per C++ type: its AttrType and how it goes into and out of the proto.
template <typename T>
struct AttrTraits;

#define OFLITE_SCALAR_ATTR_TRAITS(cpp_type, attr_type, field)                      \
  template <>                                                                      \
  struct AttrTraits<cpp_type> {                                                    \
    static constexpr AttrType kType = AttrType::attr_type;                         \
    static cpp_type Get(const proto::AttrValue& v) { return v.field(); }           \
    static void Set(const cpp_type& x, proto::AttrValue* v) { v->set_##field(x); } \
  };
OFLITE_SCALAR_ATTR_TRAITS(bool, kBool, at_bool)
OFLITE_SCALAR_ATTR_TRAITS(int64_t, kInt64, at_int64)
OFLITE_SCALAR_ATTR_TRAITS(float, kFloat, at_float)
OFLITE_SCALAR_ATTR_TRAITS(double, kDouble, at_double)
OFLITE_SCALAR_ATTR_TRAITS(std::string, kString, at_string)
#undef OFLITE_SCALAR_ATTR_TRAITS

template <>
struct AttrTraits<DataType> {
  static constexpr AttrType kType = AttrType::kDataType;
  static DataType Get(const proto::AttrValue& v) { return static_cast<DataType>(v.at_data_type()); }
  static void Set(DataType x, proto::AttrValue* v) {
    v->set_at_data_type(static_cast<proto::DataType>(x));
  }
};

template <>
struct AttrTraits<Shape> {
  static constexpr AttrType kType = AttrType::kShape;
  static Shape Get(const proto::AttrValue& v) {
    return Shape(std::vector<int64_t>(v.at_shape().dim().begin(), v.at_shape().dim().end()));
  }
  static void Set(const Shape& x, proto::AttrValue* v) {
    auto* shape = v->mutable_at_shape();
    shape->clear_dim();
    for (int64_t d : x.dims()) {
      shape->add_dim(d);
    }
  }
};

#define OFLITE_LIST_ATTR_TRAITS(element_type, attr_type, field)                \
  template <>                                                                  \
  struct AttrTraits<std::vector<element_type>> {                               \
    static constexpr AttrType kType = AttrType::attr_type;                     \
    static std::vector<element_type> Get(const proto::AttrValue& v) {          \
      return {v.field().value().begin(), v.field().value().end()};             \
    }                                                                          \
    static void Set(const std::vector<element_type>& x, proto::AttrValue* v) { \
      v->mutable_##field()->mutable_value()->Assign(x.begin(), x.end());       \
    }                                                                          \
  };
OFLITE_LIST_ATTR_TRAITS(int64_t, kListInt64, at_list_int64)
OFLITE_LIST_ATTR_TRAITS(float, kListFloat, at_list_float)
#undef OFLITE_LIST_ATTR_TRAITS

// One attribute value, made implicitly from any supported C++ value so that calls read
// Dispatch("op", {x}, {{"dim", 1}, {"perm", std::vector<int64_t>{1, 0}}}).
class AttrValue {
 public:
  AttrValue() = default;
  explicit AttrValue(proto::AttrValue proto) : proto_(std::move(proto)) {}
  AttrValue(bool x) { AttrTraits<bool>::Set(x, &proto_); }  // NOLINT
  template <typename I,
            typename = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  AttrValue(I x) {  // NOLINT: every integer is an int64 attribute
    AttrTraits<int64_t>::Set(static_cast<int64_t>(x), &proto_);
  }
  AttrValue(float x) { AttrTraits<float>::Set(x, &proto_); }                     // NOLINT
  AttrValue(double x) { AttrTraits<double>::Set(x, &proto_); }                   // NOLINT
  AttrValue(const char* x) { AttrTraits<std::string>::Set(x, &proto_); }         // NOLINT
  AttrValue(const std::string& x) { AttrTraits<std::string>::Set(x, &proto_); }  // NOLINT
  AttrValue(const Shape& x) { AttrTraits<Shape>::Set(x, &proto_); }              // NOLINT
  AttrValue(DataType x) { AttrTraits<DataType>::Set(x, &proto_); }               // NOLINT
  AttrValue(const std::vector<int64_t>& x) {
    AttrTraits<std::vector<int64_t>>::Set(x, &proto_);
  }  // NOLINT
  AttrValue(const std::vector<float>& x) {
    AttrTraits<std::vector<float>>::Set(x, &proto_);
  }  // NOLINT

  const proto::AttrValue& proto() const { return proto_; }
  AttrType type() const { return AttrTypeOf(proto_); }

 private:
  proto::AttrValue proto_;
};

class AttrMap {
 public:
  AttrMap() = default;
  AttrMap(std::initializer_list<std::pair<const std::string, AttrValue>> values);

  void Set(const std::string& name, const AttrValue& value) { values_[name] = value.proto(); }
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // ValueError when absent, TypeError when stored with another type.
  template <typename T>
  Maybe<T> Get(const std::string& name) const;

  const std::map<std::string, proto::AttrValue>& values() const { return values_; }
  std::string ToString() const;  // "{dim=1, perm=[2, 0, 1]}"

 private:
  Maybe<const proto::AttrValue*> Find(const std::string& name, AttrType expected) const;

  std::map<std::string, proto::AttrValue> values_;
};

template <typename T>
Maybe<T> AttrMap::Get(const std::string& name) const {
  const proto::AttrValue* value = nullptr;
  OFLITE_ASSIGN_OR_RETURN(value, Find(name, AttrTraits<T>::kType));
  if constexpr (std::is_same_v<T, DataType>) {  // a proto enum can hold any number
    OFLITE_CHECK_OR_RETURN(IsValidDataType(value->at_data_type()), ValueError)
        << "attribute '" << name << "' holds the invalid dtype value " << value->at_data_type();
  }
  return AttrTraits<T>::Get(*value);
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_ATTR_MAP_H_
