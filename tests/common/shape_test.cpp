// Shape: element counts, text form, contiguous strides and validation of user-given dims.
#include "oneflow_lite/common/shape.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

TEST(ShapeTest, RankZeroIsAScalarWithOneElement) {
  const Shape scalar;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.elem_cnt(), 1);
  EXPECT_TRUE(scalar.dims().empty());
  EXPECT_EQ(scalar.ToString(), "()");
  EXPECT_TRUE(ContiguousStrides(scalar).empty());
  EXPECT_TRUE(scalar.Validate().ok());
  EXPECT_EQ(scalar, Shape(std::vector<int64_t>{}));
}

TEST(ShapeTest, ElementCountAndCount) {
  const Shape shape({2, 3, 4, 5});
  EXPECT_EQ(shape.rank(), 4);
  EXPECT_EQ(shape.elem_cnt(), 2 * 3 * 4 * 5);
  EXPECT_EQ(shape.Count(0, 4), 120);
  EXPECT_EQ(shape.Count(1, 3), 3 * 4);
  EXPECT_EQ(shape.Count(3, 4), 5);
  EXPECT_EQ(shape.Count(2, 2), 1);  // an empty range multiplies nothing
  EXPECT_EQ(shape[2], 4);
  EXPECT_EQ(shape.At(0), 2);
  EXPECT_EQ(Shape({7, 0, 3}).elem_cnt(), 0);
}

TEST(ShapeTest, SetAndCompare) {
  Shape shape({2, 3});
  EXPECT_EQ(shape, Shape({2, 3}));
  shape.Set(1, 8);
  EXPECT_EQ(shape.dims(), (std::vector<int64_t>{2, 8}));
  EXPECT_NE(shape, Shape({2, 3}));
  EXPECT_NE(Shape({2, 3}), Shape({2, 3, 1}));
}

TEST(ShapeTest, ToString) {
  EXPECT_EQ(Shape({2, 3}).ToString(), "(2, 3)");
  EXPECT_EQ(Shape({3}).ToString(), "(3,)");  // Python's one-element tuple
  EXPECT_EQ(Shape({4, 0, 1, 7}).ToString(), "(4, 0, 1, 7)");
  std::ostringstream out;
  out << Shape({5, 6});
  EXPECT_EQ(out.str(), "(5, 6)");
}

TEST(ShapeTest, ContiguousStridesAreSuffixProducts) {
  EXPECT_EQ(ContiguousStrides(Shape({2, 3, 4})), (Strides{12, 4, 1}));
  EXPECT_EQ(ContiguousStrides(Shape({5})), (Strides{1}));
  EXPECT_EQ(ContiguousStrides(Shape({1, 1, 1})), (Strides{1, 1, 1}));
  EXPECT_EQ(ContiguousStrides(Shape({2, 0, 3})), (Strides{0, 3, 1}));
  // Check the definition on a larger shape: stride[i] = product of dims after i.
  const Shape shape({3, 1, 4, 1, 5, 9});
  const Strides strides = ContiguousStrides(shape);
  ASSERT_EQ(strides.size(), 6u);
  for (int64_t i = 0; i < shape.rank(); ++i) {
    int64_t expected = 1;
    for (int64_t j = i + 1; j < shape.rank(); ++j) {
      expected *= shape[j];
    }
    EXPECT_EQ(strides[static_cast<size_t>(i)], expected) << "axis " << i;
  }
}

TEST(ShapeTest, ValidateAcceptsOrdinaryAndBoundaryShapes) {
  EXPECT_TRUE(Shape({2, 3}).Validate().ok());
  EXPECT_TRUE(Shape({0}).Validate().ok());
  EXPECT_TRUE(Shape({kInt64Max}).Validate().ok());
  EXPECT_TRUE(Shape({kInt64Max, 1}).Validate().ok());
  EXPECT_TRUE(Shape({int64_t{1} << 31, int64_t{1} << 31}).Validate().ok());  // 2^62
  // floor(sqrt(2^63 - 1)) = 3037000499: its square fits, one more does not.
  EXPECT_TRUE(Shape({3037000499, 3037000499}).Validate().ok());
}

TEST(ShapeTest, ValidateRejectsNegativeDim) {
  ExpectError(Shape({2, -1}).Validate(), ErrorKind::kValueError,
              {"(2, -1)", "negative dim -1", "index 1"});
  ExpectError(Shape({-5}).Validate(), ErrorKind::kValueError, {"(-5,)", "-5"});
}

TEST(ShapeTest, ValidateRejectsElementCountOverflow) {
  const int64_t big = int64_t{1} << 32;
  ExpectError(Shape({big, big}).Validate(), ErrorKind::kValueError,
              {"(4294967296, 4294967296)", "int64"});
  ExpectError(Shape({kInt64Max, 2}).Validate(), ErrorKind::kValueError, {"int64"});
  ExpectError(Shape({3037000500, 3037000500}).Validate(), ErrorKind::kValueError, {"int64"});
  ExpectError(Shape({int64_t{1} << 31, int64_t{1} << 32}).Validate(), ErrorKind::kValueError,
              {"int64"});  // exactly 2^63
  // The overflow shows up only with the last factor.
  ExpectError(Shape({2, 2, 2, int64_t{1} << 61}).Validate(), ErrorKind::kValueError, {"int64"});
}

TEST(ShapeTest, ZeroDimWithLargeOthersIsValidAndEmpty) {
  const int64_t big = int64_t{1} << 31;
  const Shape shape({big, 0, big});  // the non-zero dims multiply to 2^62: fits
  EXPECT_TRUE(shape.Validate().ok());
  EXPECT_EQ(shape.elem_cnt(), 0);
  // A negative dim is still an error when another dim is zero.
  ExpectError(Shape({0, -2}).Validate(), ErrorKind::kValueError, {"negative dim -2"});
}

TEST(ShapeTest, ZeroDimDoesNotExcuseOverflowingOthers) {
  // Row counts and strides multiply the non-zero dims, so they must fit in int64 too.
  ExpectError(Shape({kInt64Max, kInt64Max, 0}).Validate(), ErrorKind::kValueError, {"int64"});
  ExpectError(Shape({int64_t{1} << 32, 0, int64_t{1} << 32}).Validate(), ErrorKind::kValueError,
              {"int64"});
}

}  // namespace
}  // namespace oflite
