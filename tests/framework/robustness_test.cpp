// Error paths found in review: sizes that overflow, enum values out of range, user ops
// registered without functions, numbers with stray text, values a dtype cannot hold.
#include <gtest/gtest.h>

#include "oneflow_lite/proto/attr_value_proto.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

// Registered without SetInferFn / SetSbpFn, as a careless user op might be.
OFLITE_REGISTER_OP("test_no_functions").Input("x").Output("y");

TEST(RobustnessTest, FromStorageRejectsByteCountsThatWrap) {
  std::vector<float> memory(4);
  auto storage = std::make_shared<Storage>(nullptr, memory.data(), 16, Device::Cpu());
  // (2^62 + 4) float32 elements: the byte count wraps to 16 in 64 bits
  ExpectError(Tensor::FromStorage(storage, Shape{(int64_t{1} << 62) + 4}, DataType::kFloat32),
              ErrorKind::kOutOfMemory, {"size_t"});
}

TEST(RobustnessTest, InvalidDtypeValuesAreValueErrors) {
  std::vector<float> memory(4);
  auto storage = std::make_shared<Storage>(nullptr, memory.data(), 16, Device::Cpu());
  ExpectError(Tensor::Full(Shape{2}, 1.0, static_cast<DataType>(0)), ErrorKind::kValueError,
              {"invalid dtype value 0"});
  ExpectError(Tensor::FromStorage(storage, Shape{2}, static_cast<DataType>(42)),
              ErrorKind::kValueError, {"invalid dtype value 42"});
  // A dtype read from its serialized form is kept as read; Get checks it.
  proto::AttrValue bad;
  bad.set_at_data_type(static_cast<proto::DataType>(77));
  AttrMap attrs({{"dtype", AttrValueFromProto(bad)}});
  ExpectError(attrs.Get<DataType>("dtype"), ErrorKind::kValueError, {"dtype", "77"});
}

TEST(RobustnessTest, InvalidDeviceTypeHasNoProvider) {
  EXPECT_EQ(ep::FindDeviceProvider(static_cast<DeviceType>(5)), nullptr);
  EXPECT_EQ(ep::DeviceCount(static_cast<DeviceType>(5)), 0);
}

// Not "built without cpu support": the value names no device type at all.
TEST(RobustnessTest, InvalidDeviceTypeIsAValueErrorNamingTheValue) {
  const Device bad(static_cast<DeviceType>(7), 0);
  ExpectError(Tensor::Empty(Shape{2}, DataType::kFloat32, bad), ErrorKind::kValueError,
              {"type value 7", "names no device type", "cpu or cuda"});
  EXPECT_STREQ(DeviceTypeName(static_cast<DeviceType>(7)), "invalid");
  EXPECT_EQ(bad.ToString(), "<invalid device type 7>");
}

TEST(RobustnessTest, FromHostWithNullDataIsAValueError) {
  ExpectError(Tensor::FromHost(nullptr, 16, Shape{4}, DataType::kFloat32), ErrorKind::kValueError,
              {"FromHost", "null", "16 bytes"});
  // no bytes to read: null is fine
  EXPECT_EQ(Unwrap(Tensor::FromHost(nullptr, 0, Shape{0}, DataType::kFloat32)).elem_cnt(), 0);
}

// A bool byte other than 0 or 1 would be undefined behaviour in every kernel that reads it;
// like NumPy, any nonzero byte is true.
TEST(RobustnessTest, BoolBytesOtherThanZeroAndOneAreTrue) {
  const uint8_t bytes[] = {0, 1, 2, 3, 255, 0, 128};
  const Tensor t = Unwrap(Tensor::FromHost(bytes, sizeof(bytes), Shape{7}, DataType::kBool));
  uint8_t stored[7] = {};
  ASSERT_TRUE(t.CopyToHost(stored, sizeof(stored)).ok());
  EXPECT_EQ(std::vector<uint8_t>(stored, stored + 7), (std::vector<uint8_t>{0, 1, 1, 1, 1, 0, 1}));
  EXPECT_EQ(ToDoubles(Unwrap(functional::Cast(t, DataType::kInt32))),
            (std::vector<double>{0, 1, 1, 1, 1, 0, 1}));
  EXPECT_EQ(ToDoubles(Unwrap(functional::Add(t, t))),  // bool add is or
            (std::vector<double>{0, 1, 1, 1, 1, 0, 1}));
}

// The op checks it, so every entry point (functional, Dispatch, `oflite run`) refuses it.
TEST(RobustnessTest, IntegerToANegativeIntegerPowerIsRefusedByTheOpItself) {
  const Tensor x = MakeTensor({2, 3}, Shape{2}, DataType::kInt32);
  ExpectError(DispatchOne("scalar_pow", {x}, {{"int_operand", int64_t{-1}}}),
              ErrorKind::kValueError, {"pow", "negative integer powers", "exponent -1", "int32"});
  // a float exponent, a float base, or the scalar as the base are fine
  EXPECT_TRUE(
      DispatchOne("scalar_pow", {x}, {{"float_operand", -1.0}, {"has_float_operand", true}}).ok());
  EXPECT_TRUE(
      DispatchOne("scalar_pow", {x}, {{"int_operand", int64_t{-1}}, {"scalar_first", true}}).ok());
  EXPECT_TRUE(DispatchOne("scalar_pow", {MakeTensor({2, 3}, Shape{2}, DataType::kFloat32)},
                          {{"int_operand", int64_t{-1}}})
                  .ok());
}

TEST(RobustnessTest, OpWithoutFunctionsIsNotImplemented) {
  const Tensor x = MakeTensor({1, 2}, Shape{2}, DataType::kFloat32);
  ExpectError(DispatchOne("test_no_functions", {x}), ErrorKind::kNotImplemented,
              {"test_no_functions", "SetInferFn"});
  const OpSchema* schema = Unwrap(OpRegistry::Global().Find("test_no_functions"));
  ExpectError(schema->SbpSignatures({{Shape{2}, DataType::kFloat32}}, AttrMap()),
              ErrorKind::kNotImplemented, {"SetSbpFn"});
}

TEST(RobustnessTest, NumbersWithLeadingBlanksOrTrailingTextAreRejected) {
  for (const char* text : {" 1", "\t2", "1 ", "1x", ""}) {
    ExpectError(ParseAttrValue(AttrType::kInt64, text), ErrorKind::kValueError, {"int64"});
    ExpectError(ParseAttrValue(AttrType::kDouble, text), ErrorKind::kValueError, {"double"});
  }
  ExpectError(ParseAttrValue(AttrType::kListInt64, "1, 2"), ErrorKind::kValueError, {"list_int64"});
  EXPECT_EQ(*Unwrap(ParseAttrValue(AttrType::kInt64, "-7")).TryGet<int64_t>(), -7);
}

TEST(RobustnessTest, FloatListsRejectValuesBeyondFloat) {
  ExpectError(ParseAttrValue(AttrType::kListFloat, "1,1e39"), ErrorKind::kValueError,
              {"list_float"});
  EXPECT_EQ(
      Unwrap(ParseAttrValue(AttrType::kListFloat, "0.5,-2")).TryGet<std::vector<float>>()->size(),
      2);
}

TEST(RobustnessTest, FullRejectsFiniteValuesThatOverflowAFloatingDtype) {
  ExpectError(Tensor::Full(Shape{2}, 1e6, DataType::kFloat16), ErrorKind::kValueError,
              {"1e+06", "float16"});
  ExpectError(Tensor::Full(Shape{2}, 1e300, DataType::kFloat32), ErrorKind::kValueError,
              {"float32"});
  ExpectError(Tensor::Full(Shape{2}, -1e39, DataType::kBFloat16), ErrorKind::kValueError,
              {"bfloat16"});
  // the largest finite values and infinities themselves are fine
  EXPECT_EQ(ToDoubles(Unwrap(Tensor::Full(Shape{1}, 65504, DataType::kFloat16))),
            std::vector<double>{65504});
  EXPECT_TRUE(
      std::isinf(ToDoubles(Unwrap(Tensor::Full(Shape{1}, INFINITY, DataType::kFloat16)))[0]));
}

}  // namespace
}  // namespace test
}  // namespace oflite
