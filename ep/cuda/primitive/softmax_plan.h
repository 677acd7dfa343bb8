// Which rows the CUDA softmax's register path takes by default, and how a thread holds them:
// one table of rules per element size, stated in values per thread (in registers, then in the
// thread's shared-memory slots) and threads per block. Host code only: the launcher and a test
// that runs without a GPU read it.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_PLAN_H_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_PLAN_H_

#include <algorithm>
#include <cstdint>

namespace oflite {
namespace ep {
namespace softmax {

// Elements per 16-byte access of the block kernels.
constexpr int PackOf(int elem_size) { return 16 / elem_size; }

// The most columns a row's packs span. A row that starts mid-pack (its length is not a whole
// number of packs; the tensor starts aligned): float32 may need one more pack than its length to
// cover it; 16-bit rows hold at most their length rounded down to a pack in packs, the rest one
// element a thread.
constexpr int64_t CoveredCols(int elem_size, int64_t cols) {
  const int64_t pack = PackOf(elem_size);
  if (cols % pack == 0) {
    return cols;
  }
  return elem_size == 2 ? cols / pack * pack : cols + pack - 1;
}

// Threads a block needs to hold `cols` at `values` a thread, in whole warps.
constexpr int RegisterBlockFor(int64_t cols, int values) {
  const int64_t threads = (cols + values - 1) / values;
  return static_cast<int>(std::max<int64_t>(32, (threads + 31) / 32 * 32));
}

// How the register path holds a row: values per thread in registers, and past them in the
// thread's own shared-memory slots. values == 0: the path does not run by default.
struct RegisterPlan {
  int values = 0;
  int smem_values = 0;
};

enum class RowLayout { kAny, kWholePacks, kMidPack };

// A rule holds the rows whose packs fit a block of at most max_threads threads at values +
// smem_values each (and of the layout and algorithm it names).
struct RegisterRule {
  int values;
  int smem_values;
  int max_threads;
  RowLayout layout;
  bool softmax_only;
};

// The rules, first fit wins; rows past the last go to the shared-memory or uncached kernels, and
// rows of at most kWarpLaneCols columns a lane stay on the warp kernel. They are the sweep's
// winners on the H200 at 49152 rows (docs/BENCHMARKS.md, the softmax tables and what lost):
// small blocks of many values win; a block alone on its SM has nothing to overlap its reductions
// with, so long rows spill half their values to shared memory (two blocks an SM), until float32
// blocks pass 832 threads, which run alone with short loops (WholePacks); 16-bit rows one warp
// holds at 40 values take that warp; softmax (not log_softmax) keeps 16 values up to 1024
// threads. Past 16384 columns 16-bit rows of whole packs take blocks of 32 values bounded to
// 32 registers up to 640 threads (kTwoBlocks), and 16-bit rows that start mid-pack take 64 values
// up to 512 threads instead of the shared-memory kernel: both won at 1024 rows (5-17%) and were
// within 2% or faster at 49152 (float16 softmax of 16392 columns 1.9% slower, the rest within 1%
// or faster).
constexpr RegisterRule kFloatSpillRule = {32, 32, 416, RowLayout::kWholePacks, false};
constexpr RegisterRule kFloatRules[] = {
    {8, 0, 128, RowLayout::kWholePacks, false},   {16, 0, 192, RowLayout::kAny, false},
    {32, 0, 256, RowLayout::kAny, false},         {16, 0, 1024, RowLayout::kWholePacks, true},
    {32, 0, 512, RowLayout::kAny, false},         kFloatSpillRule,
    {32, 0, 1024, RowLayout::kWholePacks, false},
};
constexpr RegisterRule kHalfRules[] = {
    {32, 0, 32, RowLayout::kAny, false},      {40, 0, 32, RowLayout::kAny, false},
    {32, 0, 256, RowLayout::kAny, false},     {40, 0, 320, RowLayout::kMidPack, false},
    {64, 0, 256, RowLayout::kAny, false},     {32, 0, 640, RowLayout::kWholePacks, false},
    {64, 0, 512, RowLayout::kMidPack, false}, {64, 64, 256, RowLayout::kWholePacks, false},
};
// 16-bit blocks of 32 values and more threads than this take the kernel bounded to 32 registers
// (kTwoBlocks).
constexpr int kTwoBlocksAfterThreads = 256;
// float32 rows of whole packs past the spilling rule take blocks each its SM's only one.
constexpr int64_t kFloatWholeSmAfterCols =
    int64_t{kFloatSpillRule.max_threads} * (kFloatSpillRule.values + kFloatSpillRule.smem_values);

// Columns a lane of the warp kernel holds before the register path takes a row.
constexpr int WarpLaneCols(int elem_size, bool whole_packs) {
  return elem_size == 4 ? (whole_packs ? 27 : 9) : (whole_packs ? 24 : 16);
}

inline RegisterPlan RegisterAutoPlan(int elem_size, bool softmax, int64_t cols, bool whole_packs) {
  if (cols <= int64_t{32} * WarpLaneCols(elem_size, whole_packs)) {
    return {};
  }
  const int64_t covered = CoveredCols(elem_size, cols);
  const auto fits = [&](const RegisterRule& rule) {
    const bool layout =
        rule.layout == RowLayout::kAny || (rule.layout == RowLayout::kWholePacks) == whole_packs;
    return layout && (softmax || !rule.softmax_only) &&
           covered <= int64_t{rule.max_threads} * (rule.values + rule.smem_values);
  };
  const auto pick = [&](const auto& rules) -> RegisterPlan {
    for (const RegisterRule& rule : rules) {
      if (fits(rule)) {
        return {rule.values, rule.smem_values};
      }
    }
    return {};
  };
  return elem_size == 4 ? pick(kFloatRules) : pick(kHalfRules);
}

// ---- rows split over several blocks (softmax_split_rows.cuh) ---------------------------------

constexpr int kSplitBlockThreads = 512;
// Below these a tensor with few rows is small enough that a block a row's latency is the
// cost, not the idle SMs.
constexpr int64_t kSplitMinCols = 8192;
constexpr int64_t kSplitMinBytes = int64_t{2} << 20;

// Rows longer than 16 slices of Hopper's shared memory (228 KB an SM), which no cluster holds.
constexpr int64_t kSplitLongRowBytes = int64_t{16} * (228 << 10);

// At most a quarter as many rows as SMs, long enough and in a tensor large enough to fill the GPU
// when split. From a quarter on a block a row measured faster (64 rows of 262144 float16
// columns: the uncached kernel 0.050 ms, split 0.063): the split grid reads every chunk before
// any block writes, where blocks a row overlap one row's reads with another's writes. Rows past
// kSplitLongRowBytes split up to as many as SMs: a block a row there leaves SMs idle for the
// whole call ((34, 1048576) float32 took 3.67 x a copy on the uncached kernel). float64 stays
// on its one kernel (see Launch).
inline bool TakesSplitRows(int sm_count, int64_t rows, int64_t cols, int elem_size) {
  const bool few =
      rows * 4 <= sm_count || (rows < sm_count && cols * elem_size > kSplitLongRowBytes);
  return elem_size != 8 && few && cols >= kSplitMinCols &&
         rows * cols * elem_size >= kSplitMinBytes;
}

// A row as `splits` chunks of `chunk` columns (the last one shorter), a whole number of packs
// each so that chunks of aligned rows start aligned.
struct SplitRowsPlan {
  int splits = 1;
  int64_t chunk = 0;
};

// The fewest elements a split block takes: each thread folds at least one unrolled round of 4
// packs.
constexpr int64_t SplitMinChunk(int elem_size) {
  return int64_t{kSplitBlockThreads} * PackOf(elem_size) * 4;
}

// `blocks`: how many blocks the grid may have (all resident at once); splits == 0 when none (or
// an empty tensor).
inline SplitRowsPlan PlanSplitRows(int64_t blocks, int64_t rows, int64_t cols, int elem_size) {
  if (blocks <= 0 || rows <= 0 || cols <= 0) {
    return {0, 0};
  }
  const int64_t pack = PackOf(elem_size);
  const int64_t min_chunk = SplitMinChunk(elem_size);
  const int64_t wanted = std::max<int64_t>(1, blocks / std::max<int64_t>(rows, 1));
  const int64_t splits = std::min(wanted, (cols + min_chunk - 1) / min_chunk);
  const int64_t chunk = ((cols + splits - 1) / splits + pack - 1) / pack * pack;
  return {static_cast<int>((cols + chunk - 1) / chunk), chunk};
}

// Few rows split as one flat range of the tensor: `blocks` blocks of `chunk` elements each (whole
// packs, at most a row, so a block takes pieces of at most two rows), as many blocks as are
// resident or as chunks of SplitMinChunk fill, where chunks of each row may leave resident blocks
// idle ((34, 2^20) on 264 blocks: 238 of them by rows of 7 chunks). blocks == 0 where a chunk
// would pass a row.
struct FlatSplitPlan {
  int64_t blocks = 0;
  int64_t chunk = 0;
};

inline FlatSplitPlan PlanFlatSplit(int64_t resident, int64_t rows, int64_t cols, int elem_size) {
  const int64_t n = rows * cols;
  const int64_t pack = PackOf(elem_size);
  const int64_t min_chunk = SplitMinChunk(elem_size);
  const int64_t blocks = std::min(resident, (n + min_chunk - 1) / min_chunk);
  if (blocks <= 0 || n <= 0) {
    return {};
  }
  const int64_t chunk = ((n + blocks - 1) / blocks + pack - 1) / pack * pack;
  if (chunk > cols) {
    return {};
  }
  return {(n + chunk - 1) / chunk, chunk};
}

// Whether chunks not held take the flat plan over chunks of each row (row_blocks blocks in
// all): 16-bit tensors wherever it applies (13-35% faster, forward and backward, at (20, 2^20)
// float16 and (8, 2^20) and (34, 2^21) bfloat16, where the flat grid has 2-11% more blocks; not
// measured where it has fewer, as tensors under 264 chunks of SplitMinChunk do); float32 where
// the flat grid has at least 5% more blocks ((34, 2^20): even to 4% faster), elsewhere keeping
// the per-row kernel as measured.
inline bool TakesFlatSplit(int64_t flat_blocks, int64_t row_blocks, int elem_size) {
  return flat_blocks > 0 && (elem_size == 2 || flat_blocks * 20 >= row_blocks * 21);
}

// ---- a row per thread-block cluster (softmax_cluster.cuh) ------------------------------------

// A row over `ctas` CTAs of `threads` threads holding `packs` 16-byte packs each; ctas == 0: the
// row is too long for any.
struct ClusterPlan {
  int ctas = 0;
  int threads = 0;
  int packs = 0;
};

constexpr int kClusterMaxCtas = 8;  // the portable cluster size

// The fewest CTAs whose blocks of at most 512 threads hold the row at 4 packs a thread (float32;
// 16-bit rows 8, the faster in the first measurements), then at 8; past that blocks of up to
// 1024 threads.
inline ClusterPlan PlanCluster(int64_t cols, int elem_size) {
  const int64_t packs = (cols + PackOf(elem_size) - 1) / PackOf(elem_size);
  for (int max_threads : {512, 1024}) {
    for (int per_thread : {4, 8}) {
      if (elem_size == 2 && per_thread == 4) {
        continue;
      }
      for (int ctas = 2; ctas <= kClusterMaxCtas; ctas *= 2) {
        const int threads = RegisterBlockFor(packs, ctas * per_thread);
        if (threads <= max_threads) {
          return {ctas, threads, per_thread};
        }
      }
    }
  }
  return {};
}

// ---- a row at a time per cluster, its slices in shared memory (softmax_cluster_smem.cuh) -----

constexpr int kClusterSmemMaxCtas = 16;  // past the portable 8: Hopper allows 16 on request
constexpr int kClusterSmemMaxThreads = 512;

// A row over `ctas` CTAs of `threads` threads, each CTA's slice `slice_packs` 16-byte packs of
// shared memory.
struct ClusterSmemPlan {
  int ctas = 0;
  int threads = 0;
  int64_t slice_packs = 0;
  // The dynamic shared memory of a CTA holding a slice of each of `tensors` tensors.
  int64_t SmemBytes(int tensors) const { return slice_packs * 16 * tensors; }
};

// The fewest CTAs whose slices hold at most slice_bytes each (64 KB: three CTAs an SM, which
// measured faster than slices of 32, 48 or 96 KB), with a thread per 16 packs of its slice (64 to
// kClusterSmemMaxThreads threads; 256 at 64 KB measured faster than 128 or 512). A row's whole
// packs are at most cols / pack.
constexpr int64_t kClusterSmemSliceBytes = int64_t{64} << 10;
// What the kernel's static shared memory (its reductions' slots) may take at most of a block's.
constexpr int64_t kClusterSmemStaticBytes = 1024;

inline ClusterSmemPlan PlanClusterSmem(int64_t cols, int elem_size,
                                       int64_t slice_bytes = kClusterSmemSliceBytes) {
  const int64_t packs = cols / PackOf(elem_size);
  const int64_t slice_packs_max = std::max<int64_t>(1, slice_bytes / 16);
  const auto threads_for = [](int64_t slice) {
    return static_cast<int>(
        std::clamp<int64_t>((slice + 16 * 32 - 1) / (16 * 32) * 32, 64, kClusterSmemMaxThreads));
  };
  for (int ctas = 1; ctas <= kClusterSmemMaxCtas; ++ctas) {
    const int64_t slice = (packs + ctas - 1) / ctas;
    if (slice <= slice_packs_max) {
      return {ctas, threads_for(slice), std::max<int64_t>(slice, 1)};
    }
  }
  // Longer rows: the most CTAs, if their slices fit the device's shared memory (the launcher
  // checks).
  const int64_t slice = (packs + kClusterSmemMaxCtas - 1) / kClusterSmemMaxCtas;
  return {kClusterSmemMaxCtas, threads_for(slice), slice};
}

// Forward slices up to this (two CTAs an SM) where they keep a row on at most the portable 8
// CTAs that slices of kClusterSmemSliceBytes would pass.
constexpr int64_t kClusterSmemWideSliceBytes = int64_t{112} << 10;

// The plan of rows of `tensors` tensors (1 forward; 2 backward, y and dy), each CTA's slices
// together at most kClusterSmemSliceBytes where 16 CTAs allow. Forward rows past 8 such slices,
// in clusters that fill the device (more CTAs than SMs), take the fewest of
// kClusterSmemWideSliceBytes where 8 or fewer hold them: float32 rows of 140001-200000 columns
// measured 4-12% faster on 5-7 CTAs than on 9-13 (1024 rows; clusters of more than 8 CTAs pack
// an H200's GPCs worse: 30 clusters of 10 resident against 45 of 8).
inline ClusterSmemPlan PlanClusterSmemOf(int64_t cols, int elem_size, int tensors, int64_t rows,
                                         int sm_count) {
  const ClusterSmemPlan plan = PlanClusterSmem(cols, elem_size, kClusterSmemSliceBytes / tensors);
  if (tensors == 1 && plan.ctas > kClusterMaxCtas && rows * plan.ctas > sm_count) {
    const ClusterSmemPlan wide = PlanClusterSmem(cols, elem_size, kClusterSmemWideSliceBytes);
    if (wide.ctas <= kClusterMaxCtas) {
      return wide;
    }
  }
  return plan;
}

// Which call a rule is for (softmax's and log_softmax's backward share theirs today). Backward
// rows not on the cluster-smem path go to the shared-memory or uncached kernel (or, few rows,
// the split path).
enum class ClusterSmemPass { kForward, kSoftmaxBackward, kLogSoftmaxBackward };

// By default, forward (softmax and log_softmax) rows of 16- and 32-bit types past the register
// path's longest (32768 columns): there the forward measured faster than the register cluster,
// the shared-memory and the uncached kernels (docs/BENCHMARKS.md). Backward, where the looping
// clusters measured faster than the shared-memory and uncached kernels: float32 rows past 8192
// columns (to 8192 the shared-memory kernel was faster), 16-bit ones from 2048, while y's and
// dy's slices take at most 128 KB together (one CTA an SM). Of the few rows the split path
// would take: forward, those in slices of at most 64 KB whose split grid would not fill the SMs
// with chunks of SplitMinChunk ((5, 300001) float16: 92 chunks, clusters 11% faster; float32 by
// analogy, (5, 150001) was timed on clusters only), or 16-bit ones whose clusters need more CTAs
// than SMs (32 rows of 262144 bfloat16 columns, 256 CTAs: even to 5% faster); at 128-132 CTAs,
// and for every float32 shape measured, the split path was 10-35% faster (the few-rows section
// of docs/BENCHMARKS.md); backward, those whose slices are at most 64 KB (several CTAs an SM), or
// fit max_slice_bytes in clusters on at most half the SMs: where slices of 128 KB filled every SM,
// one CTA each, the split path measured faster. Rows too long for 16 slices of the device's shared
// memory stay on the other paths. max_slice_bytes: the dynamic shared memory a block may have.
constexpr int64_t kClusterSmemMinCols = 32768;
constexpr int64_t kClusterSmemBackwardMinCols32 = 8192;  // float32: past it
constexpr int64_t kClusterSmemBackwardMinCols16 = 2048;  // 16-bit: from it
constexpr int64_t kClusterSmemBackwardMaxBytes = int64_t{128} << 10;
inline bool TakesClusterSmem(int sm_count, int64_t rows, int64_t cols, int elem_size,
                             ClusterSmemPass pass, int64_t max_slice_bytes) {
  const bool backward = pass != ClusterSmemPass::kForward;
  const bool long_enough = !backward ? cols > kClusterSmemMinCols
                                     : (elem_size == 4 ? cols > kClusterSmemBackwardMinCols32
                                                       : cols >= kClusterSmemBackwardMinCols16);
  if (elem_size == 8 || !long_enough) {
    return false;
  }
  const int tensors = backward ? 2 : 1;
  const ClusterSmemPlan plan = PlanClusterSmemOf(cols, elem_size, tensors, rows, sm_count);
  const int64_t bytes = plan.SmemBytes(tensors);
  if (backward && bytes > kClusterSmemBackwardMaxBytes) {
    return false;
  }
  if (!TakesSplitRows(sm_count, rows, cols, elem_size)) {
    return true;
  }
  if (!backward) {
    const bool unfilled = rows * cols < sm_count * SplitMinChunk(elem_size);
    return bytes <= kClusterSmemSliceBytes &&
           (unfilled || (elem_size == 2 && rows * plan.ctas > sm_count));
  }
  return bytes <= kClusterSmemSliceBytes ||
         (bytes <= max_slice_bytes && rows * plan.ctas * 2 <= sm_count);
}

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_PLAN_H_
