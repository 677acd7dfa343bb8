// The promotion table against PyTorch's torch.result_type for the dtypes oflite has.
#include "oneflow_lite/common/type_promotion.h"

#include <gtest/gtest.h>

namespace oflite {
namespace {

using DT = DataType;

TEST(TypePromotion, TensorWithTensorFollowsPyTorch) {
  struct Case {
    DT a, b, expected;
  };
  const Case cases[] = {
      {DT::kInt32, DT::kFloat32, DT::kFloat32},    {DT::kInt64, DT::kFloat16, DT::kFloat16},
      {DT::kFloat16, DT::kFloat32, DT::kFloat32},  {DT::kBFloat16, DT::kFloat16, DT::kFloat32},
      {DT::kBFloat16, DT::kFloat32, DT::kFloat32}, {DT::kFloat32, DT::kFloat64, DT::kFloat64},
      {DT::kBFloat16, DT::kFloat64, DT::kFloat64}, {DT::kInt32, DT::kInt64, DT::kInt64},
      {DT::kInt8, DT::kInt32, DT::kInt32},         {DT::kUInt8, DT::kInt32, DT::kInt32},
      {DT::kUInt8, DT::kInt64, DT::kInt64},        {DT::kBool, DT::kInt8, DT::kInt8},
      {DT::kBool, DT::kUInt8, DT::kUInt8},         {DT::kBool, DT::kFloat16, DT::kFloat16},
      {DT::kBool, DT::kBool, DT::kBool},           {DT::kBFloat16, DT::kBFloat16, DT::kBFloat16},
      {DT::kUInt8, DT::kInt8, DT::kInt32},  // PyTorch: int16, which oflite lacks
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PromoteTypes(c.a, c.b), c.expected) << c.a << " with " << c.b;
    EXPECT_EQ(PromoteTypes(c.b, c.a), c.expected) << c.b << " with " << c.a;
  }
  for (DT t : AllDataTypes()) {
    EXPECT_EQ(PromoteTypes(t, t), t) << t;
  }
}

TEST(TypePromotion, ScalarsDecideTheCategoryOnly) {
  EXPECT_EQ(PromoteWithScalar(DT::kFloat16, Scalar(2.5)), DT::kFloat16);  // does not widen
  EXPECT_EQ(PromoteWithScalar(DT::kBFloat16, Scalar(3)), DT::kBFloat16);
  EXPECT_EQ(PromoteWithScalar(DT::kInt8, Scalar(1000)), DT::kInt8);
  EXPECT_EQ(PromoteWithScalar(DT::kInt32, Scalar(2.5)), DT::kFloat32);  // default dtype
  EXPECT_EQ(PromoteWithScalar(DT::kInt64, Scalar(0.5f)), DT::kFloat32);
  EXPECT_EQ(PromoteWithScalar(DT::kBool, Scalar(2)), DT::kInt64);
  EXPECT_EQ(PromoteWithScalar(DT::kBool, Scalar(true)), DT::kBool);
  EXPECT_EQ(PromoteWithScalar(DT::kBool, Scalar(1.5)), DT::kFloat32);
  EXPECT_EQ(PromoteWithScalar(DT::kFloat64, Scalar(true)), DT::kFloat64);
}

TEST(TypePromotion, ScalarKeepsItsKindAndValue) {
  EXPECT_TRUE(Scalar(true).is_bool());
  EXPECT_TRUE(Scalar(int8_t{3}).is_int());
  EXPECT_TRUE(Scalar(3u).is_int());
  EXPECT_TRUE(Scalar(2.5f).is_float());
  EXPECT_EQ(Scalar(int64_t{1} << 60).ToInt(), int64_t{1} << 60);
  EXPECT_EQ(Scalar(-7).ToDouble(), -7.0);
  EXPECT_EQ(Scalar(2.5).ToDouble(), 2.5);
}

}  // namespace
}  // namespace oflite
