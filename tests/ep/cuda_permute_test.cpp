// CUDA Permute against the plain double reference: every dtype, ranks 0-6 (every permutation up
// to rank 4), rank 16, odd tile edges, size-1 dims, empty tensors, unaligned pointers, a batched
// transpose over many tiles, the path each permutation takes, tensors past 2^31 elements, and
// transpose / non-last-dim softmax through the functional API. Skips itself without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/primitive/permute.h"
#include "oneflow_lite/primitive/softmax.h"
#include "ops/softmax_reference.h"
#include "ops/transpose_reference.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

class CudaPermuteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
  }
};

ep::Stream* CudaStream() { return Unwrap(ep::GetDevice(Device::Cuda(0)))->default_stream(); }

uint64_t Mix(uint64_t i) {
  i ^= i >> 33;
  i *= 0xff51afd7ed558ccdULL;
  i ^= i >> 33;
  i *= 0xc4ceb9fe1a85ec53ULL;
  i ^= i >> 33;
  return i;
}

// Scrambled values the dtype holds exactly, in 1..range (bool: 0/1), so that a misplaced
// element almost always shows; never the poison value below (except for bool).
std::vector<double> DistinctValues(size_t count, DataType dtype) {
  uint64_t range = uint64_t{1} << 30;
  switch (dtype) {
    case DataType::kBool:
      range = 0;
      break;
    case DataType::kInt8:
      range = 127;
      break;
    case DataType::kUInt8:
      range = 255;
      break;
    case DataType::kFloat16:
      range = 2048;
      break;
    case DataType::kBFloat16:
      range = 256;
      break;
    case DataType::kFloat32:
      range = uint64_t{1} << 24;
      break;
    default:
      break;
  }
  std::vector<double> values(count);
  for (size_t i = 0; i < count; ++i) {
    values[i] =
        range == 0 ? static_cast<double>(Mix(i) & 1) : static_cast<double>(Mix(i) % range + 1);
  }
  return values;
}

// What the output holds before the launch: an element the kernel leaves unwritten shows.
double Poison(DataType dtype) {
  return dtype == DataType::kUInt8 || dtype == DataType::kBool ? 0.0 : -1.0;
}

Shape PermutedShape(const Shape& shape, const std::vector<int64_t>& perm) {
  std::vector<int64_t> dims;
  for (int64_t p : perm) {
    dims.push_back(shape[p]);
  }
  return Shape(dims);
}

std::string Describe(const Shape& shape, const std::vector<int64_t>& perm, DataType dtype) {
  std::ostringstream out;
  out << DataTypeName(dtype) << " " << shape << " perm (";
  for (size_t i = 0; i < perm.size(); ++i) {
    out << (i ? "," : "") << perm[i];
  }
  out << ")";
  return out.str();
}

// Element-exact comparison reporting the count and the first few misses, not whole vectors.
void ExpectSameElements(const std::vector<double>& actual, const std::vector<double>& expected,
                        const std::string& context) {
  ASSERT_EQ(actual.size(), expected.size()) << context;
  size_t misses = 0;
  std::ostringstream first;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] != expected[i]) {
      if (misses < 5) {
        first << " [" << i << "] got " << actual[i] << " expected " << expected[i] << ";";
      }
      ++misses;
    }
  }
  EXPECT_EQ(misses, 0u) << context << ": " << misses << " of " << actual.size()
                        << " elements differ:" << first.str();
}

// Runs the CUDA permute primitive on fresh device tensors and compares with the reference;
// `path` (copy | tiled | tiled pairs | tiled vectors | short side | general), when given, is the
// path the launch must report.
void CheckCudaPermute(const Shape& shape, const std::vector<int64_t>& perm, DataType dtype,
                      const std::string& path = "") {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  const std::string context = Describe(shape, perm, dtype);
  const size_t count = static_cast<size_t>(shape.elem_cnt());
  const std::vector<double> x = DistinctValues(count, dtype);
  const Tensor x_t = MakeTensor(x, shape, dtype, Device::Cuda(0));
  const Tensor y_t = MakeTensor(std::vector<double>(count, Poison(dtype)),
                                PermutedShape(shape, perm), dtype, Device::Cuda(0));
  auto permute =
      primitive::NewPrimitive<primitive::PermuteFactory>(DeviceType::kCUDA, dtype, perm.size());
  ASSERT_NE(permute, nullptr) << context;
  EXPECT_EQ(permute->name(), std::string("cuda.permute<") + DataTypeName(dtype) + ">");
  const Maybe<void> launched = permute->Launch(CudaStream(), perm.size(), shape.dims().data(),
                                               x_t.data(), perm.data(), y_t.mut_data());
  ASSERT_TRUE(launched.ok()) << context << ": " << launched.error().ToString();
  const Maybe<void> synced = CudaStream()->Sync();
  ASSERT_TRUE(synced.ok()) << context << ": " << synced.error().ToString();
  ExpectSameElements(ToDoubles(y_t), ReferencePermute(x, shape, perm), context);
  if (!path.empty()) {
    EXPECT_EQ(notes.Describe(*permute),
              std::string("cuda.permute<") + DataTypeName(dtype) + ">[" + path + "]")
        << context;
  }
}

void CheckEveryPermutation(const Shape& shape, DataType dtype) {
  std::vector<int64_t> perm(static_cast<size_t>(shape.rank()));
  std::iota(perm.begin(), perm.end(), 0);
  do {
    CheckCudaPermute(shape, perm, dtype);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST_F(CudaPermuteTest, EveryPermutationUpToRankFourEveryDtype) {
  // Odd sizes: 33 x 65 leaves partial tiles on both edges.
  const Shape shapes[] = {Shape{}, Shape{37}, Shape{33, 65}, Shape{5, 33, 65}, Shape{3, 5, 33, 7}};
  for (DataType dtype : AllDataTypes()) {
    for (const Shape& shape : shapes) {
      CheckEveryPermutation(shape, dtype);
    }
  }
}

TEST_F(CudaPermuteTest, RanksFiveAndSixEveryDtype) {
  const std::vector<std::vector<int64_t>> perms5 = {
      {4, 3, 2, 1, 0}, {0, 2, 1, 4, 3}, {1, 4, 0, 3, 2}, {0, 1, 2, 4, 3}, {3, 4, 0, 1, 2}};
  const std::vector<std::vector<int64_t>> perms6 = {
      {5, 4, 3, 2, 1, 0}, {0, 3, 1, 4, 2, 5}, {2, 0, 5, 1, 3, 4}, {0, 1, 2, 3, 5, 4}};
  for (DataType dtype : AllDataTypes()) {
    for (const auto& perm : perms5) {
      CheckCudaPermute(Shape{2, 3, 5, 7, 3}, perm, dtype);
    }
    for (const auto& perm : perms6) {
      CheckCudaPermute(Shape{2, 3, 2, 5, 3, 4}, perm, dtype);
    }
  }
}

TEST_F(CudaPermuteTest, EveryPermutationOfRankSix) {
  for (DataType dtype : {DataType::kFloat32, DataType::kInt8, DataType::kFloat64}) {
    CheckEveryPermutation(Shape{2, 3, 2, 5, 3, 4}, dtype);
  }
}

TEST_F(CudaPermuteTest, SizeOneDims) {
  for (DataType dtype :
       {DataType::kFloat32, DataType::kFloat16, DataType::kInt64, DataType::kUInt8}) {
    CheckEveryPermutation(Shape{1, 33, 1, 65}, dtype);
    CheckEveryPermutation(Shape{3, 1, 5, 1}, dtype);
    CheckEveryPermutation(Shape{1, 1, 1}, dtype);
    CheckCudaPermute(Shape{1}, {0}, dtype, "copy");
  }
}

TEST_F(CudaPermuteTest, ZeroSizeTensorsLaunchNothing) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  for (DataType dtype : AllDataTypes()) {
    CheckCudaPermute(Shape{0, 3}, {1, 0}, dtype);
    CheckCudaPermute(Shape{4, 0, 5}, {2, 0, 1}, dtype);
    CheckCudaPermute(Shape{2, 3, 0}, {0, 2, 1}, dtype);
  }
  auto permute =
      primitive::NewPrimitive<primitive::PermuteFactory>(DeviceType::kCUDA, DataType::kFloat32, 2);
  ASSERT_NE(permute, nullptr);
  const int64_t dims[] = {0, 7};
  const int64_t perm[] = {1, 0};
  ASSERT_TRUE(permute->Launch(CudaStream(), 2, dims, nullptr, perm, nullptr).ok());
  EXPECT_EQ(notes.Describe(*permute), "cuda.permute<float32>");
}

TEST_F(CudaPermuteTest, MergedDimsChooseThePath) {
  const DataType f32 = DataType::kFloat32;
  CheckCudaPermute(Shape{}, {}, f32, "copy");
  CheckCudaPermute(Shape{4, 5, 6}, {0, 1, 2}, f32, "copy");
  CheckCudaPermute(Shape{4, 1, 5}, {0, 2, 1}, f32, "copy");  // only a size-1 dim moves
  CheckCudaPermute(Shape{129, 257}, {1, 0}, f32, "tiled");   // both sides over 512 bytes
  CheckCudaPermute(Shape{33, 65}, {1, 0}, f32, "short side");
  CheckCudaPermute(Shape{2, 3, 4, 5}, {0, 2, 3, 1}, f32,
                   "short side vectors");  // (2, 3, 20) -> (0, 2, 1)
  CheckCudaPermute(Shape{2, 3, 4, 5}, {2, 3, 0, 1}, f32,
                   "short side vectors");                                // (6, 20) -> (1, 0)
  CheckCudaPermute(Shape{2, 3, 4, 5}, {0, 1, 3, 2}, f32, "short side");  // (6, 4, 5) -> (0, 2, 1)
  CheckCudaPermute(Shape{2, 3, 4, 5}, {3, 1, 2, 0}, f32, "general");     // (2, 12, 5) -> (2, 1, 0)
  CheckCudaPermute(Shape{4, 6, 8}, {1, 0, 2}, f32, "general");  // rows move as 16-byte words
  CheckCudaPermute(Shape{4, 6, 3}, {1, 0, 2}, DataType::kInt8, "general");           // 1-byte words
  CheckCudaPermute(Shape{5, 3, 7, 2}, {2, 0, 1, 3}, DataType::kFloat16, "general");  // 4 bytes
}

TEST_F(CudaPermuteTest, RankSixteenAndTheRankLimit) {
  for (DataType dtype : AllDataTypes()) {
    EXPECT_NE(primitive::NewPrimitive<primitive::PermuteFactory>(DeviceType::kCUDA, dtype, 16),
              nullptr);
    EXPECT_EQ(primitive::NewPrimitive<primitive::PermuteFactory>(DeviceType::kCUDA, dtype, 17),
              nullptr);
  }
  const Shape shape16{2, 1, 2, 3, 2, 1, 2, 2, 2, 1, 2, 2, 2, 1, 2, 2};
  std::vector<int64_t> reversed(16);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  std::vector<int64_t> shuffled(16);
  std::iota(shuffled.begin(), shuffled.end(), 0);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(16));
  for (DataType dtype : {DataType::kFloat32, DataType::kBFloat16, DataType::kInt64}) {
    CheckCudaPermute(shape16, reversed, dtype, "general");
    CheckCudaPermute(shape16, shuffled, dtype);
  }
  const Shape shape9{3, 2, 4, 2, 3, 2, 2, 3, 2};
  std::vector<int64_t> perm9(9);
  std::iota(perm9.begin(), perm9.end(), 0);
  std::shuffle(perm9.begin(), perm9.end(), std::mt19937(9));
  CheckCudaPermute(shape9, perm9, DataType::kFloat32);
  CheckCudaPermute(shape9, {8, 7, 6, 5, 4, 3, 2, 1, 0}, DataType::kUInt8, "general");
}

TEST_F(CudaPermuteTest, ManyTilesOfABatchedTranspose) {
  for (DataType dtype :
       {DataType::kFloat32, DataType::kFloat16, DataType::kInt64, DataType::kUInt8}) {
    CheckCudaPermute(Shape{7, 1025, 513}, {0, 2, 1}, dtype, "tiled");
  }
  // 16-bit matrices move eight elements a word where rows and columns are multiples of 8, else
  // two where they are even: whole and partial 64 x 64 tiles.
  for (DataType dtype : {DataType::kFloat16, DataType::kBFloat16}) {
    CheckCudaPermute(Shape{3, 264, 520}, {0, 2, 1}, dtype, "tiled vectors");
    CheckCudaPermute(Shape{136, 200}, {1, 0}, dtype, "tiled vectors");
    CheckCudaPermute(Shape{512, 256, 256}, {1, 2, 0}, dtype, "tiled vectors");
    CheckCudaPermute(Shape{4, 1000, 400}, {0, 2, 1}, dtype, "tiled vectors");
    CheckCudaPermute(Shape{3, 260, 514}, {0, 2, 1}, dtype, "tiled pairs");
    CheckCudaPermute(Shape{300, 4098}, {1, 0}, dtype, "tiled pairs");
    CheckCudaPermute(Shape{301, 267}, {1, 0}, dtype, "tiled");  // odd sides: one a word
  }
  CheckCudaPermute(Shape{64, 129, 3, 33}, {3, 1, 0, 2}, DataType::kFloat32, "general");
}

// The path a swap of (rows, cols) in fresh (16-byte aligned) tensors takes when one side is
// short: 16-byte words where the long side divides into them; 16-bit sides over 64 that are
// multiples of 8 go to the 16-byte tiles instead.
std::string ShortSidePath(int64_t rows, int64_t cols, DataType dtype) {
  const int64_t bytes = static_cast<int64_t>(DataTypeSize(dtype));
  const int64_t side = std::min(rows, cols), long_side = std::max(rows, cols);
  if (bytes == 2 && side > 64 && rows % 8 == 0 && cols % 8 == 0) {
    return "tiled vectors";
  }
  return long_side % (16 / bytes) == 0 ? "short side vectors" : "short side";
}

// A short side (at most 128 elements of at most 512 bytes): a tile holds all of it. Rows or
// columns short, batched or not, long sides that do and do not divide into 16-byte words,
// several tiles with a partial last one, the limits on both sides of them, and the permutes a
// softmax over a non-last dim makes.
TEST_F(CudaPermuteTest, ShortSidesMoveWholeInATile) {
  for (DataType dtype : AllDataTypes()) {
    // The longest short side.
    const int64_t limit = std::min<int64_t>(128, 512 / static_cast<int64_t>(DataTypeSize(dtype)));
    for (int64_t side : {int64_t{2}, int64_t{3}, int64_t{8}, int64_t{64}, limit}) {
      for (int64_t long_side : {int64_t{4096}, int64_t{4099}, int64_t{1000}, int64_t{1001}}) {
        CheckCudaPermute(Shape{side, long_side}, {1, 0}, dtype,
                         ShortSidePath(side, long_side, dtype));
        CheckCudaPermute(Shape{long_side, side}, {1, 0}, dtype,
                         ShortSidePath(long_side, side, dtype));
      }
      CheckCudaPermute(Shape{5, side, 4099}, {0, 2, 1}, dtype, ShortSidePath(side, 4099, dtype));
      CheckCudaPermute(Shape{5, side, 1024}, {0, 2, 1}, dtype, ShortSidePath(side, 1024, dtype));
      CheckCudaPermute(Shape{3, 1001, side}, {0, 2, 1}, dtype, ShortSidePath(1001, side, dtype));
      CheckCudaPermute(Shape{3, 1000, side}, {0, 2, 1}, dtype, ShortSidePath(1000, side, dtype));
    }
    CheckCudaPermute(Shape{limit + 1, 1030}, {1, 0}, dtype, "tiled");
  }
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}) {
    const struct {
      Shape shape;
      std::vector<int64_t> perm;
      int64_t rows, cols;                                         // the swap it merges to
    } cases[] = {{Shape{8, 16, 64, 64}, {1, 2, 3, 0}, 8, 65536},  // softmax over dim 0
                 {Shape{16, 64, 64, 8}, {3, 0, 1, 2}, 65536, 8},  // and back
                 {Shape{8, 16, 64, 64}, {0, 2, 3, 1}, 16, 4096},  // dim 1
                 {Shape{100, 50, 40}, {1, 2, 0}, 100, 2000},
                 {Shape{128, 64, 1024}, {1, 2, 0}, 128, 65536},
                 {Shape{64, 1024, 128}, {2, 0, 1}, 65536, 128}};
    for (const auto& c : cases) {
      CheckCudaPermute(c.shape, c.perm, dtype, ShortSidePath(c.rows, c.cols, dtype));
    }
  }
}

// Pointers a few elements past an aligned address: the general, tiled and short-side paths fall
// back to narrower words (the path each reports, where given).
TEST_F(CudaPermuteTest, UnalignedPointersTakeNarrowerWords) {
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
    DataType dtype;
    size_t offset;     // elements past the allocation's start, on both sides
    std::string path;  // "" where not checked
  };
  const DataType f16 = DataType::kFloat16;
  const Case cases[] = {{Shape{4, 6, 8}, {1, 0, 2}, DataType::kFloat32, 1, ""},
                        {Shape{3, 5, 8}, {1, 0, 2}, f16, 1, ""},
                        {Shape{3, 2, 16}, {1, 0, 2}, DataType::kInt8, 1, ""},
                        {Shape{33, 65}, {1, 0}, DataType::kFloat32, 1, "short side"},
                        {Shape{33, 65}, {1, 0}, DataType::kUInt8, 1, "short side"},
                        {Shape{33, 64}, {1, 0}, DataType::kInt64, 1, "short side"},
                        {Shape{8, 1024}, {1, 0}, f16, 1, "short side"},
                        {Shape{1024, 8}, {1, 0}, DataType::kBFloat16, 1, "short side"},
                        {Shape{264, 520}, {1, 0}, f16, 1, "tiled"},
                        {Shape{264, 520}, {1, 0}, f16, 2, "tiled pairs"}};
  for (const Case& c : cases) {
    primitive::LaunchNotes notes;
    const std::string context =
        Describe(c.shape, c.perm, c.dtype) + " at offset " + std::to_string(c.offset);
    const size_t count = static_cast<size_t>(c.shape.elem_cnt());
    const size_t bytes = DataTypeSize(c.dtype) * c.offset;
    const Shape flat{static_cast<int64_t>(count + c.offset)};
    std::vector<double> x = DistinctValues(count + c.offset, c.dtype);
    const Tensor x_t = MakeTensor(x, flat, c.dtype, Device::Cuda(0));
    const Tensor y_t = MakeTensor(std::vector<double>(count + c.offset, Poison(c.dtype)), flat,
                                  c.dtype, Device::Cuda(0));
    auto permute =
        primitive::NewPrimitive<primitive::PermuteFactory>(DeviceType::kCUDA, c.dtype, 4);
    ASSERT_NE(permute, nullptr);
    ASSERT_TRUE(permute
                    ->Launch(CudaStream(), c.perm.size(), c.shape.dims().data(),
                             static_cast<const char*>(x_t.data()) + bytes, c.perm.data(),
                             static_cast<char*>(y_t.mut_data()) + bytes)
                    .ok())
        << context;
    ASSERT_TRUE(CudaStream()->Sync().ok());
    if (!c.path.empty()) {
      EXPECT_EQ(notes.Describe(*permute),
                std::string("cuda.permute<") + DataTypeName(c.dtype) + ">[" + c.path + "]")
          << context;
    }
    const std::vector<double> y = ToDoubles(y_t);
    for (size_t i = 0; i < c.offset; ++i) {
      EXPECT_EQ(y[i], Poison(c.dtype)) << context << ": wrote before its start";
    }
    x.erase(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(c.offset));
    ExpectSameElements(
        std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(c.offset), y.end()),
        ReferencePermute(x, c.shape, c.perm), context);
  }
}

TEST_F(CudaPermuteTest, FunctionalTransposeMatchesTheCpu) {
  const Shape shape{3, 33, 65};
  for (DataType dtype : AllDataTypes()) {
    const std::vector<double> x = DistinctValues(static_cast<size_t>(shape.elem_cnt()), dtype);
    const Tensor x_cpu = MakeTensor(x, shape, dtype);
    const Tensor x_cuda = MakeTensor(x, shape, dtype, Device::Cuda(0));
    for (const std::vector<int64_t>& perm :
         std::vector<std::vector<int64_t>>{{2, 0, 1}, {0, -1, 1}, {1, 0, 2}}) {
      DispatchTrace trace;
      const Tensor y_cuda = Unwrap(functional::Transpose(x_cuda, perm));
      const Tensor y_cpu = Unwrap(functional::Transpose(x_cpu, perm));
      EXPECT_EQ(y_cuda.device(), Device::Cuda(0));
      EXPECT_EQ(y_cuda.shape(), y_cpu.shape());
      ExpectSameElements(ToDoubles(y_cuda), ToDoubles(y_cpu), DataTypeName(dtype));
      ASSERT_FALSE(trace.records().empty());
      const DispatchRecord& record = trace.records().front();
      EXPECT_EQ(record.device, Device::Cuda(0));
      ASSERT_EQ(record.primitives.size(), 1u);
      EXPECT_EQ(record.primitives[0].rfind(std::string("cuda.permute<") + DataTypeName(dtype), 0),
                0u)
          << record.primitives[0];
    }
  }
}

// Softmax over a non-last dim is transpose, softmax, transpose back: all of it on the GPU.
TEST_F(CudaPermuteTest, NonLastDimSoftmaxRunsOnTheGpu) {
  if (primitive::NewPrimitive<primitive::SoftmaxFactory>(DeviceType::kCUDA, DataType::kFloat32) ==
      nullptr) {
    GTEST_SKIP() << "no CUDA softmax primitive built in yet";
  }
  const Shape shape{4, 37, 5, 3};
  const uint64_t seed = 2024;
  const std::vector<double> x = RandomValues(static_cast<size_t>(shape.elem_cnt()), seed);
  const Tensor x_cuda = MakeTensor(x, shape, DataType::kFloat32, Device::Cuda(0));
  for (int64_t dim : {0, 1, 2, -3}) {
    DispatchTrace trace;
    const Tensor y = Unwrap(functional::Softmax(x_cuda, dim));
    EXPECT_EQ(y.device(), Device::Cuda(0));
    const int64_t wrapped = dim < 0 ? dim + shape.rank() : dim;
    ExpectAllClose(ToDoubles(y),
                   ReferenceSoftmax(RoundTo(x, DataType::kFloat32), shape, wrapped, false),
                   SoftmaxTolerance(DataType::kFloat32),
                   "softmax dim " + std::to_string(dim) + " seed " + std::to_string(seed));
    EXPECT_GE(trace.records().size(), 3u) << "transpose, softmax, transpose back";
    for (const DispatchRecord& record : trace.records()) {
      EXPECT_EQ(record.device, Device::Cuda(0)) << record.kernel;
    }
  }
}

// Past 2^31 elements (one byte each): the tiled path's 64-bit batch offsets and the general
// kernel's 64-bit index arithmetic. About 4.4 GB of device memory per case.
TEST_F(CudaPermuteTest, LargeTensorsPast2e31Elements) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  auto permute =
      primitive::NewPrimitive<primitive::PermuteFactory>(DeviceType::kCUDA, DataType::kUInt8, 3);
  ASSERT_NE(permute, nullptr);
  auto value = [](int64_t a, int64_t b, int64_t c) {
    return static_cast<uint8_t>(a * 7 + b * 13 + c * 3 + (a ^ b ^ c));
  };
  struct Case {
    int64_t d0, d1, d2;
    std::vector<int64_t> perm;
    const char* path;
  };
  const Case cases[] = {{3, 27000, 27000, {0, 2, 1}, "tiled"},
                        {1300, 1300, 1300, {2, 1, 0}, "general"},
                        {1, 8, 270000000, {0, 2, 1}, "short side vectors"}};
  for (const Case& c : cases) {
    const int64_t count = c.d0 * c.d1 * c.d2;
    ASSERT_GT(count, int64_t{1} << 31);
    std::vector<uint8_t> host(static_cast<size_t>(count));
    for (int64_t a = 0, n = 0; a < c.d0; ++a) {
      for (int64_t b = 0; b < c.d1; ++b) {
        for (int64_t k = 0; k < c.d2; ++k) {
          host[static_cast<size_t>(n++)] = value(a, b, k);
        }
      }
    }
    const Shape shape{c.d0, c.d1, c.d2};
    const Tensor x = Unwrap(
        Tensor::FromHost(host.data(), host.size(), shape, DataType::kUInt8, Device::Cuda(0)));
    const Shape out_shape = PermutedShape(shape, c.perm);
    const Tensor y = Unwrap(Tensor::Empty(out_shape, DataType::kUInt8, Device::Cuda(0)));
    ASSERT_TRUE(
        permute->Launch(CudaStream(), 3, shape.dims().data(), x.data(), c.perm.data(), y.mut_data())
            .ok());
    EXPECT_EQ(notes.Describe(*permute), std::string("cuda.permute<uint8>[") + c.path + "]");
    ASSERT_TRUE(y.CopyToHost(host.data(), host.size()).ok());
    // Walk the output in order; idx[perm[i]] is the input coordinate of output axis i.
    int64_t misses = 0;
    int64_t idx[3] = {0, 0, 0};
    size_t n = 0;
    for (idx[c.perm[0]] = 0; idx[c.perm[0]] < out_shape[0]; ++idx[c.perm[0]]) {
      for (idx[c.perm[1]] = 0; idx[c.perm[1]] < out_shape[1]; ++idx[c.perm[1]]) {
        for (idx[c.perm[2]] = 0; idx[c.perm[2]] < out_shape[2]; ++idx[c.perm[2]]) {
          misses += host[n++] != value(idx[0], idx[1], idx[2]);
        }
      }
    }
    EXPECT_EQ(misses, 0) << c.path << " " << shape;
  }
}

}  // namespace
}  // namespace test
}  // namespace oflite
