// Error paths found in review: sizes that overflow, enum values out of range, user ops
// registered without functions, numbers with stray text, values a dtype cannot hold.
#include <gtest/gtest.h>

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
  AttrMap attrs({{"dtype", AttrValue(proto::AttrValue())}});
  proto::AttrValue bad;
  bad.set_at_data_type(static_cast<proto::DataType>(77));
  attrs.Set("dtype", AttrValue(bad));
  ExpectError(attrs.Get<DataType>("dtype"), ErrorKind::kValueError, {"dtype", "77"});
}

TEST(RobustnessTest, InvalidDeviceTypeHasNoProvider) {
  EXPECT_EQ(ep::FindDeviceProvider(static_cast<DeviceType>(5)), nullptr);
  EXPECT_EQ(ep::DeviceCount(static_cast<DeviceType>(5)), 0);
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
  EXPECT_EQ(Unwrap(ParseAttrValue(AttrType::kInt64, "-7")).at_int64(), -7);
}

TEST(RobustnessTest, FloatListsRejectValuesBeyondFloat) {
  ExpectError(ParseAttrValue(AttrType::kListFloat, "1,1e39"), ErrorKind::kValueError,
              {"list_float"});
  EXPECT_EQ(Unwrap(ParseAttrValue(AttrType::kListFloat, "0.5,-2")).at_list_float().value_size(), 2);
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
