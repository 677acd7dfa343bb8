// Transpose / Permute through the functional API: every dtype, ranks 0-5, negative axes, and
// every invalid permutation.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "ops/softmax_reference.h"
#include "ops/transpose_reference.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

TEST(TransposeFunctional, EveryPermutationUpToRankFourEveryDtype) {
  const Shape shapes[] = {Shape{}, Shape{4}, Shape{2, 3}, Shape{2, 3, 4}, Shape{3, 1, 2, 4}};
  for (DataType dtype : AllDataTypes()) {
    for (const Shape& shape : shapes) {
      std::vector<double> x(static_cast<size_t>(shape.elem_cnt()));
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = dtype == DataType::kBool ? static_cast<double>(i % 2) : static_cast<double>(i % 90);
      }
      const Tensor t = MakeTensor(x, shape, dtype);
      std::vector<int64_t> perm(static_cast<size_t>(shape.rank()));
      std::iota(perm.begin(), perm.end(), 0);
      do {
        const Tensor y = Unwrap(functional::Transpose(t, perm));
        for (size_t i = 0; i < perm.size(); ++i) {
          EXPECT_EQ(y.shape()[i], shape[perm[i]]);
        }
        EXPECT_EQ(ToDoubles(y), ReferencePermute(x, shape, perm)) << DataTypeName(dtype);
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
}

TEST(TransposeFunctional, NegativeAxesAndPermuteAlias) {
  const Shape shape = {2, 3, 4, 5, 2};
  const std::vector<double> x = RandomValues(static_cast<size_t>(shape.elem_cnt()), 11);
  const Tensor t = MakeTensor(x, shape, DataType::kFloat64);
  const Tensor a = Unwrap(functional::Transpose(t, {-1, 0, -3, 1, 3}));
  const Tensor b = Unwrap(functional::Permute(t, {4, 0, 2, 1, 3}));
  EXPECT_EQ(a.shape(), (Shape{2, 2, 4, 3, 5}));
  EXPECT_EQ(ToDoubles(a), ReferencePermute(x, shape, {4, 0, 2, 1, 3}));
  EXPECT_EQ(ToDoubles(b), ToDoubles(a));
}

TEST(TransposeFunctional, InvalidPermutationsAreErrors) {
  const Tensor t = MakeTensor(RandomValues(24, 3), Shape{2, 3, 4}, DataType::kFloat32);
  ExpectError(functional::Transpose(t, {1, 0}), ErrorKind::kValueError,
              {"transpose: perm has 2 entries for a tensor of rank 3"});
  ExpectError(functional::Permute(t, {0, 1, 1}), ErrorKind::kValueError, {"repeats axis 1"});
  ExpectError(functional::Transpose(t, {0, 1, 3}), ErrorKind::kIndexError,
              {"transpose: perm[2] = 3 is out of range for a tensor of rank 3 (expected -3..2)"});
  ExpectError(functional::Transpose(t, {0, -4, 1}), ErrorKind::kIndexError, {"perm[1] = -4"});
}

TEST(TransposeFunctional, RanksUpToTheLimitWorkAndOneMoreIsAValueError) {
  // kMaxRank dims, reversed: every op on every device takes this rank.
  std::vector<int64_t> dims(kMaxRank, 1), perm(kMaxRank);
  dims[3] = 2;
  dims[13] = 3;
  std::iota(perm.begin(), perm.end(), 0);
  std::reverse(perm.begin(), perm.end());
  const Shape shape{dims};
  const std::vector<double> x = RandomValues(6, 8);
  const Tensor y = Unwrap(functional::Transpose(MakeTensor(x, shape, DataType::kFloat32), perm));
  EXPECT_EQ(ToDoubles(y), ReferencePermute(RoundTo(x, DataType::kFloat32), shape, perm));
  // and softmax over a non-last dim of such a tensor goes through the same transposes
  const Tensor s = Unwrap(functional::Softmax(MakeTensor(x, shape, DataType::kFloat64), 13));
  ExpectAllClose(ToDoubles(s), ReferenceSoftmax(x, shape, 13, false), 1e-12, "rank-16 softmax");
  // One dim more is refused where the tensor is made, so no op ever sees it.
  dims.push_back(1);
  ExpectError(Tensor::Empty(Shape{dims}, DataType::kFloat32), ErrorKind::kValueError,
              {"17 dims", "at most 16"});
}

TEST(TransposeFunctional, RawDispatchChecksThePermutationToo) {
  const Tensor t = MakeTensor(RandomValues(6, 3), Shape{2, 3}, DataType::kFloat32);
  ExpectError(DispatchOne("transpose", {t}, {{"perm", std::vector<int64_t>{0, 5}}}),
              ErrorKind::kIndexError, {"perm[1] = 5 is out of range"});
  ExpectError(DispatchOne("transpose", {t}, {{"perm", std::vector<int64_t>{-1, 0}}}),
              ErrorKind::kIndexError, {"perm[0] = -1"});
  ExpectError(DispatchOne("transpose", {t}), ErrorKind::kValueError,
              {"required attribute 'perm'", "list_int64"});
  ExpectError(DispatchOne("transpose", {t}, {{"perm", 1}}), ErrorKind::kTypeError,
              {"'perm' must be list_int64, got int64"});
}

}  // namespace
}  // namespace test
}  // namespace oflite
