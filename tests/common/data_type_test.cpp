// DataType: the dtype list, names, sizes, parsing and the compile-time mappings.
#include "oneflow_lite/common/data_type.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;

struct DtypeCase {
  DataType dtype;
  const char* name;
  size_t size;
  bool floating;
};

// Written out by hand from the C++ types each dtype stands for.
const std::vector<DtypeCase>& Cases() {
  static const std::vector<DtypeCase> cases = {
      {DataType::kFloat32, "float32", sizeof(float), true},
      {DataType::kFloat64, "float64", sizeof(double), true},
      {DataType::kFloat16, "float16", 2, true},
      {DataType::kBFloat16, "bfloat16", 2, true},
      {DataType::kInt8, "int8", sizeof(int8_t), false},
      {DataType::kUInt8, "uint8", sizeof(uint8_t), false},
      {DataType::kInt32, "int32", sizeof(int32_t), false},
      {DataType::kInt64, "int64", sizeof(int64_t), false},
      {DataType::kBool, "bool", sizeof(bool), false},
  };
  return cases;
}

TEST(DataTypeTest, AllDataTypesListsEachOnce) {
  const std::vector<DataType>& all = AllDataTypes();
  EXPECT_EQ(all.size(), Cases().size());
  std::set<DataType> distinct(all.begin(), all.end());
  EXPECT_EQ(distinct.size(), all.size());
  for (const DtypeCase& c : Cases()) {
    EXPECT_EQ(distinct.count(c.dtype), 1u) << c.name;
  }
}

TEST(DataTypeTest, NamesAndSizes) {
  for (const DtypeCase& c : Cases()) {
    EXPECT_STREQ(DataTypeName(c.dtype), c.name);
    EXPECT_EQ(DataTypeSize(c.dtype), c.size) << c.name;
    std::ostringstream out;
    out << c.dtype;
    EXPECT_EQ(out.str(), c.name);
  }
  EXPECT_EQ(sizeof(float16), 2u);
  EXPECT_EQ(sizeof(bfloat16), 2u);
}

TEST(DataTypeTest, FloatingDataTypes) {
  for (const DtypeCase& c : Cases()) {
    EXPECT_EQ(IsFloatingDataType(c.dtype), c.floating) << c.name;
  }
  EXPECT_EQ(FloatingDataTypes(), (std::vector<DataType>{DataType::kFloat32, DataType::kFloat64,
                                                        DataType::kFloat16, DataType::kBFloat16}));
}

TEST(DataTypeTest, ValidValuesAreOneToNine) {
  EXPECT_FALSE(IsValidDataType(0));
  for (int v = 1; v <= 9; ++v) {
    EXPECT_TRUE(IsValidDataType(v)) << v;
  }
  EXPECT_FALSE(IsValidDataType(10));
  EXPECT_FALSE(IsValidDataType(-1));
}

TEST(DataTypeTest, ParseCanonicalNames) {
  for (const DtypeCase& c : Cases()) {
    Maybe<DataType> parsed = ParseDataType(c.name);
    ASSERT_TRUE(parsed.ok()) << c.name << ": " << parsed.error().ToString();
    EXPECT_EQ(parsed.value(), c.dtype) << c.name;
  }
}

TEST(DataTypeTest, ParseAliases) {
  EXPECT_EQ(test::Unwrap(ParseDataType("float")), DataType::kFloat32);
  EXPECT_EQ(test::Unwrap(ParseDataType("double")), DataType::kFloat64);
  EXPECT_EQ(test::Unwrap(ParseDataType("half")), DataType::kFloat16);
  EXPECT_EQ(test::Unwrap(ParseDataType("bf16")), DataType::kBFloat16);
  EXPECT_EQ(test::Unwrap(ParseDataType("int")), DataType::kInt32);
  EXPECT_EQ(test::Unwrap(ParseDataType("long")), DataType::kInt64);
}

TEST(DataTypeTest, ParseUnknownNameListsTheKnownOnes) {
  std::vector<std::string> fragments = {"'float8'"};
  for (const DtypeCase& c : Cases()) {
    fragments.push_back(c.name);
  }
  ExpectError(ParseDataType("float8"), ErrorKind::kValueError, fragments);
  ExpectError(ParseDataType(""), ErrorKind::kValueError, {"''", "float32", "bool"});
  // Names are case-sensitive.
  ExpectError(ParseDataType("Float32"), ErrorKind::kValueError, {"'Float32'"});
}

TEST(DataTypeTest, DataTypeOfMapsEachCppType) {
  static_assert(kDataTypeOf<float> == DataType::kFloat32);
  static_assert(kDataTypeOf<double> == DataType::kFloat64);
  static_assert(kDataTypeOf<float16> == DataType::kFloat16);
  static_assert(kDataTypeOf<bfloat16> == DataType::kBFloat16);
  static_assert(kDataTypeOf<int8_t> == DataType::kInt8);
  static_assert(kDataTypeOf<uint8_t> == DataType::kUInt8);
  static_assert(kDataTypeOf<int32_t> == DataType::kInt32);
  static_assert(kDataTypeOf<int64_t> == DataType::kInt64);
  static_assert(kDataTypeOf<bool> == DataType::kBool);
  EXPECT_EQ(kDataTypeOf<float16>, DataType::kFloat16);
}

template <typename T>
struct Probe {
  static constexpr size_t kSize = sizeof(T);
  static constexpr bool kIsFloat =
      std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
};

TEST(DataTypeTest, VisitDataTypeCallsWithTheMatchingType) {
  for (const DtypeCase& c : Cases()) {
    const DataType back =
        VisitDataType(c.dtype, [](auto tag) { return kDataTypeOf<typename decltype(tag)::type>; });
    EXPECT_EQ(back, c.dtype) << c.name;
    const size_t size =
        VisitDataType(c.dtype, [](auto tag) { return Probe<typename decltype(tag)::type>::kSize; });
    EXPECT_EQ(size, c.size) << c.name;
    const bool is_float = VisitDataType(
        c.dtype, [](auto tag) { return Probe<typename decltype(tag)::type>::kIsFloat; });
    EXPECT_EQ(is_float, c.floating) << c.name;
  }
}

TEST(DataTypeTest, EnumValuesAreStable) {
  // The values are part of the serialized format (data_type.proto).
  EXPECT_EQ(static_cast<int>(DataType::kFloat32), 1);
  EXPECT_EQ(static_cast<int>(DataType::kFloat64), 2);
  EXPECT_EQ(static_cast<int>(DataType::kFloat16), 3);
  EXPECT_EQ(static_cast<int>(DataType::kBFloat16), 4);
  EXPECT_EQ(static_cast<int>(DataType::kInt8), 5);
  EXPECT_EQ(static_cast<int>(DataType::kUInt8), 6);
  EXPECT_EQ(static_cast<int>(DataType::kInt32), 7);
  EXPECT_EQ(static_cast<int>(DataType::kInt64), 8);
  EXPECT_EQ(static_cast<int>(DataType::kBool), 9);
}

}  // namespace
}  // namespace oflite
