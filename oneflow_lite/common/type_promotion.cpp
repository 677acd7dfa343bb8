#include "oneflow_lite/common/type_promotion.h"

namespace oflite {
namespace {

enum class Category { kBool = 0, kInt = 1, kFloat = 2 };

Category CategoryOf(DataType t) {
  if (t == DataType::kBool) {
    return Category::kBool;
  }
  return IsFloatingDataType(t) ? Category::kFloat : Category::kInt;
}

DataType PromoteIntegers(DataType a, DataType b) {
  if (a == b) {
    return a;
  }
  const bool a_unsigned = a == DataType::kUInt8, b_unsigned = b == DataType::kUInt8;
  if (a_unsigned != b_unsigned) {
    const DataType other = a_unsigned ? b : a;
    // uint8 with int8 needs 9 bits plus a sign: int16 in PyTorch, the next one up here.
    return other == DataType::kInt8 ? DataType::kInt32 : other;
  }
  return DataTypeSize(a) >= DataTypeSize(b) ? a : b;
}

DataType PromoteFloats(DataType a, DataType b) {
  if (a == b) {
    return a;
  }
  if (a == DataType::kFloat64 || b == DataType::kFloat64) {
    return DataType::kFloat64;
  }
  return DataType::kFloat32;  // float32 with a 16-bit type, or float16 with bfloat16
}

}  // namespace

bool IsIntegralDataType(DataType data_type) {
  return data_type != DataType::kBool && !IsFloatingDataType(data_type);
}

DataType PromoteTypes(DataType a, DataType b) {
  const Category ca = CategoryOf(a), cb = CategoryOf(b);
  if (ca != cb) {
    return ca > cb ? a : b;
  }
  switch (ca) {
    case Category::kBool:
      return DataType::kBool;
    case Category::kInt:
      return PromoteIntegers(a, b);
    case Category::kFloat:
      return PromoteFloats(a, b);
  }
  return a;
}

DataType PromoteWithZeroDim(DataType tensor, DataType zero_dim) {
  return CategoryOf(zero_dim) > CategoryOf(tensor) ? zero_dim : tensor;
}

DataType PromoteWithScalar(DataType tensor, const Scalar& scalar) {
  const Category ct = CategoryOf(tensor);
  const Category cs = scalar.is_float() ? Category::kFloat
                      : scalar.is_int() ? Category::kInt
                                        : Category::kBool;
  if (cs <= ct) {
    return tensor;
  }
  return cs == Category::kFloat ? DataType::kFloat32 : DataType::kInt64;
}

}  // namespace oflite
