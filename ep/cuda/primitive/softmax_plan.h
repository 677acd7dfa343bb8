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
// threads.
constexpr RegisterRule kFloatSpillRule = {32, 32, 416, RowLayout::kWholePacks, false};
constexpr RegisterRule kFloatRules[] = {
    {8, 0, 128, RowLayout::kWholePacks, false},   {16, 0, 192, RowLayout::kAny, false},
    {32, 0, 256, RowLayout::kAny, false},         {16, 0, 1024, RowLayout::kWholePacks, true},
    {32, 0, 512, RowLayout::kAny, false},         kFloatSpillRule,
    {32, 0, 1024, RowLayout::kWholePacks, false},
};
constexpr RegisterRule kHalfRules[] = {
    {32, 0, 32, RowLayout::kAny, false},  {40, 0, 32, RowLayout::kAny, false},
    {32, 0, 256, RowLayout::kAny, false}, {40, 0, 320, RowLayout::kMidPack, false},
    {64, 0, 256, RowLayout::kAny, false}, {64, 64, 256, RowLayout::kWholePacks, false},
};
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

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_PLAN_H_
