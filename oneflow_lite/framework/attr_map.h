// AttrMap: an op's named, typed attributes in a compact form.
#ifndef ONEFLOW_LITE_FRAMEWORK_ATTR_MAP_H_
#define ONEFLOW_LITE_FRAMEWORK_ATTR_MAP_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"

namespace oflite {

enum class AttrType {  // in the order of AttrValue's alternatives
  kNone,               // no value
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

class AttrValue;
const char* AttrTypeName(AttrType type);                // "bool", "int64", "list_int64", ...
std::string AttrValueToString(const AttrValue& value);  // "3", "[2, 0, 1]", "float32"
// `value` as a `to` where both are numbers (int64, float, double) and the value converts exactly
// (1 -> 1.0, 0.5f -> 0.5, 2.0 -> 2; not 2.5 -> int64, 16777217 -> float). A double becomes a
// float when the float keeps the decimal it was written as (1e-6, 0.1; not 1.00000001);
// nullopt otherwise. Op calls accept attribute values so.
std::optional<AttrValue> ConvertNumberExactly(const AttrValue& value, AttrType to);
// The fewest significant digits that read back as `value` (as a float when `as_float`).
std::string ShortestDecimal(double value, bool as_float);
// Parses text as a value of `type`: "3", "0.5", "true", "float16", "2,0,1" (lists), "2x3"
// (shapes, also "2,3"). ValueError naming the text and the type when it does not parse.
Maybe<AttrValue> ParseAttrValue(AttrType type, const std::string& text);

// Per C++ type: its AttrType.
template <typename T>
struct AttrTraits;
#define OFLITE_ATTR_TRAITS(cpp_type, attr_type)            \
  template <>                                              \
  struct AttrTraits<cpp_type> {                            \
    static constexpr AttrType kType = AttrType::attr_type; \
  };
OFLITE_ATTR_TRAITS(bool, kBool)
OFLITE_ATTR_TRAITS(int64_t, kInt64)
OFLITE_ATTR_TRAITS(float, kFloat)
OFLITE_ATTR_TRAITS(double, kDouble)
OFLITE_ATTR_TRAITS(std::string, kString)
OFLITE_ATTR_TRAITS(Shape, kShape)
OFLITE_ATTR_TRAITS(DataType, kDataType)
OFLITE_ATTR_TRAITS(std::vector<int64_t>, kListInt64)
OFLITE_ATTR_TRAITS(std::vector<float>, kListFloat)
#undef OFLITE_ATTR_TRAITS

// One attribute value in a compact typed form (oneflow_lite/proto/attr_value_proto.h serializes
// it), made implicitly from any supported C++ value so that calls read
// Dispatch("op", {x}, {{"dim", 1}, {"perm", std::vector<int64_t>{1, 0}}}).
class AttrValue {
 public:
  using Variant = std::variant<std::monostate, bool, int64_t, float, double, std::string, Shape,
                               DataType, std::vector<int64_t>, std::vector<float>>;

  AttrValue() = default;
  AttrValue(bool x) : value_(x) {}  // NOLINT
  template <typename I,
            typename = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  AttrValue(I x) : value_(static_cast<int64_t>(x)) {}   // NOLINT: every integer is an int64 attr
  AttrValue(float x) : value_(x) {}                     // NOLINT
  AttrValue(double x) : value_(x) {}                    // NOLINT
  AttrValue(const char* x) : value_(std::string(x)) {}  // NOLINT
  AttrValue(std::string x) : value_(std::move(x)) {}    // NOLINT
  AttrValue(const Shape& x) : value_(x) {}              // NOLINT
  AttrValue(DataType x) : value_(x) {}                  // NOLINT
  AttrValue(std::vector<int64_t> x) : value_(std::move(x)) {}  // NOLINT
  AttrValue(std::vector<float> x) : value_(std::move(x)) {}    // NOLINT

  AttrType type() const { return static_cast<AttrType>(value_.index()); }
  // The value when it is a T; nullptr otherwise.
  template <typename T>
  const T* TryGet() const {
    return std::get_if<T>(&value_);
  }
  const Variant& variant() const { return value_; }

  // Floating values compare by their bits, so a NaN attribute equals itself (call caches key on
  // attributes).
  bool operator==(const AttrValue& other) const;
  bool operator!=(const AttrValue& other) const { return !(*this == other); }
  size_t Hash() const;

 private:
  Variant value_;
};

// Named attributes, kept sorted by name in one small vector: no map nodes, no protobuf.
class AttrMap {
 public:
  using Entry = std::pair<std::string, AttrValue>;
  AttrMap() = default;
  AttrMap(std::initializer_list<Entry> values);

  void Set(const std::string& name, AttrValue value);
  bool Has(const std::string& name) const { return Lookup(name) != nullptr; }
  // ValueError when absent, TypeError when stored with another type.
  template <typename T>
  Maybe<T> Get(const std::string& name) const;

  const std::vector<Entry>& values() const { return values_; }
  bool empty() const { return values_.empty(); }
  std::string ToString() const;  // "{dim=1, perm=[2, 0, 1]}"
  bool operator==(const AttrMap& other) const { return values_ == other.values_; }
  bool operator!=(const AttrMap& other) const { return !(*this == other); }
  size_t Hash() const;

 private:
  const AttrValue* Lookup(const std::string& name) const;
  Maybe<const AttrValue*> Find(const std::string& name, AttrType expected) const;

  std::vector<Entry> values_;  // sorted by name
};

template <typename T>
Maybe<T> AttrMap::Get(const std::string& name) const {
  const AttrValue* value = nullptr;
  OFLITE_ASSIGN_OR_RETURN(value, Find(name, AttrTraits<T>::kType));
  const T& typed = *value->TryGet<T>();
  if constexpr (std::is_same_v<T, DataType>) {  // one read from a proto may hold any number
    OFLITE_CHECK_OR_RETURN(IsValidDataType(static_cast<int>(typed)), ValueError)
        << "attribute '" << name << "' holds the invalid dtype value " << static_cast<int>(typed);
  }
  return typed;
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_ATTR_MAP_H_
