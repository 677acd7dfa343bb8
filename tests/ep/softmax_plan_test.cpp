// The CUDA softmax's register-path plans (ep/cuda/primitive/softmax_plan.h), host code that
// runs without a GPU: the plans at the sweep's points, and what every plan must respect.
#include "ep/cuda/primitive/softmax_plan.h"

#include <gtest/gtest.h>

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

TEST(SoftmaxPlanTest, CoveredColsCountsWhatARowsPacksSpan) {
  EXPECT_EQ(CoveredCols(4, 1024), 1024);
  EXPECT_EQ(CoveredCols(4, 1025), 1028);  // float32: one more pack than its length may need
  EXPECT_EQ(CoveredCols(2, 1025), 1024);  // 16-bit: whole packs, the rest element by element
  EXPECT_EQ(RegisterBlockFor(1000, 8), 128);
  EXPECT_EQ(RegisterBlockFor(10, 8), 32);
}

}  // namespace
}  // namespace softmax
}  // namespace ep
}  // namespace oflite
