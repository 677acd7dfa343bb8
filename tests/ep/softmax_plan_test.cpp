// The CUDA softmax's plans (ep/cuda/primitive/softmax_plan.h), host code that runs without a
// GPU: the register path's plans at the sweep's points and what every plan must respect, and
// which tensors the split and cluster paths take with plans that cover their rows.
#include "ep/cuda/primitive/softmax_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace oflite {
namespace ep {
namespace softmax {
namespace {

struct SweepPlan {
  int elem_size;
  int64_t cols;
  int softmax_values, log_softmax_values, smem_values;
};

// The plans the rows=49152 sweep in docs/BENCHMARKS.md measured (0: the warp kernel).
const SweepPlan kSweepPlans[] = {
    {4, 512, 0, 0, 0},     {4, 1000, 8, 8, 0},    {4, 1024, 8, 8, 0},    {4, 1025, 16, 16, 0},
    {4, 3000, 16, 16, 0},  {4, 4096, 32, 32, 0},  {4, 12345, 32, 32, 0}, {4, 16384, 16, 32, 0},
    {4, 32768, 32, 32, 0}, {2, 512, 0, 0, 0},     {2, 1000, 32, 32, 0},  {2, 1025, 32, 32, 0},
    {2, 8192, 32, 32, 0},  {2, 12345, 40, 40, 0}, {2, 16384, 64, 64, 0}, {2, 32768, 64, 64, 64},
};

TEST(SoftmaxPlanTest, TheSweepsPointsKeepTheirPlans) {
  for (const SweepPlan& p : kSweepPlans) {
    const bool whole_packs = p.cols % PackOf(p.elem_size) == 0;
    const RegisterPlan softmax = RegisterAutoPlan(p.elem_size, true, p.cols, whole_packs);
    const RegisterPlan log_softmax = RegisterAutoPlan(p.elem_size, false, p.cols, whole_packs);
    EXPECT_EQ(softmax.values, p.softmax_values) << p.elem_size << " bytes, " << p.cols;
    EXPECT_EQ(log_softmax.values, p.log_softmax_values) << p.elem_size << " bytes, " << p.cols;
    EXPECT_EQ(softmax.smem_values, p.smem_values) << p.elem_size << " bytes, " << p.cols;
  }
}

// Every plan fits a block of 1024 threads and the register budget (32 floats or 64 16-bit values
// a thread), spills only rows of whole packs, and the path stops where the rules do.
TEST(SoftmaxPlanTest, EveryPlanFitsItsBudgets) {
  for (int elem_size : {4, 2}) {
    for (bool softmax : {true, false}) {
      for (int64_t cols = 1; cols <= 40000; ++cols) {
        const bool whole_packs = cols % PackOf(elem_size) == 0;
        const RegisterPlan plan = RegisterAutoPlan(elem_size, softmax, cols, whole_packs);
        if (plan.values == 0) {
          EXPECT_EQ(plan.smem_values, 0);
          continue;
        }
        const int64_t covered = CoveredCols(elem_size, cols);
        EXPECT_LE(RegisterBlockFor(covered, plan.values + plan.smem_values), 1024) << cols;
        EXPECT_LE(plan.values, elem_size == 4 ? 32 : 64) << cols;
        EXPECT_TRUE(plan.smem_values == 0 || whole_packs) << cols;
        EXPECT_GT(cols, 32 * WarpLaneCols(elem_size, whole_packs)) << cols;
        EXPECT_LE(covered, 32768) << cols;
      }
    }
  }
  EXPECT_EQ(kFloatWholeSmAfterCols, 416 * 64);
}

// Past 16384 columns: 16-bit rows of whole packs up to 640 threads of 32 values (the kernel
// bounded to 32 registers), then half in shared memory, and 16-bit rows that start mid-pack 64
// values a thread up to 32768 columns.
TEST(SoftmaxPlanTest, LongSixteenBitRowsTakeTheirPlans) {
  struct Case {
    int64_t cols;
    int values, smem_values;
  };
  const Case cases[] = {{16384, 64, 0},  {16392, 32, 0},  {20480, 32, 0},
                        {20488, 64, 64}, {32768, 64, 64}, {16385, 64, 0},
                        {20001, 64, 0},  {32767, 64, 0},  {32783, 0, 0}};
  for (const Case& c : cases) {
    const bool whole_packs = c.cols % 8 == 0;
    for (bool softmax : {true, false}) {
      const RegisterPlan plan = RegisterAutoPlan(2, softmax, c.cols, whole_packs);
      EXPECT_EQ(plan.values, c.values) << c.cols;
      EXPECT_EQ(plan.smem_values, c.smem_values) << c.cols;
    }
  }
  EXPECT_GT(RegisterBlockFor(16392, 32), kTwoBlocksAfterThreads);
}

// A flat split keeps every resident block busy where chunks of each row would not, with chunks
// of whole packs no longer than a row (a block then takes pieces of at most two rows), and
// declines where a chunk would pass a row.
TEST(SoftmaxPlanTest, FlatSplitsFillTheGridWithChunksOfAtMostARow) {
  const FlatSplitPlan few = PlanFlatSplit(264, 34, 1 << 20, 4);
  EXPECT_EQ(few.blocks, 264);  // chunks of each row: 7 a row, 238 blocks
  EXPECT_EQ(PlanSplitRows(264, 34, 1 << 20, 4).splits * 34, 238);
  for (const auto& [rows, cols, elem_size] : {std::tuple{34, 1 << 20, 4},
                                              {7, 40001, 4},
                                              {5, 300001, 2},
                                              {1, 4194307, 4},
                                              {16, 1 << 20, 2}}) {
    const FlatSplitPlan plan = PlanFlatSplit(264, rows, cols, elem_size);
    const int64_t n = int64_t{rows} * cols;
    ASSERT_GT(plan.blocks, 0) << rows << " x " << cols;
    EXPECT_LE(plan.blocks, 264);
    EXPECT_GE(plan.blocks, rows);  // so blocks + rows partials fit twice the resident blocks
    EXPECT_LE(plan.chunk, cols);
    EXPECT_EQ(plan.chunk % PackOf(elem_size), 0);
    EXPECT_GE(plan.blocks * plan.chunk, n);
    EXPECT_LT((plan.blocks - 1) * plan.chunk, n);  // no block without elements
  }
  EXPECT_EQ(PlanFlatSplit(264, 5, 2, 4).blocks, 0);       // a chunk would pass the row
  EXPECT_EQ(PlanFlatSplit(264, 600, 4096, 4).blocks, 0);  // more rows than blocks
  EXPECT_EQ(PlanFlatSplit(0, 34, 1 << 20, 4).blocks, 0);
  // float32 only where the flat grid has 5% more blocks; 16-bit wherever it applies
  EXPECT_TRUE(TakesFlatSplit(264, 238, 4));
  EXPECT_FALSE(TakesFlatSplit(264, 256, 4));
  EXPECT_TRUE(TakesFlatSplit(264, 260, 2));
  EXPECT_FALSE(TakesFlatSplit(0, 260, 2));
}

TEST(SoftmaxPlanTest, CoveredColsCountsWhatARowsPacksSpan) {
  EXPECT_EQ(CoveredCols(4, 1024), 1024);
  EXPECT_EQ(CoveredCols(4, 1025), 1028);  // float32: one more pack than its length may need
  EXPECT_EQ(CoveredCols(2, 1025), 1024);  // 16-bit: whole packs, the rest element by element
  EXPECT_EQ(RegisterBlockFor(1000, 8), 128);
  EXPECT_EQ(RegisterBlockFor(10, 8), 32);
}

// The split path takes at most a quarter as many rows as SMs, of 8192 columns or more, in tensors
// of 2 MB or more, never float64; its plans cover each row with non-empty chunks of whole packs
// and give the grid no more blocks than it may have.
TEST(SoftmaxPlanTest, SplitRowsTakeFewLongRowsAndCoverThem) {
  constexpr int kSms = 132;
  EXPECT_TRUE(TakesSplitRows(kSms, 33, 65536, 4));
  EXPECT_FALSE(TakesSplitRows(kSms, 34, 65536, 4));
  // Rows no cluster holds split up to as many as SMs
  EXPECT_TRUE(TakesSplitRows(kSms, 34, 1048576, 4));  // 4 MB rows
  EXPECT_TRUE(TakesSplitRows(kSms, 131, 1048576, 4));
  EXPECT_FALSE(TakesSplitRows(kSms, 132, 1048576, 4));
  EXPECT_FALSE(TakesSplitRows(kSms, 34, 933888, 4));  // 16 x 228 KB: a cluster's
  EXPECT_TRUE(TakesSplitRows(kSms, 34, 933889, 4));
  EXPECT_FALSE(TakesSplitRows(kSms, 1, 8191, 4));     // short rows
  EXPECT_TRUE(TakesSplitRows(kSms, 1, 524288, 4));    // 2 MB
  EXPECT_FALSE(TakesSplitRows(kSms, 1, 524287, 4));   // just under
  EXPECT_FALSE(TakesSplitRows(kSms, 1, 1 << 22, 8));  // float64
  for (int64_t blocks : {1, 264, 528}) {
    for (int64_t rows : {1, 2, 33, 1000}) {
      for (int64_t cols :
           {int64_t{1}, int64_t{7}, int64_t{8192}, int64_t{1048579}, (int64_t{1} << 31) + 5}) {
        for (int elem_size : {4, 2}) {
          const SplitRowsPlan plan = PlanSplitRows(blocks, rows, cols, elem_size);
          const std::string what = std::to_string(blocks) + " blocks, " + std::to_string(rows) +
                                   " x " + std::to_string(cols);
          ASSERT_GE(plan.splits, 1) << what;
          EXPECT_LE(plan.splits, std::max<int64_t>(1, blocks / rows)) << what;
          EXPECT_EQ(plan.chunk % PackOf(elem_size), 0) << what;
          EXPECT_GE(plan.splits * plan.chunk, cols) << what;
          EXPECT_LT((plan.splits - 1) * plan.chunk, cols) << what;  // no empty chunk
        }
      }
    }
  }
  EXPECT_EQ(PlanSplitRows(0, 1, 100, 4).splits, 0);  // no block fits
  EXPECT_EQ(PlanSplitRows(10, 1, 0, 4).splits, 0);   // an empty tensor
}

// Cluster plans (a forced path only) hold the row in at most 8 CTAs of whole warps, up to 1024
// threads of 8 packs.
TEST(SoftmaxPlanTest, ClusterPlansHoldTheRow) {
  for (int elem_size : {4, 2}) {
    const int64_t pack = PackOf(elem_size);
    for (int64_t cols : {1, 100, 32769, 50257, 65536, 131072, 262143, 262144, 524288, 524296}) {
      const ClusterPlan plan = PlanCluster(cols, elem_size);
      const int64_t packs = (cols + pack - 1) / pack;
      if (plan.ctas == 0) {
        EXPECT_GT(packs, int64_t{kClusterMaxCtas} * 1024 * 8) << elem_size << " bytes, " << cols;
        continue;
      }
      EXPECT_LE(plan.ctas, kClusterMaxCtas);
      EXPECT_EQ(plan.threads % 32, 0);
      EXPECT_LE(plan.threads, 1024);
      EXPECT_GE(int64_t{plan.ctas} * plan.threads * plan.packs, packs)
          << elem_size << " bytes, " << cols;
    }
  }
  EXPECT_EQ(PlanCluster(262144, 4).ctas, 8);
  EXPECT_EQ(PlanCluster(262148, 4).ctas, 0);
  EXPECT_EQ(PlanCluster(524288, 2).ctas, 8);
  EXPECT_EQ(PlanCluster(524296, 2).ctas, 0);
}

// Cluster-smem plans: the fewest CTAs (up to 16) whose slices of whole packs cover the row's
// packs within 64 KB (or the size asked), with a thread per 16 packs of a slice (64 to 512);
// longer rows take 16 CTAs and leave the launcher to check that a slice fits shared memory. By
// default the path takes 16- and 32-bit forward rows past 32768 columns, backward ones from 8193
// (float32) or 2048 (16-bit) columns, and of the split path's few rows those it measured faster
// on.
TEST(SoftmaxPlanTest, ClusterSmemPlansCoverTheRowInTheFewestSlices) {
  for (int elem_size : {4, 2}) {
    const int64_t pack = PackOf(elem_size);
    for (int64_t cols : {1, 3, 100, 20000, 32769, 50257, 65536, 128256, 262143, 1048576}) {
      const ClusterSmemPlan plan = PlanClusterSmem(cols, elem_size);
      const std::string what = std::to_string(elem_size) + " bytes, " + std::to_string(cols);
      const int64_t packs = cols / pack;
      ASSERT_GE(plan.ctas, 1) << what;
      ASSERT_LE(plan.ctas, kClusterSmemMaxCtas) << what;
      EXPECT_GE(plan.ctas * plan.slice_packs, packs) << what;
      EXPECT_GE(plan.slice_packs, 1) << what;
      EXPECT_EQ(plan.threads % 32, 0) << what;
      EXPECT_GE(plan.threads, 64) << what;
      EXPECT_LE(plan.threads, kClusterSmemMaxThreads) << what;
      if (plan.ctas < kClusterSmemMaxCtas) {
        EXPECT_LE(plan.slice_packs * 16, 64 << 10) << what;
        if (plan.ctas > 1) {  // one CTA fewer would not do
          EXPECT_GT((packs + plan.ctas - 2) / (plan.ctas - 1) * 16, 64 << 10) << what;
        }
      }
    }
  }
  EXPECT_EQ(PlanClusterSmem(20000, 4).ctas, 2);  // 5000 packs, 4096 a slice
  EXPECT_EQ(PlanClusterSmem(20000, 4).threads, 160);
  EXPECT_EQ(PlanClusterSmem(128256, 2).ctas, 4);  // 16032 packs
  EXPECT_EQ(PlanClusterSmem(65536, 4).threads, 256);
  EXPECT_EQ(PlanClusterSmem(1048576, 4).ctas, 16);  // 4 MB: past 16 slices of 64 KB
  EXPECT_EQ(PlanClusterSmem(1048576, 4).slice_packs, 16384);
  EXPECT_EQ(PlanClusterSmem(1048576, 4).threads, 512);
  EXPECT_EQ(PlanClusterSmem(65536, 4, 32 << 10).ctas, 8);  // another slice size
  // Forward rows past 8 slices of 64 KB, clusters past the SMs: the fewest slices of up to 112 KB
  // where 8 hold them
  EXPECT_EQ(PlanClusterSmemOf(131072, 4, 1, 1024, 132).ctas, 8);  // 8 of 64 KB
  EXPECT_EQ(PlanClusterSmemOf(151936, 4, 1, 1024, 132).ctas, 6);  // not 10 of 64 KB
  EXPECT_EQ(PlanClusterSmemOf(151936, 4, 1, 1024, 132).threads, 416);
  EXPECT_EQ(PlanClusterSmemOf(229376, 4, 1, 1024, 132).ctas, 8);   // 8 of 112 KB
  EXPECT_EQ(PlanClusterSmemOf(229380, 4, 1, 1024, 132).ctas, 15);  // past them: slices of 64 KB
  EXPECT_EQ(PlanClusterSmemOf(262143, 4, 1, 1024, 132).ctas, 16);
  EXPECT_EQ(PlanClusterSmemOf(151936, 4, 1, 13, 132).ctas, 10);  // 130 CTAs: the GPU not filled
  EXPECT_EQ(PlanClusterSmemOf(151936, 4, 2, 1024, 132).ctas,
            16);  // backward keeps its 32 KB slices
  constexpr int kSms = 132;
  constexpr int64_t kSmem = 227 << 10;
  constexpr ClusterSmemPass kForward = ClusterSmemPass::kForward;
  constexpr ClusterSmemPass kSoftmaxBackward = ClusterSmemPass::kSoftmaxBackward;
  constexpr ClusterSmemPass kLogSoftmaxBackward = ClusterSmemPass::kLogSoftmaxBackward;
  EXPECT_FALSE(TakesClusterSmem(kSms, kSms, 32768, 4, kForward, kSmem));
  EXPECT_TRUE(TakesClusterSmem(kSms, kSms, 32769, 4, kForward, kSmem));
  EXPECT_TRUE(TakesClusterSmem(kSms, 34, 262144, 2, kForward, kSmem));
  EXPECT_FALSE(TakesClusterSmem(kSms, kSms, 65536, 8, kForward, kSmem));
  // Of the split path's few rows, forward: slices of 64 KB where chunks would not fill the SMs,
  // or 16-bit ones on more CTAs than SMs
  EXPECT_TRUE(TakesClusterSmem(kSms, 5, 300001, 2, kForward, kSmem));     // 92 chunks
  EXPECT_TRUE(TakesClusterSmem(kSms, 5, 150001, 4, kForward, kSmem));     // 92 chunks
  EXPECT_FALSE(TakesClusterSmem(kSms, 1, 1048579, 2, kForward, kSmem));   // 65, 128 KB slices
  EXPECT_TRUE(TakesClusterSmem(kSms, 33, 262144, 2, kForward, kSmem));    // 264 CTAs of 64 KB
  EXPECT_FALSE(TakesClusterSmem(kSms, 16, 262144, 2, kForward, kSmem));   // 128 CTAs
  EXPECT_FALSE(TakesClusterSmem(kSms, 33, 131072, 2, kForward, kSmem));   // 132 CTAs
  EXPECT_FALSE(TakesClusterSmem(kSms, 33, 131072, 4, kForward, kSmem));   // float32: 264 CTAs
  EXPECT_FALSE(TakesClusterSmem(kSms, 4, 1048579, 2, kForward, kSmem));   // 64 CTAs of 128 KB
  EXPECT_FALSE(TakesClusterSmem(kSms, 20, 1048576, 2, kForward, kSmem));  // 320 CTAs of 128 KB
  EXPECT_FALSE(TakesClusterSmem(kSms, 2, 1048576, 4, kForward, kSmem));   // 16 slices of 256 KB
  // Backward: y's and dy's slices, 32 KB each in the fewest CTAs
  EXPECT_TRUE(TakesClusterSmem(kSms, kSms, 65536, 4, kSoftmaxBackward, kSmem));
  EXPECT_TRUE(TakesClusterSmem(kSms, 33, 65536, 4, kSoftmaxBackward, kSmem));  // 8 x 2 x 32 KB
  // 16 x 2 x 37.5 KB: under 128 KB, but past 64 KB on 80 CTAs (the few-rows rule)
  EXPECT_FALSE(TakesClusterSmem(kSms, 5, 300001, 2, kSoftmaxBackward, kSmem));
  EXPECT_FALSE(TakesClusterSmem(kSms, 1, 1048579, 2, kSoftmaxBackward, kSmem));  // 16 x 2 x 128 KB
  // Many rows: backward from 8193 float32 and 2048 16-bit columns, forward past 32768
  EXPECT_FALSE(TakesClusterSmem(kSms, 1024, 8192, 4, kSoftmaxBackward, kSmem));
  EXPECT_TRUE(TakesClusterSmem(kSms, 1024, 8193, 4, kLogSoftmaxBackward, kSmem));
  EXPECT_FALSE(TakesClusterSmem(kSms, 1024, 2047, 2, kSoftmaxBackward, kSmem));
  EXPECT_TRUE(TakesClusterSmem(kSms, 1024, 2048, 2, kLogSoftmaxBackward, kSmem));
  EXPECT_FALSE(TakesClusterSmem(kSms, 1024, 20000, 2, kForward, kSmem));
  // Backward slices up to 128 KB in all, in either function
  EXPECT_TRUE(TakesClusterSmem(kSms, 1024, 262143, 4, kSoftmaxBackward, kSmem));  // 64 KB each
  EXPECT_TRUE(TakesClusterSmem(kSms, 1024, 262147, 4, kLogSoftmaxBackward, kSmem));
  EXPECT_FALSE(TakesClusterSmem(kSms, 1024, 262148, 4, kSoftmaxBackward, kSmem));    // a pack more
  EXPECT_TRUE(TakesClusterSmem(kSms, 1024, 131072, 4, kLogSoftmaxBackward, kSmem));  // 16 CTAs
  EXPECT_TRUE(TakesClusterSmem(kSms, 1024, 262143, 2, kLogSoftmaxBackward, kSmem));  // 32 KB each
}

// Forward rows whose clusters fill the device: slices past 64 KB only where slices of 64 KB would
// take more than 8 CTAs, then at most 8 CTAs covering the row, two of which fit an H200 SM's
// 228 KB of shared memory; elsewhere the 64 KB plan.
TEST(SoftmaxPlanTest, WideClusterSlicesOnlyWhereTheyKeepEightCtas) {
  for (int elem_size : {4, 2}) {
    int wide = 0;
    for (int64_t cols = 32769; cols <= 524288; cols += 4099) {
      const ClusterSmemPlan narrow = PlanClusterSmem(cols, elem_size);
      if (narrow.slice_packs * 16 > kClusterSmemSliceBytes) {
        continue;  // past 16 slices of 64 KB
      }
      const ClusterSmemPlan plan = PlanClusterSmemOf(cols, elem_size, 1, 1024, 132);
      const std::string what = std::to_string(elem_size) + " bytes, " + std::to_string(cols);
      const int64_t bytes = plan.slice_packs * 16;
      EXPECT_GE(plan.ctas * plan.slice_packs, cols / PackOf(elem_size)) << what;
      if (bytes > kClusterSmemSliceBytes) {
        EXPECT_GT(narrow.ctas, kClusterMaxCtas) << what;
        EXPECT_LE(plan.ctas, kClusterMaxCtas) << what;
        EXPECT_LE(2 * (bytes + kClusterSmemStaticBytes), 228 << 10) << what;
        ++wide;
      } else {
        EXPECT_EQ(plan.ctas, narrow.ctas) << what;
        EXPECT_EQ(plan.slice_packs, narrow.slice_packs) << what;
      }
    }
    EXPECT_GT(wide, 0) << elem_size << " bytes: some rows take wide slices";
  }
}

}  // namespace
}  // namespace softmax
}  // namespace ep
}  // namespace oflite
