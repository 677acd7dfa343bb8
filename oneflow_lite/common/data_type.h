// DataType: the element types a tensor can hold, with one list that everything dispatches from.
#ifndef ONEFLOW_LITE_COMMON_DATA_TYPE_H_
#define ONEFLOW_LITE_COMMON_DATA_TYPE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "oneflow_lite/common/check.h"
#include "oneflow_lite/common/float16.h"
#include "oneflow_lite/common/maybe.h"

namespace oflite {

// Values equal those of proto::DataType (data_type.proto); data_type.cpp asserts it.
enum class DataType : int {
  kFloat32 = 1,
  kFloat64 = 2,
  kFloat16 = 3,
  kBFloat16 = 4,
  kInt8 = 5,
  kUInt8 = 6,
  kInt32 = 7,
  kInt64 = 8,
  kBool = 9,
};

// The one list of data types: (enumerator, C++ type, name). Adding a dtype is one line here.
#define OFLITE_DATA_TYPE_LIST(F)     \
  F(kFloat32, float, "float32")      \
  F(kFloat64, double, "float64")     \
  F(kFloat16, float16, "float16")    \
  F(kBFloat16, bfloat16, "bfloat16") \
  F(kInt8, int8_t, "int8")           \
  F(kUInt8, uint8_t, "uint8")        \
  F(kInt32, int32_t, "int32")        \
  F(kInt64, int64_t, "int64")        \
  F(kBool, bool, "bool")

template <typename T>
struct TypeTag {
  using type = T;
};

template <typename T>
struct DataTypeOf;
#define OFLITE_DEFINE_DATA_TYPE_OF(enumerator, cpp_type, name) \
  template <>                                                  \
  struct DataTypeOf<cpp_type> {                                \
    static constexpr DataType value = DataType::enumerator;    \
  };
OFLITE_DATA_TYPE_LIST(OFLITE_DEFINE_DATA_TYPE_OF)
#undef OFLITE_DEFINE_DATA_TYPE_OF

template <typename T>
constexpr DataType kDataTypeOf = DataTypeOf<T>::value;

// Whether T is one of the floating element types: float, double, float16, bfloat16.
template <typename T>
constexpr bool kIsFloatingType =
    std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// Calls fn(TypeTag<T>{}) with the C++ type of `data_type`; returns fn's result.
template <typename Fn>
decltype(auto) VisitDataType(DataType data_type, Fn&& fn) {
  switch (data_type) {
#define OFLITE_VISIT_CASE(enumerator, cpp_type, name) \
  case DataType::enumerator:                          \
    return fn(TypeTag<cpp_type>{});
    OFLITE_DATA_TYPE_LIST(OFLITE_VISIT_CASE)
#undef OFLITE_VISIT_CASE
  }
  OFLITE_CHECK(false) << "invalid DataType value " << static_cast<int>(data_type);
  return fn(TypeTag<float>{});
}

const std::vector<DataType>& AllDataTypes();
// The floating dtypes softmax-like ops accept: float32, float64, float16, bfloat16.
const std::vector<DataType>& FloatingDataTypes();

const char* DataTypeName(DataType data_type);
size_t DataTypeSize(DataType data_type);
bool IsFloatingDataType(DataType data_type);
bool IsValidDataType(int value);
// "float32", "float", "half", "bf16", ... -> DataType; ValueError for anything else.
Maybe<DataType> ParseDataType(const std::string& name);

inline std::ostream& operator<<(std::ostream& os, DataType data_type) {
  return os << DataTypeName(data_type);
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_DATA_TYPE_H_
