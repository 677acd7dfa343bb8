// Softmax, LogSoftmax and their grads through the functional API: ranks 0-4, every dim both
// positive and negative, every float dtype, special values, and every bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/softmax_reference.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

const Shape kShapesByRank[] = {Shape{}, Shape{7}, Shape{3, 5}, Shape{2, 3, 4}, Shape{2, 3, 1, 5}};

struct Case {
  DataType dtype;
  bool log;
};

class SoftmaxFunctionalTest : public ::testing::TestWithParam<Case> {};

TEST_P(SoftmaxFunctionalTest, ForwardEveryRankAndDim) {
  const auto [dtype, log] = GetParam();
  for (const Shape& shape : kShapesByRank) {
    const int64_t extent = std::max<int64_t>(shape.rank(), 1);
    for (int64_t dim = -extent; dim < extent; ++dim) {
      const uint64_t seed = static_cast<uint64_t>(shape.rank() * 100 + dim + 50);
      const std::vector<double> x =
          RoundTo(RandomValues(static_cast<size_t>(shape.elem_cnt()), seed), dtype);
      const Tensor y = Unwrap(log ? functional::LogSoftmax(MakeTensor(x, shape, dtype), dim)
                                  : functional::Softmax(MakeTensor(x, shape, dtype), dim));
      EXPECT_EQ(y.shape(), shape);
      EXPECT_EQ(y.dtype(), dtype);
      const int64_t wrapped = dim < 0 ? dim + extent : dim;
      ExpectAllClose(
          ToDoubles(y), ReferenceSoftmax(x, shape, wrapped, log), SoftmaxTolerance(dtype),
          std::string(log ? "log_softmax " : "softmax ") + DataTypeName(dtype) + " " +
              shape.ToString() + " dim " + std::to_string(dim) + " seed " + std::to_string(seed),
          SmallestNormal(dtype), SoftmaxScale(x, shape, wrapped, log));
    }
  }
}

TEST_P(SoftmaxFunctionalTest, BackwardEveryRankAndDim) {
  const auto [dtype, log] = GetParam();
  for (const Shape& shape : kShapesByRank) {
    const int64_t extent = std::max<int64_t>(shape.rank(), 1);
    for (int64_t dim = -extent; dim < extent; ++dim) {
      const size_t n = static_cast<size_t>(shape.elem_cnt());
      const uint64_t seed = static_cast<uint64_t>(shape.rank() * 1000 + dim + 500);
      const int64_t wrapped = dim < 0 ? dim + extent : dim;
      const std::vector<double> y =
          RoundTo(ReferenceSoftmax(RandomValues(n, seed), shape, wrapped, log), dtype);
      const std::vector<double> dy = RoundTo(RandomValues(n, seed + 1), dtype);
      const Tensor y_t = MakeTensor(y, shape, dtype), dy_t = MakeTensor(dy, shape, dtype);
      const Tensor dx = Unwrap(log ? functional::LogSoftmaxGrad(y_t, dy_t, dim)
                                   : functional::SoftmaxGrad(y_t, dy_t, dim));
      EXPECT_EQ(dx.shape(), shape);
      ExpectAllClose(
          ToDoubles(dx), ReferenceSoftmaxGrad(y, dy, shape, wrapped, log), SoftmaxTolerance(dtype),
          std::string(log ? "log_softmax_grad " : "softmax_grad ") + DataTypeName(dtype) + " " +
              shape.ToString() + " dim " + std::to_string(dim) + " seed " + std::to_string(seed),
          SmallestNormal(dtype), SoftmaxGradScale(y, dy, shape, wrapped, log));
    }
  }
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (DataType dtype : FloatingDataTypes()) {
    cases.push_back({dtype, false});
    cases.push_back({dtype, true});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllFloatDtypes, SoftmaxFunctionalTest, ::testing::ValuesIn(AllCases()),
                         [](const auto& info) {
                           return std::string(info.param.log ? "log_" : "") +
                                  DataTypeName(info.param.dtype);
                         });

TEST(SoftmaxFunctional, RankZeroGivesOneAndLogZero) {
  for (DataType dtype : FloatingDataTypes()) {
    const Tensor x = MakeTensor({-3.5}, Shape{}, dtype);
    for (int64_t dim : {0, -1}) {
      EXPECT_EQ(ToDoubles(Unwrap(functional::Softmax(x, dim))), std::vector<double>{1.0});
      EXPECT_EQ(ToDoubles(Unwrap(functional::LogSoftmax(x, dim))), std::vector<double>{0.0});
    }
  }
}

TEST(SoftmaxFunctional, EmptyTensorGivesEmptyResult) {
  // 2^40 rows of no columns: no element, so no work (a walk over the rows would take minutes).
  for (const Shape& shape :
       {Shape{0}, Shape{0, 3}, Shape{3, 0}, Shape{2, 0, 4}, Shape{int64_t{1} << 40, 0}}) {
    for (int64_t dim = 0; dim < shape.rank(); ++dim) {
      const Tensor x = Unwrap(Tensor::Empty(shape, DataType::kFloat32));
      const Tensor y = Unwrap(functional::Softmax(x, dim));
      EXPECT_EQ(y.shape(), shape);
      EXPECT_EQ(y.elem_cnt(), 0);
      EXPECT_EQ(Unwrap(functional::LogSoftmax(x, dim)).shape(), shape);
      EXPECT_EQ(Unwrap(functional::SoftmaxGrad(y, y, dim)).shape(), shape);
      EXPECT_EQ(Unwrap(functional::LogSoftmaxGrad(y, y, dim)).shape(), shape);
    }
  }
}

TEST(SoftmaxFunctional, SpecialValuesMatchPyTorch) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Rows: one +inf (PyTorch: all NaN), all -inf (all NaN), one NaN (all NaN), one -inf among
  // finite values (exactly 0 there, the rest a softmax of the finite values).
  const std::vector<double> x = {1, inf, 2, -inf, -inf, -inf, 1, nan, 3, -inf, 0, 0};
  const Shape shape = {4, 3};
  for (DataType dtype : FloatingDataTypes()) {
    for (bool log : {false, true}) {
      const Tensor t = MakeTensor(x, shape, dtype);
      const std::vector<double> y =
          ToDoubles(Unwrap(log ? functional::LogSoftmax(t, 1) : functional::Softmax(t, 1)));
      for (int i = 0; i < 9; ++i) {
        EXPECT_TRUE(std::isnan(y[i])) << i << " " << DataTypeName(dtype);
      }
      EXPECT_EQ(y[9], log ? -inf : 0.0) << DataTypeName(dtype);
      const double half = log ? std::log(0.5) : 0.5;
      EXPECT_NEAR(y[10], half, SoftmaxTolerance(dtype));
      EXPECT_NEAR(y[11], half, SoftmaxTolerance(dtype));
    }
  }
}

TEST(SoftmaxFunctional, ExtremeFiniteValuesStayFiniteAndSumToOne) {
  for (DataType dtype : FloatingDataTypes()) {
    // The largest and smallest magnitudes each dtype holds, plus ordinary values.
    const double big = dtype == DataType::kFloat16   ? 65504.0
                       : dtype == DataType::kFloat64 ? 1e300
                                                     : 3e38;
    const double tiny = dtype == DataType::kFloat16 ? 6e-8 : 1e-38;
    const std::vector<double> x = {big, -big, 0, tiny, -big, -big, big, big, tiny, -tiny, 1, -1};
    const Shape shape = {3, 4};
    const Tensor t = MakeTensor(x, shape, dtype);
    const std::vector<double> y = ToDoubles(Unwrap(functional::Softmax(t, 1)));
    const std::vector<double> log_y = ToDoubles(Unwrap(functional::LogSoftmax(t, 1)));
    for (int r = 0; r < 3; ++r) {
      double sum = 0;
      for (int c = 0; c < 4; ++c) {
        EXPECT_TRUE(std::isfinite(y[r * 4 + c])) << DataTypeName(dtype) << " row " << r;
        sum += y[r * 4 + c];
      }
      // each of the 4 outputs is within the tolerance, so their sum is within 4 of them
      EXPECT_NEAR(sum, 1.0, 4 * SoftmaxTolerance(dtype)) << DataTypeName(dtype) << " row " << r;
    }
    ExpectAllClose(y, ReferenceSoftmax(RoundTo(x, dtype), shape, 1, false), SoftmaxTolerance(dtype),
                   std::string("extreme softmax ") + DataTypeName(dtype), SmallestNormal(dtype));
    for (int c = 0; c < 4; ++c) {  // row 2 mixes tiny and ordinary values: all stay finite
      EXPECT_TRUE(std::isfinite(log_y[8 + c])) << DataTypeName(dtype) << " col " << c;
    }
  }
}

TEST(SoftmaxFunctional, DimOutOfRangeIsIndexError) {
  const Tensor x = MakeTensor(RandomValues(6, 1), Shape{2, 3}, DataType::kFloat32);
  ExpectError(functional::Softmax(x, 2), ErrorKind::kIndexError,
              {"softmax: dim 2 is out of range for a tensor of rank 2 (expected -2..1)"});
  ExpectError(functional::LogSoftmax(x, -3), ErrorKind::kIndexError, {"log_softmax", "dim -3"});
  ExpectError(functional::SoftmaxGrad(x, x, 5), ErrorKind::kIndexError, {"softmax_grad", "dim 5"});
  const Tensor scalar = MakeTensor({1.0}, Shape{}, DataType::kFloat32);
  ExpectError(functional::Softmax(scalar, 1), ErrorKind::kIndexError, {"rank 0", "expected -1..0"});
}

TEST(SoftmaxFunctional, IntegerAndBoolDtypesAreTypeErrors) {
  for (DataType dtype :
       {DataType::kInt8, DataType::kUInt8, DataType::kInt32, DataType::kInt64, DataType::kBool}) {
    const Tensor x = MakeTensor({1, 0, 1, 1}, Shape{2, 2}, dtype);
    ExpectError(functional::Softmax(x, 1), ErrorKind::kTypeError,
                {"softmax", "floating dtype", DataTypeName(dtype)});
    ExpectError(functional::LogSoftmax(x, 0), ErrorKind::kTypeError, {"log_softmax"});
    ExpectError(functional::SoftmaxGrad(x, x, 0), ErrorKind::kTypeError, {"softmax_grad"});
  }
}

TEST(SoftmaxFunctional, GradInputsMustAgree) {
  const Tensor y = MakeTensor(RandomValues(6, 2), Shape{2, 3}, DataType::kFloat32);
  const Tensor dy_shape = MakeTensor(RandomValues(6, 3), Shape{3, 2}, DataType::kFloat32);
  const Tensor dy_dtype = MakeTensor(RandomValues(6, 4), Shape{2, 3}, DataType::kFloat64);
  ExpectError(functional::SoftmaxGrad(y, dy_shape, 1), ErrorKind::kValueError,
              {"same shape", "(2, 3)", "(3, 2)"});
  ExpectError(functional::LogSoftmaxGrad(y, dy_dtype, 1), ErrorKind::kTypeError,
              {"same dtype", "float32", "float64"});
}

TEST(SoftmaxFunctional, RawDispatchOfIntegerSoftmaxFindsNoKernel) {
  const Tensor x = MakeTensor({1, 2, 3}, Shape{3}, DataType::kInt32);
  ExpectError(DispatchOne("softmax", {x}), ErrorKind::kNotImplemented,
              {"no kernel", "cpu", "int32", "float32"});
}

TEST(SoftmaxFunctional, NonLastDimTravelsThroughOneTransposeEachWay) {
  const Tensor x = MakeTensor(RandomValues(24, 9), Shape{2, 3, 4}, DataType::kFloat32);
  DispatchTrace trace;
  Unwrap(functional::Softmax(x, 1));
  ASSERT_EQ(trace.records().size(), 3u);
  EXPECT_EQ(trace.records()[0].op_type, "transpose");
  EXPECT_EQ(trace.records()[1].op_type, "softmax");
  EXPECT_EQ(trace.records()[1].kernel, "SoftmaxKernel");
  EXPECT_EQ(trace.records()[1].primitives, std::vector<std::string>{"cpu.softmax<float32>"});
  EXPECT_EQ(trace.records()[2].op_type, "transpose");
}

}  // namespace
}  // namespace test
}  // namespace oflite

namespace oflite {
namespace test {
namespace {

TEST(DispatchTraceOrder, OutOfOrderDestructionLeavesNoDanglingTrace) {
  const Tensor x = MakeTensor(RandomValues(6, 4), Shape{2, 3}, DataType::kFloat32);
  auto outer = std::make_unique<DispatchTrace>();
  auto inner = std::make_unique<DispatchTrace>();
  outer.reset();  // destroyed before the trace created after it
  Unwrap(functional::Softmax(x, 1));
  EXPECT_EQ(inner->records().size(), 1u);
  inner.reset();
  Unwrap(functional::Softmax(x, 1));  // no live trace: must not touch freed memory
  DispatchTrace last;
  Unwrap(functional::Softmax(x, 1));
  EXPECT_EQ(last.records().size(), 1u);
}

}  // namespace
}  // namespace test
}  // namespace oflite
