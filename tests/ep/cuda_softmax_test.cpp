// CUDA softmax family: every implementation (warp, block smem, block uncached) forced in turn
// and checked against the double-precision reference, in all four dtypes, forward and
// backward; special values agree with the CPU; unaligned data takes the narrow path; a tensor
// of more than 2^31 elements is right. Skips itself where no GPU is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "ep/softmax_impl.h"
#include "oneflow_lite/primitive/memcpy.h"
#include "oneflow_lite/primitive/permute.h"
#include "oneflow_lite/primitive/softmax.h"
#include "ops/softmax_reference.h"
#include "tests/support/test_util.h"

#ifdef OFLITE_WITH_CUDA
#include "ep/cuda/cuda_device_properties.h"
#include "ep/cuda/grid_size.h"
#endif

namespace oflite {
namespace test {
namespace {

using ep::SoftmaxImpl;

class CudaSoftmaxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
  }
};

struct RunResult {
  std::vector<double> values;
  std::string launch;  // the primitive's launch description
};

// Runs a softmax-family call on cuda:0 and returns the result on the host with the launch
// description of its (last) softmax dispatch.
RunResult RunOnCuda(const std::vector<Tensor>& cpu_inputs, bool log, bool backward, int64_t dim) {
  std::vector<Tensor> inputs;
  for (const Tensor& t : cpu_inputs) {
    inputs.push_back(Unwrap(t.To(Device::Cuda(0))));
  }
  DispatchTrace trace;
  Tensor out;
  if (backward) {
    out = Unwrap(log ? functional::LogSoftmaxGrad(inputs[0], inputs[1], dim)
                     : functional::SoftmaxGrad(inputs[0], inputs[1], dim));
  } else {
    out =
        Unwrap(log ? functional::LogSoftmax(inputs[0], dim) : functional::Softmax(inputs[0], dim));
  }
  std::string launch;
  for (const DispatchRecord& r : trace.records()) {
    if (r.op_type != "transpose" && !r.primitives.empty()) {
      launch = r.primitives[0];
    }
  }
  return {ToDoubles(Unwrap(out.To(Device::Cpu()))), launch};
}

struct Shape2 {
  int64_t rows, cols;
};
// 3584 and 5120 columns: by default bfloat16 rows there convert their values in each pass (a
// block whose pack slots the row leaves 64 empty, a block of 160), 4096 keeps them as floats
// (KeepsFloats; ForcedPathsAreTheOnesThatRan checks which ran). 37 x 32 and 21 x 16 take warp
// rows interleaved over the groups of a warp (WarpRows): 37 x 32 in 16-bit types and 21 x 16 in
// float32 over more than one warp, the last one partly past the rows; 21 x 16 in 16-bit types
// within one warp whose second rows lie past them.
const Shape2 kShapes[] = {{1, 1},     {7, 31},    {64, 1024}, {3, 1025},  {4, 1032},  {4, 1001},
                          {5, 3001},  {5, 4096},  {3, 3584},  {2, 5120},  {3, 12345}, {3, 20000},
                          {2, 32768}, {2, 50000}, {3, 70000}, {1000, 3},  {5, 2},     {6, 513},
                          {2, 16001}, {37, 32},   {21, 16},   {2, 30001}, {7, 40001}};

// The path a forced implementation must take. Forward rows (the tests' tensors start aligned)
// are held in registers when forced, up to 1024 threads of 32 float32 or 64 16-bit values:
// float32 rows of any length from a pack less one (one more pack covers a row that starts
// mid-pack), 16-bit rows of any length (their head and tail elements held apart from the packs).
// By default, rows of whole packs from where that measured faster than the warp (float32 from
// 896 columns, 16-bit from 769) up to 32768 columns, where it measured faster than shared
// memory (half of each thread's values in shared memory past 16384 columns, for float32 only to
// 26624, past which a block is its SM's only one; 16-bit rows of 16385-20480 columns instead
// take blocks bounded to 32 registers); rows that start mid-pack from 513 columns
// (float32 from 300) to 16384, 16-bit ones to 32768. Other rows go to shared memory, cached
// as stored (2 bytes an element for 16-bit types), when the row (and dy's for backward) fits in
// the 227 KB a Hopper block may opt into, less a little for the block reductions; past that, to
// the uncached kernel.
// Thread-block clusters (compute capability 9.0 on): where the GPU has none, the cluster path
// falls back to the automatic choice.
bool GpuHasClusters() {
#ifdef OFLITE_WITH_CUDA
  return Unwrap(ep::GetCudaDeviceProperties(0))->compute_capability_major >= 9;
#else
  return false;
#endif
}

// Forced split rows take any shape but float64; a forced cluster any forward row up to 8 CTAs
// of 1024 threads of 8 packs, a forced cluster-smem any row up to 16 CTAs of the shared memory a
// block may have. (By default the split path takes none of these shapes, the register cluster
// none at all, cluster-smem the long rows below: LongAndFewRowsThroughTheDispatch.)
std::string ExpectedPath(SoftmaxImpl impl, DataType dtype, int64_t cols, bool log, bool backward) {
  if (dtype == DataType::kFloat64 || impl == SoftmaxImpl::kBlockUncached) {
    return "uncached";
  }
  const bool float32 = dtype == DataType::kFloat32;
  if (impl == SoftmaxImpl::kSplitRows) {
    return "split";
  }
  if (impl == SoftmaxImpl::kCluster) {
    if (!backward && GpuHasClusters() && cols <= 8 * 1024 * 8 * (float32 ? 4 : 8)) {
      return "cluster";
    }
    impl = SoftmaxImpl::kAuto;
  }
  // Up to 16 CTAs of 227 KB: every shape here; by default forward rows past 32768 columns,
  // backward float32 ones past 8192 and 16-bit ones from 2048 (the tests' shapes have too few
  // bytes for the split path and stay under the backward's 128 KB of slices)
  const int64_t auto_cluster_smem_min = !backward ? 32769 : float32 ? 8193 : 2048;
  if (GpuHasClusters() && (impl == SoftmaxImpl::kClusterSmem ||
                           (impl == SoftmaxImpl::kAuto && cols >= auto_cluster_smem_min))) {
    return "cluster-smem";
  }
  if (impl == SoftmaxImpl::kClusterSmem) {
    impl = SoftmaxImpl::kAuto;
  }
  const int64_t pack = float32 ? 4 : 8;
  const bool packed = cols % pack == 0;
  // float32 rows that start mid-pack need a pack less one columns at least (only the last
  // row's last pack may then reach past the tensor's end)
  const int64_t covered = packed ? cols : float32 ? cols + pack - 1 : cols / pack * pack;
  const bool register_fits = !backward && (packed || !float32 || cols >= pack - 1) &&
                             covered <= 1024 * (float32 ? 32 : 64);
  if (impl == SoftmaxImpl::kBlockRegister) {
    if (register_fits) {
      return "register";
    }
    impl = SoftmaxImpl::kAuto;  // a forced path the shape cannot take falls back
  }
  int64_t auto_min = float32 ? 896 : 769;
  int64_t auto_max = 32768;
  if (!packed) {
    auto_min = float32 ? 300 : 513;
    auto_max = float32 ? 16384 : 32768;  // 16-bit: to 32775, whose covered columns are 32768
  }
  if (impl == SoftmaxImpl::kAuto && register_fits && cols >= auto_min && cols <= auto_max) {
    return "register";
  }
  if ((impl == SoftmaxImpl::kAuto || impl == SoftmaxImpl::kWarp) && cols <= 1024) {
    return "warp";
  }
  const int64_t bytes_per_row = (cols + 16) * static_cast<int64_t>(DataTypeSize(dtype));
  const int64_t smem = bytes_per_row * (backward ? 2 : 1);
  return smem <= 227 * 1024 - 1024 ? "smem" : "uncached";
}

// Checks one call against the reference and that it ran on `path`.
void CheckShapeOnPath(SoftmaxImpl impl, DataType dtype, const Shape2& s, bool log, bool backward,
                      const std::string& path) {
  const Shape shape = {s.rows, s.cols};
  const size_t n = static_cast<size_t>(s.rows * s.cols);
  const uint64_t seed = static_cast<uint64_t>(s.rows * 131 + s.cols) + (log ? 7 : 0);
  std::string context = std::string(log ? "log_" : "") + "softmax" + (backward ? "_grad " : " ") +
                        DataTypeName(dtype) + " " + shape.ToString() + " seed " +
                        std::to_string(seed);
  ep::ScopedSoftmaxImpl forced(impl);
  if (!backward) {
    const std::vector<double> x = RoundTo(RandomValues(n, seed), dtype);
    const RunResult r = RunOnCuda({MakeTensor(x, shape, dtype)}, log, false, 1);
    ExpectAllClose(r.values, ReferenceSoftmax(x, shape, 1, log), SoftmaxTolerance(dtype),
                   context + " " + r.launch, SmallestNormal(dtype), SoftmaxScale(x, shape, 1, log));
    EXPECT_NE(r.launch.find("[" + path + " "), std::string::npos) << context << ": " << r.launch;
  } else {
    const std::vector<double> y =
        RoundTo(ReferenceSoftmax(RandomValues(n, seed), shape, 1, log), dtype);
    const std::vector<double> dy = RoundTo(RandomValues(n, seed + 1), dtype);
    const RunResult r =
        RunOnCuda({MakeTensor(y, shape, dtype), MakeTensor(dy, shape, dtype)}, log, true, 1);
    ExpectAllClose(r.values, ReferenceSoftmaxGrad(y, dy, shape, 1, log), SoftmaxTolerance(dtype),
                   context + " " + r.launch, SmallestNormal(dtype),
                   SoftmaxGradScale(y, dy, shape, 1, log));
    EXPECT_NE(r.launch.find("[" + path + " "), std::string::npos) << context << ": " << r.launch;
  }
}

void CheckShape(SoftmaxImpl impl, DataType dtype, const Shape2& s, bool log, bool backward) {
  CheckShapeOnPath(impl, dtype, s, log, backward, ExpectedPath(impl, dtype, s.cols, log, backward));
}

class CudaSoftmaxImplTest
    : public CudaSoftmaxTest,
      public ::testing::WithParamInterface<std::tuple<SoftmaxImpl, DataType>> {};

TEST_P(CudaSoftmaxImplTest, ForwardAndBackwardMatchTheReference) {
  const auto [impl, dtype] = GetParam();
  for (const Shape2& s : kShapes) {
    for (bool log : {false, true}) {
      for (bool backward : {false, true}) {
        CheckShape(impl, dtype, s, log, backward);
      }
    }
  }
}

std::string ImplName(SoftmaxImpl impl) {
  switch (impl) {
    case SoftmaxImpl::kWarp:
      return "warp";
    case SoftmaxImpl::kBlockRegister:
      return "register";
    case SoftmaxImpl::kBlockSmem:
      return "smem";
    case SoftmaxImpl::kBlockUncached:
      return "uncached";
    case SoftmaxImpl::kSplitRows:
      return "split";
    case SoftmaxImpl::kCluster:
      return "cluster";
    case SoftmaxImpl::kClusterSmem:
      return "cluster_smem";
    default:
      return "auto";
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryImplEveryDtype, CudaSoftmaxImplTest,
    ::testing::Combine(::testing::Values(SoftmaxImpl::kAuto, SoftmaxImpl::kWarp,
                                         SoftmaxImpl::kBlockRegister, SoftmaxImpl::kBlockSmem,
                                         SoftmaxImpl::kBlockUncached, SoftmaxImpl::kSplitRows,
                                         SoftmaxImpl::kCluster, SoftmaxImpl::kClusterSmem),
                       ::testing::Values(DataType::kFloat32, DataType::kFloat64, DataType::kFloat16,
                                         DataType::kBFloat16)),
    [](const auto& info) {
      return ImplName(std::get<0>(info.param)) + "_" + DataTypeName(std::get<1>(info.param));
    });

TEST_F(CudaSoftmaxTest, ForcedPathsAreTheOnesThatRan) {
  const Tensor x = MakeTensor(RandomValues(64 * 1024, 3), Shape{64, 1024}, DataType::kFloat32);
  const std::pair<SoftmaxImpl, std::string> cases[] = {
      {SoftmaxImpl::kAuto, "[register pack=4 block=128 cols/thread=8]"},
      {SoftmaxImpl::kWarp, "[warp pack=4"},
      {SoftmaxImpl::kBlockRegister, "[register pack=4"},
      {SoftmaxImpl::kBlockSmem, "[smem pack=4"},
      {SoftmaxImpl::kBlockUncached, "[uncached pack=4"},
      {SoftmaxImpl::kSplitRows, "[split pack=4 block=512 splits=1"},
      {SoftmaxImpl::kCluster, "[cluster pack=4 block=32 ctas=2 cols/thread=16]"},
      {SoftmaxImpl::kClusterSmem, "[cluster-smem pack=4 block=64 ctas=1]"}};
  for (const auto& [impl, expected] : cases) {
    ep::ScopedSoftmaxImpl forced(impl);
    const RunResult r = RunOnCuda({x}, false, false, 1);
    EXPECT_NE(r.launch.find(expected), std::string::npos) << r.launch;
  }
  // The default path by shape: shorter rows go to the warp kernel; rows too long for a warp to
  // registers where that measured faster, else to shared memory, then to the uncached kernel.
  struct DefaultCase {
    Shape shape;
    DataType dtype;
    uint64_t seed;
    std::string launch;
  };
  const DefaultCase defaults[] = {
      {{64, 800}, DataType::kFloat32, 3, "[warp pack=4"},
      {{3, 2048}, DataType::kFloat16, 4, "[register pack=8"},
      // float32 softmax from 8193 to 16384 columns: 16 values in blocks of up to 1024 threads
      {{2, 16384}, DataType::kFloat32, 4, "[register pack=4 block=1024 cols/thread=16]"},
      // from 16385 to 26624 float32 columns half of each thread's values wait in shared
      // memory; longer rows take a block of up to 1024 threads, its SM's only one
      {{2, 20000}, DataType::kFloat32, 4, "[register pack=4 block=320 cols/thread=64]"},
      {{2, 32768}, DataType::kFloat32, 4, "[register pack=4 block=1024 cols/thread=32 whole-sm]"},
      {{2, 26628}, DataType::kFloat32, 4, "[register pack=4 block=864 cols/thread=32 whole-sm]"},
      // float32 rows of whole packs of 896-1024 columns: 8 values a thread; a partial block
      // of the 16-value softmax plan (8193-16384 columns)
      {{3, 1000}, DataType::kFloat32, 4, "[register pack=4 block=128 cols/thread=8]"},
      {{2, 10000}, DataType::kFloat32, 4, "[register pack=4 block=640 cols/thread=16]"},
      // 16-bit rows that one warp of 32 values holds take the one-warp kernel: a row that starts
      // mid-pack (127 or 128 whole packs, its head and tail elements one a thread) and a row
      // of whole packs; rows with more packs: one warp of 40 values (the general kernel)
      {{3, 1025}, DataType::kFloat16, 4, "[register pack=8 block=32 cols/thread=32 one-warp]"},
      {{3, 1024}, DataType::kBFloat16, 4, "[register pack=8 block=32 cols/thread=32 one-warp]"},
      {{3, 1033}, DataType::kBFloat16, 4, "[register pack=8 block=32 cols/thread=40]"},
      // 16-bit rows of 4097-8192 columns: 32 values a thread; from 8193 on 64. bfloat16 blocks
      // of 32 values keep them as floats between the passes only where a block of 64 or 128
      // threads is (nearly) full (blocks of 32 take the one-warp kernel)
      {{2, 5120}, DataType::kFloat16, 4, "[register pack=8 block=160 cols/thread=32]"},
      {{2, 5120}, DataType::kBFloat16, 4, "[register pack=8 block=160 cols/thread=32]"},
      {{2, 4096}, DataType::kBFloat16, 4, "[register pack=8 block=128 cols/thread=32 floats-kept]"},
      {{2, 4000}, DataType::kBFloat16, 4, "[register pack=8 block=128 cols/thread=32 floats-kept]"},
      {{2, 3584}, DataType::kBFloat16, 4, "[register pack=8 block=128 cols/thread=32]"},
      {{2, 4096}, DataType::kFloat16, 4, "[register pack=8 block=128 cols/thread=32]"},
      {{2, 16384}, DataType::kBFloat16, 4, "[register pack=8 block=256 cols/thread=64]"},
      // past 16384 columns: 16-bit rows of whole packs of up to 640 threads of 32 values in
      // blocks bounded to 32 registers, then half in shared memory; 16-bit rows that start
      // mid-pack 64 values a thread
      {{2, 20000}, DataType::kBFloat16, 4, "[register pack=8 block=640 cols/thread=32 two-blocks]"},
      {{2, 20000}, DataType::kFloat16, 4, "[register pack=8 block=640 cols/thread=32 two-blocks]"},
      {{2, 20488}, DataType::kBFloat16, 4, "[register pack=8 block=192 cols/thread=128]"},
      {{3, 20001}, DataType::kBFloat16, 4, "[register pack=8 block=320 cols/thread=64]"},
      {{3, 32767}, DataType::kFloat16, 4, "[register pack=8 block=512 cols/thread=64]"},
      {{1, 100000},
       DataType::kFloat32,
       5,
       GpuHasClusters() ? "[cluster-smem pack=4 block=224 ctas=7]" : "[uncached"},  // 400 KB
      {{2, 3}, DataType::kFloat64, 6, "[uncached"}};
  for (const DefaultCase& c : defaults) {
    const Tensor t =
        MakeTensor(RandomValues(static_cast<size_t>(c.shape.elem_cnt()), c.seed), c.shape, c.dtype);
    const std::string launch = RunOnCuda({t}, false, false, 1).launch;
    EXPECT_NE(launch.find(c.launch), std::string::npos) << c.shape.ToString() << ": " << launch;
  }
}

#ifdef OFLITE_WITH_CUDA
// More rows than the grid has blocks: each block of the register path loops over rows and
// reuses its shared reduction slots (rows of 32 columns: blocks of 32 threads, the grid lowered
// to SMs x 64 x 32 waves, under 300k blocks on Hopper; by default a block takes one row). Every
// row is checked.
TEST_F(CudaSoftmaxTest, RegisterPathBlocksLoopOverMoreRowsThanTheGrid) {
  ep::ScopedSoftmaxImpl forced(SoftmaxImpl::kBlockRegister);
  const ep::CudaDeviceProperties* props = Unwrap(ep::GetCudaDeviceProperties(0));
  const ep::ScopedSoftmaxGridLimit limit(
      ep::GridSize(props->sm_count, props->max_threads_per_sm, 32, INT64_MAX));
  const Shape shape = {600000, 32};
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
    for (bool log : {false, true}) {
      const std::vector<double> x =
          RoundTo(RandomValues(static_cast<size_t>(shape.elem_cnt()), 77), dtype);
      const RunResult r = RunOnCuda({MakeTensor(x, shape, dtype)}, log, false, 1);
      ExpectAllClose(r.values, ReferenceSoftmax(x, shape, 1, log), SoftmaxTolerance(dtype),
                     std::string(DataTypeName(dtype)) + (log ? " log " : " ") + r.launch,
                     SmallestNormal(dtype), SoftmaxScale(x, shape, 1, log));
      EXPECT_NE(r.launch.find("[register "), std::string::npos) << r.launch;
    }
  }
  // A block that is its SM's only one (float32 rows past 26624 columns) looping over rows:
  // its totals, combined by a butterfly, reuse the same shared slots row after row. 26628 and
  // 30000 columns leave lanes of the butterfly without a warp (27 and 30 warps) and threads
  // without a last pack. 16-bit blocks bounded to 32 registers (kTwoBlocks) looping over
  // rows: 20000 columns leave the last threads of a block of 640 without their last packs.
  struct Looping {
    DataType dtype;
    int64_t rows, cols;
    uint64_t seed;
    const char* kernel;
  };
  const ep::ScopedSoftmaxGridLimit one_block(1);
  for (const Looping& c : {Looping{DataType::kFloat32, 3, 26628, 78, " whole-sm]"},
                           {DataType::kFloat32, 3, 30000, 78, " whole-sm]"},
                           {DataType::kFloat32, 3, 32768, 78, " whole-sm]"},
                           {DataType::kBFloat16, 5, 16392, 79, " two-blocks]"},
                           {DataType::kBFloat16, 5, 20000, 79, " two-blocks]"},
                           {DataType::kFloat16, 5, 20000, 79, " two-blocks]"}}) {
    const Shape wide = {c.rows, c.cols};
    for (bool log : {false, true}) {
      const std::vector<double> x =
          RoundTo(RandomValues(static_cast<size_t>(wide.elem_cnt()), c.seed), c.dtype);
      const RunResult r = RunOnCuda({MakeTensor(x, wide, c.dtype)}, log, false, 1);
      ExpectAllClose(r.values, ReferenceSoftmax(x, wide, 1, log), SoftmaxTolerance(c.dtype),
                     wide.ToString() + (log ? " log " : " ") + r.launch, SmallestNormal(c.dtype),
                     SoftmaxScale(x, wide, 1, log));
      EXPECT_NE(r.launch.find(c.kernel), std::string::npos) << r.launch;
    }
  }
}

// By default: a quarter as many rows as SMs or fewer, long and in a tensor of 2 MB or more,
// split over blocks (a row of 2^20 + 3 columns, odd lengths); long rows (forward past 32768
// columns) on clusters holding a row at a time in shared memory; of those few rows, forward those
// in slices of 64 KB whose split chunks would not fill the SMs or (16-bit) whose clusters take
// more CTAs than SMs, backward those where two slices of 32 KB hold a row or clusters take at
// most half the SMs. Where the GPU has no clusters: the split path or the block kernels.
TEST_F(CudaSoftmaxTest, LongAndFewRowsThroughTheDispatch) {
  const int64_t sms = Unwrap(ep::GetCudaDeviceProperties(0))->sm_count;
  struct Case {
    DataType dtype;
    Shape2 shape;
    std::string forward, backward, forward_without_clusters, backward_without_clusters;
  };
  const std::string cs = "cluster-smem";
  const Case cases[] = {
      {DataType::kFloat32, {1, (1 << 20) + 3}, "split", "split", "split", "split"},
      {DataType::kBFloat16, {1, (1 << 20) + 3}, "split", "split", "split", "split"},  // 16 x 128 KB
      // 10 x 60 KB; its split grid (92 chunks of 16384) would not fill 92 SMs or more
      {DataType::kFloat16, {5, 300001}, sms >= 92 ? cs : "split", "split", "split", "split"},
      {DataType::kFloat32, {sms / 4, 65536}, "split", cs, "split", "split"},
      // forward 16-bit slices of 64 KB on more CTAs than SMs: 8 a row
      {DataType::kBFloat16, {sms / 4, 262144}, cs, cs, "split", "split"},
      {DataType::kFloat32, {8, 524288}, "split", "split", "split", "split"},  // 128 x 128 KB
      {DataType::kBFloat16, {sms, 40001}, cs, cs, "smem", "smem"},
      {DataType::kBFloat16, {sms, 65536}, cs, cs, "smem", "uncached"},
      {DataType::kFloat32, {sms / 4 + 1, 65536}, cs, cs, "uncached", "uncached"},
      {DataType::kFloat16, {sms, 100003}, cs, cs, "smem", "uncached"},
      // 4 MB rows, past any cluster's 16 slices: split up to as many rows as SMs
      {DataType::kFloat32, {sms / 4 + 1, 1 << 20}, "split", "split", "split", "split"}};
  for (const Case& c : cases) {
    const bool clusters = GpuHasClusters();
    for (bool log : {false, true}) {
      for (bool backward : {false, true}) {
        const std::string& path = backward ? (clusters ? c.backward : c.backward_without_clusters)
                                           : (clusters ? c.forward : c.forward_without_clusters);
        CheckShapeOnPath(SoftmaxImpl::kAuto, c.dtype, c.shape, log, backward, path);
      }
    }
  }
}

// 16-bit chunks take the tensor as one flat range: a block's chunk may end in the next row (7
// rows of 40001 columns in chunks of 15560), and each row combines the partials of the blocks it
// spans. log_softmax forward and backward, against the reference (float32's flat split runs in
// LongAndFewRowsThroughTheDispatch's 4 MB rows).
TEST_F(CudaSoftmaxTest, FlatSplitChunksCrossRows) {
  ep::ScopedSoftmaxImpl forced(SoftmaxImpl::kSplitRows);
  const Shape shape = {7, 40001};
  for (DataType dtype : {DataType::kFloat16, DataType::kBFloat16}) {
    for (bool backward : {false, true}) {
      const std::vector<double> x =
          RoundTo(RandomValues(static_cast<size_t>(shape.elem_cnt()), 91), dtype);
      const std::vector<double> dy =
          RoundTo(RandomValues(static_cast<size_t>(shape.elem_cnt()), 92), dtype);
      const std::vector<double> y = RoundTo(ReferenceSoftmax(x, shape, 1, true), dtype);
      const RunResult r =
          backward ? RunOnCuda({MakeTensor(y, shape, dtype), MakeTensor(dy, shape, dtype)}, true,
                               true, 1)
                   : RunOnCuda({MakeTensor(x, shape, dtype)}, true, false, 1);
      const std::string context = std::string(DataTypeName(dtype)) + " " + r.launch;
      if (backward) {
        ExpectAllClose(r.values, ReferenceSoftmaxGrad(y, dy, shape, 1, true),
                       SoftmaxTolerance(dtype), context, SmallestNormal(dtype),
                       SoftmaxGradScale(y, dy, shape, 1, true));
      } else {
        ExpectAllClose(r.values, ReferenceSoftmax(x, shape, 1, true), SoftmaxTolerance(dtype),
                       context, SmallestNormal(dtype), SoftmaxScale(x, shape, 1, true));
      }
      EXPECT_NE(r.launch.find(" flat]"), std::string::npos) << context;
    }
  }
}

// The warp path's blocks looping over rows (a grid of 3 blocks) in each of its row layouts:
// two rows a group interleaved over the warp (float16 32 columns, float32 16), two neighbouring
// rows (float32 64), one row a warp (float32 1000). The last pass leaves warps without rows and
// groups with one.
TEST_F(CudaSoftmaxTest, WarpPathBlocksLoopOverMoreRowsThanTheGrid) {
  const ep::ScopedSoftmaxGridLimit three_blocks(3);
  const std::pair<DataType, Shape2> cases[] = {{DataType::kFloat16, {1000, 32}},
                                               {DataType::kFloat32, {1000, 16}},
                                               {DataType::kFloat32, {1000, 64}},
                                               {DataType::kFloat32, {999, 1000}}};
  for (const auto& [dtype, s] : cases) {
    for (bool log : {false, true}) {
      for (bool backward : {false, true}) {
        CheckShape(SoftmaxImpl::kWarp, dtype, s, log, backward);
      }
    }
  }
}
#endif  // OFLITE_WITH_CUDA

// The dynamic shared-memory limit is one value per kernel: sizes that shrink and grow again,
// and a size just under 48 KB with the block reductions' static memory on top, must all run.
TEST_F(CudaSoftmaxTest, SharedMemorySizesInAnyOrder) {
  ep::ScopedSoftmaxImpl forced(SoftmaxImpl::kBlockSmem);
  for (int64_t cols : {20000, 15000, 20000, 12280, 12290}) {
    const Shape shape = {2, cols};
    const std::vector<double> x = RoundTo(RandomValues(2 * cols, cols), DataType::kFloat32);
    const RunResult r = RunOnCuda({MakeTensor(x, shape, DataType::kFloat32)}, false, false, 1);
    ExpectAllClose(r.values, ReferenceSoftmax(x, shape, 1, false), 1e-5,
                   "cols " + std::to_string(cols) + " " + r.launch,
                   SmallestNormal(DataType::kFloat32));
    EXPECT_NE(r.launch.find("[smem "), std::string::npos) << r.launch;
  }
}

// Rows of 3 hold the specials in scalar accesses; rows of 24 put them inside packs; rows of
// 256 take the warp kernel's lanes of 8 values, whose float32 log_softmax sums plainly; rows of
// 1024 (whole packs) and 1025 (starting mid-pack) take the 16-bit one-warp register kernel.
std::vector<std::pair<Shape, std::vector<double>>> SpecialValueCases() {
  const double inf = INFINITY, nan = NAN;
  std::vector<std::pair<Shape, std::vector<double>>> cases = {
      {Shape{4, 3}, {1, inf, 2, -inf, -inf, -inf, 1, nan, 3, -inf, 0, 0}}};
  // 20000 columns: 16-bit rows forced onto the register path take the two-block kernel.
  // 40003 columns: several CTAs a row on the cluster-smem path (rows starting mid-pack), its
  // +inf and NaN in the last slice, slices of only -inf (row 3), and a slice of -inf but one
  // NaN (row 4).
  for (int64_t cols : {24, 256, 1024, 1025, 20000, 40003}) {
    const size_t n = static_cast<size_t>(cols);
    const bool slices = cols > 40000;
    std::vector<double> wide((slices ? 5 : 4) * n);
    for (size_t i = 0; i < wide.size(); ++i) {
      wide[i] = static_cast<double>(i % 7) - 3;
    }
    wide[slices ? n - 20 : 9] = inf;                              // row 0: +inf mid-pack
    wide[n + (slices ? n - 30 : 13)] = nan;                       // row 1: NaN mid-pack
    std::fill(wide.begin() + 2 * n, wide.begin() + 3 * n, -inf);  // row 2: only -inf
    const size_t prefix = slices ? n / 2 + 8 : 16;  // past the first 16-bit slice and its head
    std::fill(wide.begin() + 3 * n, wide.begin() + 3 * n + prefix, -inf);  // row 3: -inf first
    if (slices) {
      std::fill(wide.begin() + 4 * n, wide.begin() + 4 * n + prefix, -inf);
      wide[4 * n + 5] = nan;
    }
    cases.push_back({Shape{slices ? 5 : 4, cols}, wide});
  }
  return cases;
}

// 16-bit cluster-smem rows far from 0 and rows whose two slices' maxima differ (each slice sums
// against its own max, rescaled to the row's at the cluster barrier), against the reference.
TEST_F(CudaSoftmaxTest, ClusterSmemRowsOfSmallAndLargeMaxima) {
  if (!GpuHasClusters()) {
    GTEST_SKIP() << "the GPU has no thread-block clusters";
  }
  const Shape shape = {3, 40003};
  const int64_t cols = shape[1];
  const size_t n = static_cast<size_t>(shape.elem_cnt());
  // Rows of 40003 16-bit values take 2 CTAs of 2500 packs. CTA 0 holds the packs from the row's
  // first 16-byte boundary (`head` columns in) and the edge elements before and after them.
  const auto in_first_slice = [&](int64_t row, int64_t col) {
    const int64_t head = (8 - row * cols % 8) % 8;
    const int64_t packs = (cols - head) / 8;
    return col < head + std::min<int64_t>(packs, 2500) * 8 || col >= head + packs * 8;
  };
  struct Case {
    double first_lo, first_hi, rest_lo, rest_hi;
  };
  const Case cases[] = {{-8, 0, -8, 0},   {56, 64, 56, 64},       {56, 64, 62, 66},
                        {62, 66, 56, 64}, {900, 1000, 900, 1000}, {-1000, -900, -1000, -900}};
  ep::ScopedSoftmaxImpl forced(SoftmaxImpl::kClusterSmem);
  for (const Case& c : cases) {
    const std::vector<double> first = RandomValues(n, 17, c.first_lo, c.first_hi);
    const std::vector<double> rest = RandomValues(n, 18, c.rest_lo, c.rest_hi);
    std::vector<double> values(n);
    for (size_t i = 0; i < n; ++i) {
      const int64_t row = static_cast<int64_t>(i) / cols, col = static_cast<int64_t>(i) % cols;
      values[i] = in_first_slice(row, col) ? first[i] : rest[i];
    }
    for (DataType dtype : {DataType::kFloat16, DataType::kBFloat16}) {
      for (bool log : {false, true}) {
        const std::vector<double> x = RoundTo(values, dtype);
        const RunResult r = RunOnCuda({MakeTensor(x, shape, dtype)}, log, false, 1);
        const std::string context =
            std::string(log ? "log_softmax " : "softmax ") + DataTypeName(dtype) + " in [" +
            std::to_string(c.first_lo) + ", " + std::to_string(c.first_hi) + "] then [" +
            std::to_string(c.rest_lo) + ", " + std::to_string(c.rest_hi) + "] " + r.launch;
        ExpectAllClose(r.values, ReferenceSoftmax(x, shape, 1, log), SoftmaxTolerance(dtype),
                       context, SmallestNormal(dtype), SoftmaxScale(x, shape, 1, log));
        EXPECT_NE(r.launch.find("[cluster-smem pack=8 block=160 ctas=2]"), std::string::npos)
            << context;
      }
    }
  }
}

// The cluster-smem kernels' clusters loop over rows, loading a row's slices while they write
// the previous row: forward and backward with the grid cut to a few clusters, whatever the
// dtype. Rows of 40005 and 40965 columns (1 past a multiple of 4) start at every offset from a
// 16-byte boundary, so a CTA's packs differ by one from row to row in every dtype (40003: in
// 16-bit types only); the rows do not divide evenly among the clusters.
TEST_F(CudaSoftmaxTest, ClusterSmemClustersLoopOverRows) {
  if (!GpuHasClusters()) {
    GTEST_SKIP() << "the GPU has no thread-block clusters";
  }
  struct Case {
    Shape2 shape;
    int64_t grid_limit;  // CTAs
  };
  // CTAs a row, forward float32 / 16-bit 3 / 2, backward 5 / 3 (40965 columns: 6 / 3); a limit
  // below a cluster keeps one.
  const Case cases[] = {
      {{7, 40005}, 5}, {{9, 40003}, 10}, {{5, 40965}, 6}, {{10, 40005}, 6}, {{4, 40965}, 1}};
  for (const Case& c : cases) {
    const ep::ScopedSoftmaxGridLimit limit(c.grid_limit);
    for (DataType dtype : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}) {
      for (bool log : {false, true}) {
        for (bool backward : {false, true}) {
          SCOPED_TRACE("grid limit " + std::to_string(c.grid_limit));
          CheckShapeOnPath(SoftmaxImpl::kClusterSmem, dtype, c.shape, log, backward,
                           "cluster-smem");
        }
      }
    }
  }
}

// Forward rows past 8 slices of 64 KB whose clusters fill the device take fewer, wider slices
// (two CTAs an SM): 151936 float32 columns on 6 CTAs, not 10.
TEST_F(CudaSoftmaxTest, ClusterSmemWideSlicesKeepRowsOnEightCtasOrFewer) {
  if (!GpuHasClusters()) {
    GTEST_SKIP() << "the GPU has no thread-block clusters";
  }
  const Shape shape = {34, 151936};
  const std::vector<double> x = RandomValues(static_cast<size_t>(shape.elem_cnt()), 17);
  for (bool log : {false, true}) {
    const RunResult r = RunOnCuda({MakeTensor(x, shape, DataType::kFloat32)}, log, false, 1);
    ExpectAllClose(r.values, ReferenceSoftmax(x, shape, 1, log),
                   SoftmaxTolerance(DataType::kFloat32), r.launch,
                   SmallestNormal(DataType::kFloat32), SoftmaxScale(x, shape, 1, log));
    EXPECT_NE(r.launch.find("[cluster-smem pack=4 block=416 ctas=6]"), std::string::npos)
        << r.launch;
  }
}

// By default the backward's and 16-bit forward rows take as many clusters as the device holds,
// fewer than these rows (a row of 65539 bfloat16 values takes 2 CTAs of 64 KB forward, 4 of two
// 32 KB slices backward), and each cluster loops over rows.
TEST_F(CudaSoftmaxTest, ClusterSmemClustersLoopAtTheDevicesCount) {
  if (!GpuHasClusters()) {
    GTEST_SKIP() << "the GPU has no thread-block clusters";
  }
  const Shape2 shape = {400, 65539};
  for (bool log : {false, true}) {
    for (bool backward : {false, true}) {
      CheckShapeOnPath(SoftmaxImpl::kAuto, DataType::kBFloat16, shape, log, backward,
                       "cluster-smem");
    }
  }
  const Shape s = {shape.rows, shape.cols};
  const Tensor x =
      MakeTensor(RandomValues(static_cast<size_t>(s.elem_cnt()), 5), s, DataType::kBFloat16);
  for (bool backward : {false, true}) {
    const std::vector<Tensor> inputs =
        backward ? std::vector<Tensor>{x, x} : std::vector<Tensor>{x};
    const RunResult r = RunOnCuda(inputs, false, backward, 1);
    EXPECT_NE(r.launch.find(" looped]"), std::string::npos) << r.launch;
  }
}

TEST_F(CudaSoftmaxTest, SpecialValuesAgreeWithTheCpu) {
  for (const auto& [shape, row_values] : SpecialValueCases()) {
    for (SoftmaxImpl impl :
         {SoftmaxImpl::kWarp, SoftmaxImpl::kBlockRegister, SoftmaxImpl::kBlockSmem,
          SoftmaxImpl::kBlockUncached, SoftmaxImpl::kSplitRows, SoftmaxImpl::kCluster,
          SoftmaxImpl::kClusterSmem}) {
      ep::ScopedSoftmaxImpl forced(impl);
      for (DataType dtype : FloatingDataTypes()) {
        for (bool log : {false, true}) {
          const Tensor x = MakeTensor(row_values, shape, dtype);
          const std::vector<double> cpu =
              ToDoubles(Unwrap(log ? functional::LogSoftmax(x, 1) : functional::Softmax(x, 1)));
          const RunResult cuda = RunOnCuda({x}, log, false, 1);
          for (size_t i = 0; i < cpu.size(); ++i) {
            if (std::isnan(cpu[i])) {
              EXPECT_TRUE(std::isnan(cuda.values[i])) << i << " " << cuda.launch;
            } else if (std::isinf(cpu[i])) {  // log_softmax of a -inf among finite values
              EXPECT_EQ(cuda.values[i], cpu[i]) << i << " " << cuda.launch;
            } else {
              EXPECT_NEAR(cuda.values[i], cpu[i], 1e-3) << i << " " << cuda.launch;
            }
          }
        }
      }
    }
  }
}

#ifdef OFLITE_WITH_CUDA
// Chunks too long to hold fold their loaded packs a group at once (AccumulatePackGroup): +inf,
// NaN, rows of only -inf and rows that start with a run of -inf, in float32 rows of 2^20 (the
// split path, chunks not held) and float16 ones (forced: the dispatch takes them to the cluster),
// against the double reference.
TEST_F(CudaSoftmaxTest, SplitPackGroupsKeepSpecialValues) {
  ep::ScopedSoftmaxImpl forced(SoftmaxImpl::kSplitRows);
  const double inf = INFINITY, nan = NAN;
  const int64_t cols = int64_t{1} << 20;
  const int64_t rows = Unwrap(ep::GetCudaDeviceProperties(0))->sm_count / 4 + 1;
  std::vector<double> x(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<double>(i % 7) - 3;
  }
  x[static_cast<size_t>(cols / 2 + 3)] = inf;                                  // row 0
  x[static_cast<size_t>(cols + cols / 3)] = nan;                               // row 1
  std::fill(x.begin() + 2 * cols, x.begin() + 3 * cols, -inf);                 // row 2
  std::fill(x.begin() + 3 * cols, x.begin() + 3 * cols + cols / 2 + 5, -inf);  // row 3
  const Shape shape = {rows, cols};
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
    for (bool log : {false, true}) {
      const RunResult r = RunOnCuda({MakeTensor(x, shape, dtype)}, log, false, 1);
      ASSERT_NE(r.launch.find("[split "), std::string::npos) << r.launch;
      ASSERT_EQ(r.launch.find(" held"), std::string::npos) << r.launch;
      // 16-byte packs, so that the body takes the grouped fold
      ASSERT_NE(r.launch.find(dtype == DataType::kFloat32 ? " pack=4 " : " pack=8 "),
                std::string::npos)
          << r.launch;
      ExpectAllClose(r.values, ReferenceSoftmax(x, shape, 1, log), SoftmaxTolerance(dtype),
                     std::string(DataTypeName(dtype)) + (log ? " log " : " ") + r.launch,
                     SmallestNormal(dtype), SoftmaxScale(x, shape, 1, log));
    }
  }
}
#endif  // OFLITE_WITH_CUDA

// Outputs below float's smallest normal (exp(-88) and less) are still representable in float32
// and bfloat16 (down to 2^-133): the 16-bit kernels' bare hardware exp2 flushes there, so they
// compute softmax scaled by 2^64; a flushed output would be 0 and miss its value here. Rows of 8
// and of 1024 (one max, the rest tiny or small, so the sum stays near 1; bfloat16 takes the
// one-warp kernel there).
TEST_F(CudaSoftmaxTest, OutputsBelowFloatsNormalRangeAreNotFlushed) {
  const std::vector<double> tiny = {-88, -89, -90, -91, -92, -60};
  for (size_t cols : {8, 1024}) {
    std::vector<double> row = {0};
    for (size_t c = 1; c < cols; ++c) {
      row.push_back(cols == 8 && c == cols - 1 ? -1 : tiny[(c - 1) % tiny.size()]);
    }
    std::vector<double> values;
    for (size_t r = 0; r < 3; ++r) {  // each row rotated, so the tiny values sit in every lane
      for (size_t c = 0; c < cols; ++c) {
        values.push_back(row[(c + r * 3) % cols]);
      }
    }
    const Shape shape = {3, static_cast<int64_t>(cols)};
    for (SoftmaxImpl impl :
         {SoftmaxImpl::kWarp, SoftmaxImpl::kBlockRegister, SoftmaxImpl::kBlockSmem,
          SoftmaxImpl::kBlockUncached, SoftmaxImpl::kSplitRows, SoftmaxImpl::kCluster,
          SoftmaxImpl::kClusterSmem}) {
      ep::ScopedSoftmaxImpl forced(impl);
      for (DataType dtype : {DataType::kFloat32, DataType::kBFloat16}) {
        const RunResult r = RunOnCuda({MakeTensor(values, shape, dtype)}, false, false, 1);
        ExpectAllClose(r.values, ReferenceSoftmax(values, shape, 1, false), SoftmaxTolerance(dtype),
                       std::string(DataTypeName(dtype)) + " " + r.launch, SmallestNormal(dtype));
        EXPECT_GT(*std::min_element(r.values.begin(), r.values.end()), 0) << r.launch;
      }
    }
  }
}

// float32 takes exp as the hardware exp2 of d * log2(e), whose relative error grows with |d| =
// max - x (see ExpFor): rows that span 70 keep every output, the smallest near 1e-33, within
// float32's 1e-5 (docs/TESTING.md) on every path and every default plan (warp, 8, 16 and 32 values,
// 32 + 32 with shared memory, a whole-SM block, rows that start mid-pack).
TEST_F(CudaSoftmaxTest, Float32ExpHoldsItsToleranceOnWideRows) {
  for (const Shape2& s : {Shape2{7, 31}, Shape2{64, 1024}, Shape2{3, 1025}, Shape2{2, 4096},
                          Shape2{2, 16384}, Shape2{2, 20000}, Shape2{2, 32768}}) {
    const Shape shape = {s.rows, s.cols};
    const std::vector<double> x = RoundTo(
        RandomValues(static_cast<size_t>(s.rows * s.cols), s.cols, -35, 35), DataType::kFloat32);
    for (SoftmaxImpl impl :
         {SoftmaxImpl::kAuto, SoftmaxImpl::kWarp, SoftmaxImpl::kBlockRegister,
          SoftmaxImpl::kBlockSmem, SoftmaxImpl::kBlockUncached, SoftmaxImpl::kSplitRows,
          SoftmaxImpl::kCluster, SoftmaxImpl::kClusterSmem}) {
      ep::ScopedSoftmaxImpl forced(impl);
      for (bool log : {false, true}) {
        const RunResult r = RunOnCuda({MakeTensor(x, shape, DataType::kFloat32)}, log, false, 1);
        ExpectAllClose(r.values, ReferenceSoftmax(x, shape, 1, log),
                       SoftmaxTolerance(DataType::kFloat32),
                       shape.ToString() + (log ? " log " : " ") + r.launch);
      }
    }
  }
}

// A row with one dominant value: its log_softmax output is -log(sum) with the sum just above 1
// (1 + 1.1e-6 at 1024 columns), which a plain float sum would round to a relative error of
// several percent. The warp kernel's lanes of 8 values or more sum plainly and recount rows
// whose sum is below 4 with their maxima counted apart; the other kernels count them apart
// always. Rows cycle through one dominant value (recounted), three equal maxima (sum just above
// 3: recounted), five (just above 5: the plain sum) and spread values, on every path and the
// default plans of warp lanes of 4, 8 and (forced) 32 values, and register blocks of 8, 16
// (also mid-pack), 32, 32 + 32 and whole-SM. The maxima move along the rows, so the uncached
// kernel's running sum also meets them after a smaller running max.
TEST_F(CudaSoftmaxTest, LogSoftmaxOfADominantValueKeepsFloatPrecision) {
  for (int64_t cols : {8, 256, 1024, 1025, 3000, 4096, 20000, 30000}) {
    const int64_t rows = 8;
    std::vector<double> values(static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t maxima = r % 4 == 0 ? 1 : r % 4 == 1 ? 3 : r % 4 == 2 ? 5 : 0;
      const int64_t first = (r * cols) / rows + r;
      for (int64_t c = 0; c < cols; ++c) {
        const bool at_max = ((c - first) % cols + cols) % cols < maxima;
        values[static_cast<size_t>(r * cols + c)] =
            maxima == 0 ? -static_cast<double>(c % 13) / 4
                        : (at_max ? 0.0 : -20.0 - static_cast<double>(c % 7) / 4);
      }
    }
    const Shape shape = {rows, cols};
    for (SoftmaxImpl impl :
         {SoftmaxImpl::kAuto, SoftmaxImpl::kWarp, SoftmaxImpl::kBlockRegister,
          SoftmaxImpl::kBlockSmem, SoftmaxImpl::kBlockUncached, SoftmaxImpl::kSplitRows,
          SoftmaxImpl::kCluster, SoftmaxImpl::kClusterSmem}) {
      ep::ScopedSoftmaxImpl forced(impl);
      const RunResult r =
          RunOnCuda({MakeTensor(values, shape, DataType::kFloat32)}, true, false, 1);
      ExpectAllClose(r.values, ReferenceSoftmax(values, shape, 1, true),
                     SoftmaxTolerance(DataType::kFloat32), r.launch);
      if (impl == SoftmaxImpl::kWarp && (cols == 256 || cols == 1024)) {  // the plain sum's lanes
        EXPECT_NE(r.launch.find(cols == 256 ? "cols/thread=8 " : "cols/thread=32 "),
                  std::string::npos)
            << r.launch;
      }
    }
  }
}

// Rows that start or end mid-pack on the register path (float32: edge packs shared with the
// neighbouring rows; 16-bit: head and tail elements held apart from the whole packs): every
// element is written, and nothing past the tensor's end, where the last row ends mid-pack (the
// guard after y keeps its NaN).
// The split and cluster paths too (their chunks and CTA slices end mid-pack as well).
TEST_F(CudaSoftmaxTest, RowsThatEndMidPackWriteNothingPastTheTensor) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  constexpr int64_t kGuard = 16;
  const Shape2 shapes[] = {{5, 1025}, {9, 1001}, {4, 1033}, {7, 13}, {3, 5}, {2, 3}, {3, 20001}};
  ep::Stream* stream = Unwrap(ep::GetDevice(Device::Cuda(0)))->default_stream();
  for (const auto& [impl, path] : {std::make_pair(SoftmaxImpl::kBlockRegister, "[register "),
                                   std::make_pair(SoftmaxImpl::kSplitRows, "[split "),
                                   std::make_pair(SoftmaxImpl::kCluster, "[cluster "),
                                   std::make_pair(SoftmaxImpl::kClusterSmem, "[cluster-smem ")}) {
    ep::ScopedSoftmaxImpl forced(impl);
    for (DataType dtype : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}) {
      for (const Shape2& s : shapes) {
        const Shape shape = {s.rows, s.cols};
        const int64_t n = shape.elem_cnt();
        const std::vector<double> x = RoundTo(RandomValues(static_cast<size_t>(n), n), dtype);
        const Tensor xd = Unwrap(MakeTensor(x, shape, dtype).To(Device::Cuda(0)));
        const Tensor yd = Unwrap(Tensor::Full(Shape{n + kGuard}, NAN, dtype, Device::Cuda(0)));
        auto softmax = primitive::NewPrimitive<primitive::SoftmaxFactory>(DeviceType::kCUDA, dtype);
        ASSERT_NE(softmax, nullptr);
        ASSERT_TRUE(softmax
                        ->Launch(stream, static_cast<size_t>(s.rows), static_cast<size_t>(s.cols),
                                 xd.data(), yd.mut_data())
                        .ok());
        const std::string context = std::string(DataTypeName(dtype)) + " " + shape.ToString() +
                                    " " + notes.Describe(*softmax);
        EXPECT_NE(context.find(path), std::string::npos) << context;
        const std::vector<double> y = ToDoubles(Unwrap(yd.To(Device::Cpu())));
        ExpectAllClose(std::vector<double>(y.begin(), y.begin() + n),
                       ReferenceSoftmax(x, shape, 1, false), SoftmaxTolerance(dtype), context,
                       SmallestNormal(dtype));
        for (int64_t i = n; i < n + kGuard; ++i) {
          EXPECT_TRUE(std::isnan(y[static_cast<size_t>(i)]))
              << context << ": wrote guard " << i - n;
        }
      }
    }
  }
}

TEST_F(CudaSoftmaxTest, UnalignedDataTakesTheNarrowPathAndIsRight) {
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
    for (int64_t cols : {64, 1000, 2048}) {
      const int64_t rows = 9;
      const Shape shape = {rows, cols};
      const std::vector<double> x = RoundTo(RandomValues(rows * cols, cols), dtype);
      // Place x one element past a 16-byte boundary on the device (block keeps it alive).
      const size_t esize = DataTypeSize(dtype);
      const Tensor block = Unwrap(Tensor::Empty(Shape{rows * cols + 8}, dtype, Device::Cuda(0)));
      const Tensor xu = Unwrap(Tensor::FromStorage(
          std::make_shared<Storage>(nullptr, static_cast<char*>(block.mut_data()) + esize,
                                    static_cast<size_t>(rows * cols) * esize, Device::Cuda(0)),
          shape, dtype));
      const Tensor host = MakeTensor(x, shape, dtype);
      std::vector<char> bytes(host.nbytes());
      ASSERT_TRUE(host.CopyToHost(bytes.data(), bytes.size()).ok());
      auto memcpy = primitive::NewPrimitive<primitive::MemcpyFactory>(
          DeviceType::kCUDA, primitive::MemcpyKind::kHostToDevice);
      ASSERT_NE(memcpy, nullptr);
      ep::Stream* stream = Unwrap(ep::GetDevice(Device::Cuda(0)))->default_stream();
      ASSERT_TRUE(memcpy->Launch(stream, xu.mut_data(), bytes.data(), bytes.size()).ok());
      ASSERT_TRUE(stream->Sync().ok());
      DispatchTrace trace;
      const Tensor y = Unwrap(functional::Softmax(xu, 1));
      ExpectAllClose(
          ToDoubles(Unwrap(y.To(Device::Cpu()))), ReferenceSoftmax(x, shape, 1, false),
          SoftmaxTolerance(dtype),
          std::string("unaligned ") + DataTypeName(dtype) + " cols " + std::to_string(cols),
          SmallestNormal(dtype));
      ASSERT_EQ(trace.records().size(), 1u);
      const std::string launch = trace.records()[0].primitives[0];
      if (cols <= 1024) {
        EXPECT_NE(launch.find("warp pack=1"), std::string::npos) << launch;
      } else {  // the register path needs aligned packs: shared memory takes the row
        EXPECT_NE(launch.find("[smem "), std::string::npos) << launch;
      }
      // Split rows load element by element when x and y lie differently against 16 bytes.
      const ep::ScopedSoftmaxImpl split(SoftmaxImpl::kSplitRows);
      DispatchTrace split_trace;
      const Tensor ys = Unwrap(functional::LogSoftmax(xu, 1));
      ExpectAllClose(
          ToDoubles(Unwrap(ys.To(Device::Cpu()))), ReferenceSoftmax(x, shape, 1, true),
          SoftmaxTolerance(dtype),
          std::string("unaligned split ") + DataTypeName(dtype) + " cols " + std::to_string(cols),
          SmallestNormal(dtype), SoftmaxScale(x, shape, 1, true));
      EXPECT_NE(split_trace.records()[0].primitives[0].find("[split pack=1 "), std::string::npos)
          << split_trace.records()[0].primitives[0];
    }
  }
}

TEST_F(CudaSoftmaxTest, NonLastDimsOf3dAnd4dTensors) {
  if (primitive::NewPrimitive<primitive::PermuteFactory>(DeviceType::kCUDA, DataType::kFloat32,
                                                         4) == nullptr) {
    GTEST_SKIP() << "no CUDA permute primitive";
  }
  for (const Shape& shape : {Shape{4, 33, 7}, Shape{3, 5, 2, 1100}}) {
    for (int64_t dim = 0; dim < shape.rank(); ++dim) {
      for (DataType dtype : FloatingDataTypes()) {
        const std::vector<double> x =
            RoundTo(RandomValues(static_cast<size_t>(shape.elem_cnt()), dim + 40), dtype);
        const RunResult r = RunOnCuda({MakeTensor(x, shape, dtype)}, true, false, dim);
        ExpectAllClose(r.values, ReferenceSoftmax(x, shape, dim, true), SoftmaxTolerance(dtype),
                       std::string("log_softmax ") + DataTypeName(dtype) + " " + shape.ToString() +
                           " dim " + std::to_string(dim),
                       SmallestNormal(dtype), SoftmaxScale(x, shape, dim, true));
      }
    }
  }
}

// Test data from an element index: a 64-bit mix, so that neither a row nor the rows repeat
// (a multiplicative hash modulo a power of two repeats with that period).
uint64_t Mix(uint64_t i) {
  i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
  i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
  return i ^ (i >> 31);
}

// float16 multiples of 1/1024 in [-4, 4) from each element's index.
std::vector<float16> MixedHalfValues(size_t n) {
  std::vector<float16> host(n);
  for (size_t i = 0; i < n; ++i) {
    host[i] = float16(static_cast<float>(Mix(i) % 8192) / 1024.0f - 4.0f);
  }
  return host;
}

// Softmax over the last dim of `host` on cuda:0, checked to have run on `path`.
Tensor LargeSoftmaxOnPath(const std::vector<float16>& host, const Shape& shape,
                          const std::string& path) {
  const Tensor x = Unwrap(
      Tensor::FromHost(host.data(), host.size() * 2, shape, DataType::kFloat16, Device::Cuda(0)));
  DispatchTrace trace;
  const Tensor y = Unwrap(functional::Softmax(x, 1));
  EXPECT_EQ(trace.records().size(), 1u);
  if (!trace.records().empty()) {
    EXPECT_NE(trace.records()[0].primitives[0].find(path), std::string::npos)
        << trace.records()[0].primitives[0];
  }
  return y;
}

// More than 2^31 elements: 64-bit indexing, on the shared-memory path (rows of 1025, forced)
// and the register path (rows of 1024, and of 1025, which start mid-pack). Large (4.3 GB of
// float16 each way): runs only with OFLITE_LARGE_TESTS=1.
TEST_F(CudaSoftmaxTest, LargeTensorBeyondTwoToThe31Elements) {
  if (std::getenv("OFLITE_LARGE_TESTS") == nullptr) {
    GTEST_SKIP() << "set OFLITE_LARGE_TESTS=1";
  }
  struct Case {
    int64_t cols;
    SoftmaxImpl impl;
    std::string path;
  };
  for (const Case& c :
       {Case{1025, SoftmaxImpl::kBlockSmem, "[smem "}, Case{1025, SoftmaxImpl::kAuto, "[register "},
        Case{1024, SoftmaxImpl::kAuto, "[register "}}) {
    const int64_t cols = c.cols;
    const std::string& path = c.path;
    ep::ScopedSoftmaxImpl forced(c.impl);
    const int64_t rows = (int64_t{1} << 21) + 3;  // over 2^31 elements either way
    const Shape shape = {rows, cols};
    const std::vector<float16> host = MixedHalfValues(static_cast<size_t>(rows * cols));
    const Tensor y = LargeSoftmaxOnPath(host, shape, path);
    std::vector<float16> out(host.size());
    ASSERT_TRUE(y.CopyToHost(out.data(), out.size() * 2).ok());
    for (int64_t row : {int64_t{0}, rows / 2, rows - 1}) {  // the last row lies past 2^31
      std::vector<double> xr, yr;
      for (int64_t c = 0; c < cols; ++c) {
        xr.push_back(host[static_cast<size_t>(row * cols + c)]);
        yr.push_back(out[static_cast<size_t>(row * cols + c)]);
      }
      ExpectAllClose(yr, ReferenceSoftmax(xr, Shape{1, cols}, 1, false), 1e-3,
                     "large row " + std::to_string(row) + " of " + std::to_string(cols),
                     SmallestNormal(DataType::kFloat16));
    }
  }
}

// More than 2^31 elements on the split path (one row of 2^31 + 5 float16 columns) and the
// cluster-smem path (32769 rows of 65536): each checked row's max and sum in double, and its
// outputs at about 4096 columns against exp(x - max) / sum. Large (4.3 GB each way): runs only with
// OFLITE_LARGE_TESTS=1.
TEST_F(CudaSoftmaxTest, LargeSplitAndClusterRowsBeyondTwoToThe31Elements) {
  if (std::getenv("OFLITE_LARGE_TESTS") == nullptr) {
    GTEST_SKIP() << "set OFLITE_LARGE_TESTS=1";
  }
  struct Case {
    int64_t rows, cols;
    std::string path;
  };
  for (const Case& c :
       {Case{1, (int64_t{1} << 31) + 5, "[split "}, Case{32769, 65536, "[cluster-smem "}}) {
    if (c.path == "[cluster-smem " && !GpuHasClusters()) {
      continue;
    }
    const Shape shape = {c.rows, c.cols};
    const std::vector<float16> host = MixedHalfValues(static_cast<size_t>(c.rows * c.cols));
    const Tensor y = LargeSoftmaxOnPath(host, shape, c.path);
    std::vector<float16> out(host.size());
    ASSERT_TRUE(y.CopyToHost(out.data(), out.size() * 2).ok());
    for (int64_t row : {int64_t{0}, c.rows / 2, c.rows - 1}) {
      const size_t base = static_cast<size_t>(row * c.cols);
      double max = -INFINITY, sum = 0;
      for (int64_t col = 0; col < c.cols; ++col) {
        max = std::max(max, static_cast<double>(host[base + static_cast<size_t>(col)]));
      }
      for (int64_t col = 0; col < c.cols; ++col) {
        sum += std::exp(static_cast<double>(host[base + static_cast<size_t>(col)]) - max);
      }
      std::vector<double> got, want;
      const int64_t step = std::max<int64_t>(1, c.cols / 4096);
      std::vector<int64_t> checked;
      for (int64_t col = 0; col < c.cols; col += step) {
        checked.push_back(col);
      }
      checked.push_back(c.cols - 1);
      for (int64_t col : checked) {
        const size_t i = base + static_cast<size_t>(col);
        got.push_back(out[i]);
        want.push_back(std::exp(static_cast<double>(host[i]) - max) / sum);
      }
      ExpectAllClose(got, want, 1e-3, c.path + "row " + std::to_string(row),
                     SmallestNormal(DataType::kFloat16));
    }
  }
}

// softmax_grad over more than 2^31 elements on the cluster-smem path (rows of 65536 float16 in
// clusters of 4 CTAs, y's and dy's slices in shared memory): 64-bit offsets of y, dy and dx.
// y holds small positive values (a row sums to about 37); rows first, middle and last (past 2^31)
// are compared with the reference. Large (4.3 GB a tensor, three of them): runs only with
// OFLITE_LARGE_TESTS=1.
TEST_F(CudaSoftmaxTest, LargeClusterSmemBackwardBeyondTwoToThe31Elements) {
  if (std::getenv("OFLITE_LARGE_TESTS") == nullptr) {
    GTEST_SKIP() << "set OFLITE_LARGE_TESTS=1";
  }
  if (!GpuHasClusters()) {
    GTEST_SKIP() << "the GPU has no thread-block clusters";
  }
  const int64_t rows = 32769, cols = 65536;
  const Shape shape = {rows, cols};
  const size_t n = static_cast<size_t>(rows * cols);
  std::vector<float16> y_host(n);
  for (size_t i = 0; i < n; ++i) {
    y_host[i] = float16(static_cast<float>(Mix(i + 7) % 1024 + 64) / 1048576.0f);  // normal
  }
  const std::vector<float16> dy_host = MixedHalfValues(n);
  const auto on_gpu = [&](const std::vector<float16>& host) {
    return Unwrap(
        Tensor::FromHost(host.data(), host.size() * 2, shape, DataType::kFloat16, Device::Cuda(0)));
  };
  DispatchTrace trace;
  const Tensor dx = Unwrap(functional::SoftmaxGrad(on_gpu(y_host), on_gpu(dy_host), 1));
  ASSERT_EQ(trace.records().size(), 1u);
  EXPECT_NE(trace.records()[0].primitives[0].find("[cluster-smem "), std::string::npos)
      << trace.records()[0].primitives[0];
  std::vector<float16> out(n);
  ASSERT_TRUE(dx.CopyToHost(out.data(), out.size() * 2).ok());
  for (int64_t row : {int64_t{0}, rows / 2, rows - 1}) {
    std::vector<double> yr, dyr, got;
    for (int64_t c = 0; c < cols; ++c) {
      const size_t i = static_cast<size_t>(row * cols + c);
      yr.push_back(y_host[i]);
      dyr.push_back(dy_host[i]);
      got.push_back(out[i]);
    }
    const Shape one_row = {1, cols};
    ExpectAllClose(got, ReferenceSoftmaxGrad(yr, dyr, one_row, 1, false),
                   SoftmaxTolerance(DataType::kFloat16),
                   "large backward row " + std::to_string(row), SmallestNormal(DataType::kFloat16),
                   SoftmaxGradScale(yr, dyr, one_row, 1, false));
  }
}

#ifdef OFLITE_WITH_CUDA
// Rows of the register path that keeps half of each thread's values in shared memory (float32
// rows of 24576 columns, float16 of 32768), with more rows than the grid has blocks (the grid
// lowered, for float32, to SMs x 5 blocks of 384 x 32 waves, 21120 on a 132-SM Hopper), so
// blocks reuse their shared slots for a second row. Rows are compared with the reference from
// the last 200 (a block's second row) and every 97th.
// Large (2.1-2.2 GB each way): runs only with OFLITE_LARGE_TESTS=1.
TEST_F(CudaSoftmaxTest, LargeSpilledRegisterRowsLoopOverTheGrid) {
  if (std::getenv("OFLITE_LARGE_TESTS") == nullptr) {
    GTEST_SKIP() << "set OFLITE_LARGE_TESTS=1";
  }
  struct Case {
    DataType dtype;
    int64_t cols;
    int block;
    std::string launch;
  };
  const Case cases[] = {
      {DataType::kFloat32, 24576, 384, "[register pack=4 block=384 cols/thread=64]"},
      {DataType::kFloat16, 32768, 256, "[register pack=8 block=256 cols/thread=128]"}};
  const ep::CudaDeviceProperties* props = Unwrap(ep::GetCudaDeviceProperties(0));
  for (const Case& c : cases) {
    const int64_t cols = c.cols;
    const int64_t grid =
        ep::GridSize(props->sm_count, props->max_threads_per_sm, c.block, INT64_MAX);
    const ep::ScopedSoftmaxGridLimit limit(grid);
    const int64_t rows = grid + 200;
    const Shape shape = {rows, cols};
    std::vector<float> host(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < host.size(); ++i) {  // multiples of 1/256 in [-8, 8): exact in float16
      host[i] = static_cast<float>(Mix(i) % 4096) / 256.0f - 8.0f;
    }
    const Tensor x32 = Unwrap(
        Tensor::FromHost(host.data(), host.size() * 4, shape, DataType::kFloat32, Device::Cuda(0)));
    const Tensor x = Unwrap(functional::Cast(x32, c.dtype));
    for (bool log : {false, true}) {
      DispatchTrace trace;
      const Tensor y = Unwrap(log ? functional::LogSoftmax(x, 1) : functional::Softmax(x, 1));
      ASSERT_EQ(trace.records().size(), 1u);
      EXPECT_NE(trace.records()[0].primitives[0].find(c.launch), std::string::npos)
          << trace.records()[0].primitives[0];
      std::vector<float> out(host.size());
      const Tensor y32 = Unwrap(functional::Cast(y, DataType::kFloat32));
      ASSERT_TRUE(y32.CopyToHost(out.data(), out.size() * 4).ok());
      const std::string context =
          std::string(DataTypeName(c.dtype)) + (log ? " log_softmax row " : " softmax row ");
      for (int64_t row = 0; row < rows; ++row) {
        if (row % 97 != 0 && row < rows - 200) {
          continue;
        }
        const auto begin = static_cast<size_t>(row * cols);
        const std::vector<double> xr(host.begin() + begin, host.begin() + begin + cols);
        const std::vector<double> yr(out.begin() + begin, out.begin() + begin + cols);
        const Shape one_row = {1, cols};
        ExpectAllClose(yr, ReferenceSoftmax(xr, one_row, 1, log), SoftmaxTolerance(c.dtype),
                       context + std::to_string(row), SmallestNormal(c.dtype),
                       SoftmaxScale(xr, one_row, 1, log));
        if (HasFailure()) {
          return;
        }
      }
    }
  }
}
#endif  // OFLITE_WITH_CUDA

}  // namespace
}  // namespace test
}  // namespace oflite
