// AttrMap and AttrValue: typed attributes in and out, the errors of reading them wrongly, and
// ParseAttrValue, which turns command-line text into attribute values.
#include "oneflow_lite/framework/attr_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

TEST(AttrMapTest, SetAndGetEachType) {
  AttrMap attrs;
  attrs.Set("b", true);
  attrs.Set("i", int64_t{-7});
  attrs.Set("f", 0.25f);
  attrs.Set("d", 1e-300);
  attrs.Set("s", std::string("hello"));
  attrs.Set("shape", Shape({2, 3, 4}));
  attrs.Set("dtype", DataType::kBFloat16);
  attrs.Set("li", std::vector<int64_t>{2, 0, 1});
  attrs.Set("lf", std::vector<float>{0.5f, -1.5f});

  EXPECT_EQ(Unwrap(attrs.Get<bool>("b")), true);
  EXPECT_EQ(Unwrap(attrs.Get<int64_t>("i")), -7);
  EXPECT_EQ(Unwrap(attrs.Get<float>("f")), 0.25f);
  EXPECT_EQ(Unwrap(attrs.Get<double>("d")), 1e-300);
  EXPECT_EQ(Unwrap(attrs.Get<std::string>("s")), "hello");
  EXPECT_EQ(Unwrap(attrs.Get<Shape>("shape")), Shape({2, 3, 4}));
  EXPECT_EQ(Unwrap(attrs.Get<DataType>("dtype")), DataType::kBFloat16);
  EXPECT_EQ(Unwrap(attrs.Get<std::vector<int64_t>>("li")), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(Unwrap(attrs.Get<std::vector<float>>("lf")), (std::vector<float>{0.5f, -1.5f}));

  EXPECT_TRUE(attrs.Has("shape"));
  EXPECT_FALSE(attrs.Has("missing"));
  EXPECT_EQ(attrs.values().size(), 9u);
}

TEST(AttrMapTest, ValuesKeepTheirFullRange) {
  AttrMap attrs;
  attrs.Set("big", int64_t{1} << 62);
  attrs.Set("neg", std::vector<int64_t>{-(int64_t{1} << 40), 0});
  attrs.Set("scalar", Shape());  // rank 0
  attrs.Set("empty", std::vector<int64_t>{});
  EXPECT_EQ(Unwrap(attrs.Get<int64_t>("big")), int64_t{1} << 62);
  EXPECT_EQ(Unwrap(attrs.Get<std::vector<int64_t>>("neg")),
            (std::vector<int64_t>{-(int64_t{1} << 40), 0}));
  EXPECT_EQ(Unwrap(attrs.Get<Shape>("scalar")).rank(), 0);
  EXPECT_TRUE(Unwrap(attrs.Get<std::vector<int64_t>>("empty")).empty());
}

TEST(AttrMapTest, SetReplaces) {
  AttrMap attrs;
  attrs.Set("x", 1);
  attrs.Set("x", 2.5f);
  EXPECT_EQ(attrs.values().size(), 1u);
  EXPECT_EQ(Unwrap(attrs.Get<float>("x")), 2.5f);
  ExpectError(attrs.Get<int64_t>("x"), ErrorKind::kTypeError, {"'x'"});
}

TEST(AttrMapTest, IntegerLiteralsBecomeInt64) {
  EXPECT_EQ(AttrValue(3).type(), AttrType::kInt64);
  EXPECT_EQ(AttrValue(3u).type(), AttrType::kInt64);
  EXPECT_EQ(AttrValue(int8_t{-3}).type(), AttrType::kInt64);
  EXPECT_EQ(AttrValue(uint16_t{9}).type(), AttrType::kInt64);
  EXPECT_EQ(AttrValue(3L).type(), AttrType::kInt64);
  EXPECT_EQ(AttrValue(true).type(), AttrType::kBool);  // bool is not an integer attribute
  EXPECT_EQ(AttrValue(1.0f).type(), AttrType::kFloat);
  EXPECT_EQ(AttrValue(1.0).type(), AttrType::kDouble);
  EXPECT_EQ(AttrValue("text").type(), AttrType::kString);
  EXPECT_EQ(AttrValue(DataType::kInt8).type(), AttrType::kDataType);
  EXPECT_EQ(AttrValue(Shape({1})).type(), AttrType::kShape);
  EXPECT_EQ(AttrValue(std::vector<int64_t>{1}).type(), AttrType::kListInt64);
  EXPECT_EQ(AttrValue(std::vector<float>{1}).type(), AttrType::kListFloat);
  EXPECT_EQ(AttrValue().type(), AttrType::kNone);

  const AttrMap attrs = {{"dim", 1}, {"keep", false}, {"name", "abc"}};
  EXPECT_EQ(Unwrap(attrs.Get<int64_t>("dim")), 1);
  EXPECT_EQ(Unwrap(attrs.Get<bool>("keep")), false);
  EXPECT_EQ(Unwrap(attrs.Get<std::string>("name")), "abc");
  ExpectError(attrs.Get<bool>("dim"), ErrorKind::kTypeError, {"'dim'", "int64", "bool"});
}

TEST(AttrMapTest, MissingAttributeIsValueErrorNamingIt) {
  const AttrMap attrs = {{"dim", 1}};
  ExpectError(attrs.Get<int64_t>("perm"), ErrorKind::kValueError, {"'perm'", "missing"});
  ExpectError(AttrMap().Get<float>("alpha"), ErrorKind::kValueError, {"'alpha'"});
}

TEST(AttrMapTest, WrongTypeIsTypeErrorNamingBothTypes) {
  const AttrMap attrs = {{"alpha", 0.5f}, {"perm", std::vector<int64_t>{1, 0}}};
  ExpectError(attrs.Get<double>("alpha"), ErrorKind::kTypeError, {"'alpha'", "float", "double"});
  ExpectError(attrs.Get<int64_t>("alpha"), ErrorKind::kTypeError, {"'alpha'", "float", "int64"});
  ExpectError(attrs.Get<std::vector<float>>("perm"), ErrorKind::kTypeError,
              {"'perm'", "list_int64", "list_float"});
  ExpectError(attrs.Get<Shape>("perm"), ErrorKind::kTypeError, {"'perm'", "list_int64", "shape"});
}

TEST(AttrMapTest, ToString) {
  const AttrMap attrs = {{"perm", std::vector<int64_t>{2, 0, 1}}, {"dim", 1}};
  EXPECT_EQ(attrs.ToString(), "{dim=1, perm=[2, 0, 1]}");  // sorted by name
  EXPECT_EQ(AttrMap().ToString(), "{}");
  EXPECT_EQ(AttrValueToString(AttrValue(DataType::kFloat16)), "float16");
  EXPECT_EQ(AttrValueToString(AttrValue(true)), "true");
  EXPECT_EQ(AttrValueToString(AttrValue(Shape({2, 3}))), "(2, 3)");
  EXPECT_EQ(AttrValueToString(AttrValue(std::vector<float>{0.5f, 2.0f})), "[0.5, 2]");
  EXPECT_EQ(AttrValueToString(AttrValue("s")), "'s'");
  EXPECT_EQ(AttrValueToString(AttrValue()), "<unset>");
}

TEST(AttrMapTest, AttrTypeNames) {
  EXPECT_STREQ(AttrTypeName(AttrType::kBool), "bool");
  EXPECT_STREQ(AttrTypeName(AttrType::kInt64), "int64");
  EXPECT_STREQ(AttrTypeName(AttrType::kFloat), "float");
  EXPECT_STREQ(AttrTypeName(AttrType::kDouble), "double");
  EXPECT_STREQ(AttrTypeName(AttrType::kString), "string");
  EXPECT_STREQ(AttrTypeName(AttrType::kShape), "shape");
  EXPECT_STREQ(AttrTypeName(AttrType::kDataType), "dtype");
  EXPECT_STREQ(AttrTypeName(AttrType::kListInt64), "list_int64");
  EXPECT_STREQ(AttrTypeName(AttrType::kListFloat), "list_float");
}

// Reads a parsed value back through an AttrMap, so each check goes through the typed Get.
template <typename T>
T Parsed(AttrType type, const std::string& text) {
  AttrMap attrs;
  attrs.Set("a", Unwrap(ParseAttrValue(type, text)));
  return Unwrap(attrs.Get<T>("a"));
}

TEST(ParseAttrValueTest, Bool) {
  EXPECT_TRUE(Parsed<bool>(AttrType::kBool, "true"));
  EXPECT_FALSE(Parsed<bool>(AttrType::kBool, "false"));
  EXPECT_TRUE(Parsed<bool>(AttrType::kBool, "1"));
  EXPECT_FALSE(Parsed<bool>(AttrType::kBool, "0"));
  ExpectError(ParseAttrValue(AttrType::kBool, "yes"), ErrorKind::kValueError, {"'yes'", "bool"});
  ExpectError(ParseAttrValue(AttrType::kBool, "2"), ErrorKind::kValueError, {"'2'", "bool"});
  ExpectError(ParseAttrValue(AttrType::kBool, ""), ErrorKind::kValueError, {"bool"});
}

TEST(ParseAttrValueTest, Int64) {
  EXPECT_EQ(Parsed<int64_t>(AttrType::kInt64, "3"), 3);
  EXPECT_EQ(Parsed<int64_t>(AttrType::kInt64, "-42"), -42);
  EXPECT_EQ(Parsed<int64_t>(AttrType::kInt64, "9223372036854775807"), INT64_MAX);
  ExpectError(ParseAttrValue(AttrType::kInt64, "3.5"), ErrorKind::kValueError, {"'3.5'", "int64"});
  ExpectError(ParseAttrValue(AttrType::kInt64, "abc"), ErrorKind::kValueError, {"'abc'", "int64"});
  ExpectError(ParseAttrValue(AttrType::kInt64, "7x"), ErrorKind::kValueError, {"'7x'"});
  ExpectError(ParseAttrValue(AttrType::kInt64, ""), ErrorKind::kValueError, {"int64"});
  ExpectError(ParseAttrValue(AttrType::kInt64, "9223372036854775808"), ErrorKind::kValueError,
              {"'9223372036854775808'", "int64"});
}

TEST(ParseAttrValueTest, FloatAndDouble) {
  EXPECT_EQ(Parsed<float>(AttrType::kFloat, "0.5"), 0.5f);
  EXPECT_EQ(Parsed<float>(AttrType::kFloat, "-3"), -3.0f);
  EXPECT_EQ(Parsed<float>(AttrType::kFloat, "0.1"), 0.1f);
  EXPECT_EQ(Parsed<double>(AttrType::kDouble, "0.1"), 0.1);
  EXPECT_EQ(Parsed<double>(AttrType::kDouble, "1e-3"), 1e-3);
  ExpectError(ParseAttrValue(AttrType::kFloat, "abc"), ErrorKind::kValueError, {"'abc'", "float"});
  ExpectError(ParseAttrValue(AttrType::kFloat, "1.5.2"), ErrorKind::kValueError, {"'1.5.2'"});
  ExpectError(ParseAttrValue(AttrType::kDouble, "1e999"), ErrorKind::kValueError,
              {"'1e999'", "double"});
  ExpectError(ParseAttrValue(AttrType::kDouble, ""), ErrorKind::kValueError, {"double"});
}

TEST(ParseAttrValueTest, FloatOutOfFloatRangeIsRejected) {
  // 1e39 is a fine double but has no float: it must not silently become infinity (the double
  // parse rejects its own out-of-range values, e.g. "1e999" above).
  ExpectError(ParseAttrValue(AttrType::kFloat, "1e39"), ErrorKind::kValueError,
              {"'1e39'", "float"});
}

TEST(ParseAttrValueTest, StringIsTakenAsIs) {
  EXPECT_EQ(Parsed<std::string>(AttrType::kString, "a, b"), "a, b");
  EXPECT_EQ(Parsed<std::string>(AttrType::kString, ""), "");
}

TEST(ParseAttrValueTest, DataType) {
  EXPECT_EQ(Parsed<DataType>(AttrType::kDataType, "float16"), DataType::kFloat16);
  EXPECT_EQ(Parsed<DataType>(AttrType::kDataType, "half"), DataType::kFloat16);
  EXPECT_EQ(Parsed<DataType>(AttrType::kDataType, "bf16"), DataType::kBFloat16);
  EXPECT_EQ(Parsed<DataType>(AttrType::kDataType, "int64"), DataType::kInt64);
  ExpectError(ParseAttrValue(AttrType::kDataType, "float7"), ErrorKind::kValueError,
              {"'float7'", "float32"});
}

TEST(ParseAttrValueTest, ListInt64) {
  EXPECT_EQ(Parsed<std::vector<int64_t>>(AttrType::kListInt64, "2,0,1"),
            (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(Parsed<std::vector<int64_t>>(AttrType::kListInt64, "-1"), (std::vector<int64_t>{-1}));
  EXPECT_TRUE(Parsed<std::vector<int64_t>>(AttrType::kListInt64, "").empty());
  ExpectError(ParseAttrValue(AttrType::kListInt64, "1,,2"), ErrorKind::kValueError,
              {"'1,,2'", "list_int64"});
  ExpectError(ParseAttrValue(AttrType::kListInt64, "1,a"), ErrorKind::kValueError, {"'1,a'"});
  ExpectError(ParseAttrValue(AttrType::kListInt64, "1,2,"), ErrorKind::kValueError, {"'1,2,'"});
  ExpectError(ParseAttrValue(AttrType::kListInt64, "1x2"), ErrorKind::kValueError, {"'1x2'"});
}

TEST(ParseAttrValueTest, ListFloat) {
  EXPECT_EQ(Parsed<std::vector<float>>(AttrType::kListFloat, "0.5,1.5,-2"),
            (std::vector<float>{0.5f, 1.5f, -2.0f}));
  EXPECT_TRUE(Parsed<std::vector<float>>(AttrType::kListFloat, "").empty());
  ExpectError(ParseAttrValue(AttrType::kListFloat, "0.5,x"), ErrorKind::kValueError,
              {"'0.5,x'", "list_float"});
}

TEST(ParseAttrValueTest, Shape) {
  EXPECT_EQ(Parsed<Shape>(AttrType::kShape, "2x3"), Shape({2, 3}));
  EXPECT_EQ(Parsed<Shape>(AttrType::kShape, "2,3,4"), Shape({2, 3, 4}));
  EXPECT_EQ(Parsed<Shape>(AttrType::kShape, "5"), Shape({5}));
  ExpectError(ParseAttrValue(AttrType::kShape, "2xa"), ErrorKind::kValueError, {"'2xa'", "shape"});
  ExpectError(ParseAttrValue(AttrType::kShape, "2x"), ErrorKind::kValueError, {"'2x'"});
}

TEST(ParseAttrValueTest, NoneTypeIsRejected) {
  ExpectError(ParseAttrValue(AttrType::kNone, "1"), ErrorKind::kValueError, {"'1'"});
}

}  // namespace
}  // namespace oflite
