// CPU Permute for every dtype and ranks 0-5, against the index-by-index reference; Memcpy, Fill.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "oneflow_lite/primitive/fill.h"
#include "oneflow_lite/primitive/memcpy.h"
#include "oneflow_lite/primitive/permute.h"
#include "ops/transpose_reference.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

ep::Stream* CpuStream() { return Unwrap(ep::GetDevice(Device::Cpu()))->default_stream(); }

// Small integers survive every dtype (bool: 0/1), so any misplaced element shows.
std::vector<double> DistinctValues(size_t count, DataType dtype) {
  std::vector<double> values(count);
  for (size_t i = 0; i < count; ++i) {
    values[i] = dtype == DataType::kBool ? static_cast<double>(i % 3 == 0)
                                         : static_cast<double>(i % 100) + 1;
  }
  return values;
}

// unique: element i holds first + i (for dtypes that hold every such value exactly).
void CheckPermute(const Shape& shape, const std::vector<int64_t>& perm, DataType dtype,
                  bool unique = false, double first = 0) {
  std::vector<double> x = DistinctValues(static_cast<size_t>(shape.elem_cnt()), dtype);
  if (unique) {
    std::iota(x.begin(), x.end(), first);
  }
  const Tensor x_t = MakeTensor(x, shape, dtype);
  std::vector<int64_t> out_dims;
  for (int64_t p : perm) {
    out_dims.push_back(shape[p]);
  }
  const Tensor y_t = Unwrap(Tensor::Full(Shape(out_dims), 0, dtype));
  auto permute =
      primitive::NewPrimitive<primitive::PermuteFactory>(DeviceType::kCPU, dtype, perm.size());
  ASSERT_NE(permute, nullptr);
  ASSERT_TRUE(permute
                  ->Launch(CpuStream(), perm.size(), shape.dims().data(), x_t.data(), perm.data(),
                           y_t.mut_data())
                  .ok());
  const std::vector<double> expected = ReferencePermute(x, shape, perm);
  EXPECT_EQ(ToDoubles(y_t), expected) << DataTypeName(dtype) << " " << shape;
}

TEST(PermutePrimitive, EveryPermutationUpToRankThreeEveryDtype) {
  const Shape shapes[] = {Shape{}, Shape{5}, Shape{3, 4}, Shape{2, 3, 5}};
  for (DataType dtype : AllDataTypes()) {
    for (const Shape& shape : shapes) {
      std::vector<int64_t> perm(static_cast<size_t>(shape.rank()));
      std::iota(perm.begin(), perm.end(), 0);
      do {
        CheckPermute(shape, perm, dtype);
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
}

TEST(PermutePrimitive, RanksFourAndFive) {
  CheckPermute(Shape{2, 3, 4, 5}, {3, 1, 0, 2}, DataType::kFloat32);
  CheckPermute(Shape{2, 3, 4, 5}, {0, 2, 1, 3}, DataType::kFloat16);
  CheckPermute(Shape{3, 1, 2, 2, 4}, {4, 0, 3, 2, 1}, DataType::kInt64);
  CheckPermute(Shape{2, 2, 3, 1, 2}, {1, 2, 3, 4, 0}, DataType::kInt8);
}

// Batched 2-D transposes span several 32 x 32 tiles, partial ones at both edges: one dim moved
// last, and back, as softmax over a non-last dim moves it; with and without a batch dim.
TEST(PermutePrimitive, BatchedTransposesOverSeveralTiles) {
  for (DataType dtype :
       {DataType::kInt8, DataType::kFloat16, DataType::kFloat32, DataType::kFloat64}) {
    CheckPermute(Shape{70, 45}, {1, 0}, dtype);
    CheckPermute(Shape{3, 70, 45}, {0, 2, 1}, dtype);
    CheckPermute(Shape{2, 33, 4, 65}, {0, 2, 3, 1}, dtype);
    CheckPermute(Shape{2, 4, 65, 33}, {0, 3, 1, 2}, dtype);
    CheckPermute(Shape{33, 2, 65}, {1, 2, 0}, dtype);
  }
}

// Transposes made of whole 8 x 8 blocks (moved in registers) and of blocks cut at either edge,
// every word size; softmax over dim 0 of (8, 128) makes the first two.
TEST(PermutePrimitive, TransposesInWholeAndPartBlocks) {
  // Every element distinct where the dtype holds every index (float16 up to 2048); int8 by the
  // 16 x 16 case, which holds all its 256 values.
  for (DataType dtype :
       {DataType::kInt8, DataType::kFloat16, DataType::kFloat32, DataType::kFloat64}) {
    for (const auto& [shape, perm] :
         std::vector<std::pair<Shape, std::vector<int64_t>>>{{Shape{8, 128}, {1, 0}},
                                                             {Shape{128, 8}, {1, 0}},
                                                             {Shape{16, 16}, {1, 0}},
                                                             {Shape{9, 17}, {1, 0}},
                                                             {Shape{3, 24, 40}, {0, 2, 1}},
                                                             {Shape{2, 8, 3, 8}, {0, 3, 2, 1}}}) {
      const bool unique =
          dtype != DataType::kInt8 && (dtype != DataType::kFloat16 || shape.elem_cnt() <= 2048);
      CheckPermute(shape, perm, dtype, unique);
    }
  }
  CheckPermute(Shape{16, 16}, {1, 0}, DataType::kInt8, /*unique=*/true, /*first=*/-128);
  CheckPermute(Shape{40, 72}, {1, 0}, DataType::kInt32, /*unique=*/true);
}

TEST(PermutePrimitive, EmptyTensorWritesNothing) {
  CheckPermute(Shape{0, 3}, {1, 0}, DataType::kFloat32);
}

TEST(MemcpyPrimitive, CopiesBytes) {
  auto memcpy = primitive::NewPrimitive<primitive::MemcpyFactory>(
      DeviceType::kCPU, primitive::MemcpyKind::kDeviceToDevice);
  ASSERT_NE(memcpy, nullptr);
  std::vector<int32_t> src = {1, -2, 3, 400000}, dst(4, 0);
  ASSERT_TRUE(memcpy->Launch(CpuStream(), dst.data(), src.data(), 16).ok());
  EXPECT_EQ(dst, src);
}

TEST(FillPrimitive, FillsEveryDtype) {
  for (DataType dtype : AllDataTypes()) {
    auto fill = primitive::NewPrimitive<primitive::FillFactory>(DeviceType::kCPU, dtype);
    ASSERT_NE(fill, nullptr) << DataTypeName(dtype);
    const Tensor t = MakeTensor(std::vector<double>(7, 0.0), Shape{7}, dtype);
    ASSERT_TRUE(fill->Launch(CpuStream(), t.mut_data(), 1.0, 7).ok());
    EXPECT_EQ(ToDoubles(t), std::vector<double>(7, 1.0)) << DataTypeName(dtype);
  }
}

}  // namespace
}  // namespace test
}  // namespace oflite
