// Boxing between every pair of S(i), B and P on 1, 2 and 3 ranks (threads sharing one CPU),
// against the whole tensor: each rank's shard must be its slice (S), the whole (B), or the
// shards must sum to the whole (P). Values are small integers in float64, so sums are exact.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "oneflow_lite/framework/global_dispatch.h"
#include "oneflow_lite/framework/global_tensor.h"
#include "tests/global/thread_communicator.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ThreadCommunicator;
using test::ThreadGroup;

std::vector<double> IntegerValues(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-50, 50);
  std::vector<double> values(static_cast<size_t>(count));
  for (double& v : values) {
    v = value(rng);
  }
  return values;
}

// The elements of `whole` (of `shape`) with index in [begin, begin + size) along `axis`.
std::vector<double> SliceOf(const std::vector<double>& whole, const Shape& shape, int64_t axis,
                            int64_t begin, int64_t size) {
  const int64_t outer = shape.Count(0, axis);
  const int64_t inner = shape.Count(axis + 1, shape.rank());
  std::vector<double> slice;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = begin; k < begin + size; ++k) {
      for (int64_t i = 0; i < inner; ++i) {
        slice.push_back(whole[static_cast<size_t>((o * shape[axis] + k) * inner + i)]);
      }
    }
  }
  return slice;
}

// Rank `rank`'s shard of `whole` under `sbp`, made on the host: a slice, the whole, or integer
// shares that sum to the whole (the last rank's makes up the rest).
std::vector<double> HostShard(const std::vector<double>& whole, const Shape& shape, const Sbp& sbp,
                              int rank, int world, uint64_t seed) {
  if (sbp.is_split()) {
    const SplitRange r = BalancedSplit(shape[sbp.axis()], world, rank);
    return SliceOf(whole, shape, sbp.axis(), r.begin, r.size);
  }
  if (sbp.is_broadcast()) {
    return whole;
  }
  std::vector<double> rest = whole;
  for (int p = 0; p < world; ++p) {
    std::vector<double> share = IntegerValues(static_cast<int64_t>(whole.size()), seed + 100 + p);
    if (p == world - 1) {
      return rest;
    }
    for (size_t k = 0; k < rest.size(); ++k) {
      rest[k] -= share[k];
    }
    if (p == rank) {
      return share;
    }
  }
  return {};
}

struct Shard {
  bool ok = false;
  std::string error;
  Shape shape;
  std::vector<double> values;
};

// Checks the shards of all ranks against the whole tensor under `sbp`.
void ExpectShardsOf(const std::vector<Shard>& shards, const std::vector<double>& whole,
                    const Shape& shape, const Sbp& sbp, const std::string& context) {
  const int world = static_cast<int>(shards.size());
  std::vector<double> sum(whole.size(), 0.0);
  for (int r = 0; r < world; ++r) {
    const Shard& s = shards[static_cast<size_t>(r)];
    ASSERT_TRUE(s.ok) << context << ": rank " << r << ": " << s.error;
    EXPECT_EQ(s.shape, ShardShape(shape, sbp, world, r)) << context << ": rank " << r;
    if (sbp.is_split()) {
      const SplitRange range = BalancedSplit(shape[sbp.axis()], world, r);
      EXPECT_EQ(s.values, SliceOf(whole, shape, sbp.axis(), range.begin, range.size))
          << context << ": rank " << r;
    } else if (sbp.is_broadcast()) {
      EXPECT_EQ(s.values, whole) << context << ": rank " << r;
    } else {
      ASSERT_EQ(s.values.size(), whole.size()) << context;
      for (size_t k = 0; k < sum.size(); ++k) {
        sum[k] += s.values[k];
      }
    }
  }
  if (sbp.is_partial_sum()) {
    EXPECT_EQ(sum, whole) << context << ": the partial sums do not add up to the tensor";
  }
}

std::vector<Sbp> SbpsFor(const Shape& shape) {
  std::vector<Sbp> sbps;
  for (int64_t axis = 0; axis < shape.rank(); ++axis) {
    sbps.push_back(SplitSbp(axis));
  }
  sbps.push_back(BroadcastSbp());
  sbps.push_back(PartialSumSbp());
  return sbps;
}

// Boxes a tensor of `shape` and `dtype` from every SBP of `froms` into every SBP of `tos` on
// `world` ranks.
void CheckPairs(const Shape& shape, int world, DataType dtype, const std::vector<Sbp>& froms,
                const std::vector<Sbp>& tos) {
  const uint64_t seed = 1000 + static_cast<uint64_t>(shape.elem_cnt() * 7 + world);
  const std::vector<double> whole = IntegerValues(shape.elem_cnt(), seed);
  for (const Sbp& from : froms) {
    for (const Sbp& to : tos) {
      const std::string context = "shape " + shape.ToString() + " " + DataTypeName(dtype) + " on " +
                                  std::to_string(world) + " ranks, " + SbpToString(from) + " -> " +
                                  SbpToString(to) + " (seed " + std::to_string(seed) + ")";
      std::vector<Shard> shards(static_cast<size_t>(world));
      ThreadGroup::Run(world, [&](int rank, ThreadCommunicator*) {
        Shard& out = shards[static_cast<size_t>(rank)];
        std::vector<double> mine = HostShard(whole, shape, from, rank, world, seed);
        const Placement placement(DeviceType::kCPU, [&] {
          std::vector<int> ranks;
          for (int r = 0; r < world; ++r) ranks.push_back(r);
          return ranks;
        }());
        Maybe<GlobalTensor> x = test::MakeTensor(mine, ShardShape(shape, from, world, rank), dtype)
                                    .ToGlobal(placement, {from});
        if (!x.ok()) {
          out.error = x.error().ToString();
          return;
        }
        EXPECT_EQ(x.value().shape(), shape) << context;
        Maybe<GlobalTensor> y = x.value().ToGlobal(placement, {to});
        if (!y.ok()) {
          out.error = y.error().ToString();
          return;
        }
        EXPECT_EQ(y.value().shape(), shape);
        EXPECT_EQ(y.value().sbp()[0], to);
        out.ok = true;
        out.shape = y.value().local().shape();
        out.values = test::ToDoubles(y.value().local());
      });
      ExpectShardsOf(shards, whole, shape, to, context);
    }
  }
}

// Boxes a tensor of `shape` from every SBP into every SBP on `world` ranks.
void CheckEveryPair(const Shape& shape, int world) {
  CheckPairs(shape, world, DataType::kFloat64, SbpsFor(shape), SbpsFor(shape));
}

Placement Ranks(int world) {
  std::vector<int> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.push_back(r);
  }
  return Placement(DeviceType::kCPU, ranks);
}

TEST(BoxingTest, EveryPairOnOneRank) { CheckEveryPair(Shape{5, 7}, 1); }

TEST(BoxingTest, EveryPairOnTwoRanks) {
  CheckEveryPair(Shape{5, 7}, 2);  // uneven along both axes
  CheckEveryPair(Shape{6, 4}, 2);  // even
  CheckEveryPair(Shape{4, 3, 5}, 2);
}

TEST(BoxingTest, EveryPairOnThreeRanks) {
  CheckEveryPair(Shape{5, 7}, 3);
  CheckEveryPair(Shape{6, 9}, 3);
  CheckEveryPair(Shape{4, 3, 5}, 3);
  CheckEveryPair(Shape{2, 7}, 3);  // a dim smaller than the ranks: the last shard is empty
}

// More rows before the split axis than boxing copies one by one: the permute route.
TEST(BoxingTest, ManyOuterRows) {
  CheckEveryPair(Shape{70, 3}, 2);
  CheckEveryPair(Shape{70, 4}, 3);
}

// Rank-3 tensors whose split axes divide evenly by the ranks or not, so every route runs: one
// pack permute (the part index to the front), receiving the shard as it lies or joined by one
// permute or by a strided copy a part, and the front route of uneven parts. S -> S, S -> B and
// P -> S in float32 and float16.
TEST(BoxingTest, EvenAndUnevenSplitsOfRankThree) {
  const std::vector<Sbp> splits = {SplitSbp(0), SplitSbp(1), SplitSbp(2)};
  const std::vector<Sbp> splits_and_b = {SplitSbp(0), SplitSbp(1), SplitSbp(2), BroadcastSbp()};
  const std::vector<std::pair<int, std::vector<Shape>>> worlds = {
      {2, {Shape{4, 6, 10}, Shape{4, 6, 5}, Shape{3, 6, 4}, Shape{6, 3, 8}}},
      {3, {Shape{6, 9, 3}, Shape{4, 6, 9}, Shape{6, 4, 9}, Shape{6, 9, 4}, Shape{2, 3, 6}}},
  };
  for (const auto& world : worlds) {
    for (const Shape& shape : world.second) {
      for (DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
        CheckPairs(shape, world.first, dtype, splits, splits_and_b);
        CheckPairs(shape, world.first, dtype, {PartialSumSbp()}, splits);
      }
    }
  }
}

// Four ranks, rank-4 tensors, even and uneven along each axis, every pair.
TEST(BoxingTest, EveryPairOfRankFourOnFourRanks) {
  CheckEveryPair(Shape{4, 8, 4, 12}, 4);
  CheckEveryPair(Shape{5, 4, 6, 3}, 4);
  CheckEveryPair(Shape{2, 3, 4, 5}, 4);  // dims under the ranks: empty shards
}

TEST(BoxingTest, FromWholeKeepsEachRanksPart) {
  const Shape shape{5, 3};
  const std::vector<double> whole = IntegerValues(shape.elem_cnt(), 7);
  for (const Sbp& sbp : SbpsFor(shape)) {
    std::vector<Shard> shards(3);
    ThreadGroup::Run(3, [&](int rank, ThreadCommunicator*) {
      Maybe<GlobalTensor> x = GlobalTensor::FromWhole(
          test::MakeTensor(whole, shape, DataType::kFloat64), Ranks(3), {sbp});
      Shard& out = shards[static_cast<size_t>(rank)];
      if (!x.ok()) {
        out.error = x.error().ToString();
        return;
      }
      out.ok = true;
      out.shape = x.value().local().shape();
      out.values = test::ToDoubles(x.value().local());
      if (sbp.is_partial_sum() && rank > 0) {  // B -> P: the first rank keeps the values
        EXPECT_EQ(out.values, std::vector<double>(whole.size(), 0.0));
      }
    });
    ExpectShardsOf(shards, whole, shape, sbp, "FromWhole " + SbpToString(sbp));
  }
}

// Boxing allocates only what the collectives need: the output, plus the staging copies the
// permutes make when the split axis has larger dims before it; a slice of the outer axis is a
// view of the whole. Even splits move the part index with one permute, before the collective
// (S -> S, P -> S) or after it (S -> B), never both; uneven ones permute there and back.
TEST(BoxingTest, AllocatesOnlyWhatTheCollectiveNeeds) {
  struct Case {
    Shape shape;
    Sbp from, to;
    int64_t allocations;  // per rank
  };
  const std::vector<Case> cases = {
      {Shape{8, 6}, SplitSbp(0), BroadcastSbp(), 1},     // gather into the output
      {Shape{1, 8, 6}, SplitSbp(1), BroadcastSbp(), 1},  // dims before the axis are 1
      // Gather the shards as they are, one permute into the output (was 3: a permute before
      // the gather too).
      {Shape{6, 8}, SplitSbp(1), BroadcastSbp(), 2},
      {Shape{6, 7}, SplitSbp(1), BroadcastSbp(), 3},      // uneven: permute, gather, permute back
      {Shape{8, 6}, PartialSumSbp(), BroadcastSbp(), 1},  // all-reduce into the output
      {Shape{8, 6}, PartialSumSbp(), SplitSbp(0), 1},     // reduce-scatter into the output
      // Pack permute, reduce-scatter into the output (was 3: a permute back after it).
      {Shape{6, 8}, PartialSumSbp(), SplitSbp(1), 2},
      {Shape{6, 7}, PartialSumSbp(), SplitSbp(1), 3},  // uneven: permute, receive, permute back
      {Shape{8, 6}, BroadcastSbp(), SplitSbp(0), 0},   // a view of the whole
      {Shape{8, 6}, BroadcastSbp(), SplitSbp(1), 1},   // rows copied into the shard
      {Shape{8, 6}, SplitSbp(1), SplitSbp(0), 2},      // receive, one permute
      // Pack permute, receive into the output (was 3: a permute after receiving too).
      {Shape{8, 6}, SplitSbp(0), SplitSbp(1), 2},
      {Shape{8, 7}, SplitSbp(0), SplitSbp(1), 3},     // uneven: send permute, receive, permute
      {Shape{4, 6, 8}, SplitSbp(2), SplitSbp(0), 2},  // receive, one permute
      {Shape{4, 6, 8}, SplitSbp(1), SplitSbp(2), 3},  // pack permute, receive, one permute
      {Shape{4, 6, 5}, SplitSbp(2), SplitSbp(1), 3},  // pack permute, receive, blocks copied in
      {Shape{8, 6}, SplitSbp(0), SplitSbp(0), 0},     // nothing
  };
  for (const Case& c : cases) {
    const int world = 2;
    const std::vector<double> whole = IntegerValues(c.shape.elem_cnt(), 3);
    int64_t before = 0, after = 0;
    ThreadGroup::Run(world, [&](int rank, ThreadCommunicator* comm) {
      GlobalTensor x = test::Unwrap(GlobalTensor::FromShard(
          test::MakeTensor(HostShard(whole, c.shape, c.from, rank, world, 3),
                           ShardShape(c.shape, c.from, world, rank), DataType::kFloat64),
          Ranks(world), {c.from}));
      ASSERT_TRUE(comm->Barrier().ok());
      if (rank == 0) {
        before = test::Unwrap(ep::GetAllocatorStats(Device::Cpu())).allocation_count;
      }
      ASSERT_TRUE(comm->Barrier().ok());
      GlobalTensor y = test::Unwrap(x.ToGlobal(x.placement(), {c.to}));
      ASSERT_TRUE(comm->Barrier().ok());
      if (rank == 0) {
        after = test::Unwrap(ep::GetAllocatorStats(Device::Cpu())).allocation_count;
      }
      ASSERT_TRUE(comm->Barrier().ok());
      EXPECT_EQ(y.local().shape(), ShardShape(c.shape, c.to, world, rank));
    });
    EXPECT_EQ(after - before, world * c.allocations)
        << c.shape << " " << SbpToString(c.from) << " -> " << SbpToString(c.to);
  }
}

// The balanced rule, spelled out: the first n % k ranks hold one more; a dim smaller than the
// ranks leaves the last ones empty.
TEST(BoxingTest, BalancedSplit) {
  const std::vector<std::pair<int64_t, int64_t>> seven_over_three = {{0, 3}, {3, 2}, {5, 2}};
  for (int64_t p = 0; p < 3; ++p) {
    EXPECT_EQ(BalancedSplit(7, 3, p).begin, seven_over_three[p].first);
    EXPECT_EQ(BalancedSplit(7, 3, p).size, seven_over_three[p].second);
  }
  EXPECT_EQ(BalancedSplit(2, 3, 1).size, 1);
  EXPECT_EQ(BalancedSplit(2, 3, 2).size, 0);
  EXPECT_EQ(BalancedSplit(2, 3, 2).begin, 2);
  EXPECT_EQ(ShardShape(Shape{5, 7}, SplitSbp(1), 2, 1), (Shape{5, 3}));
  EXPECT_EQ(ShardShape(Shape{5, 7}, PartialSumSbp(), 2, 1), (Shape{5, 7}));
}

TEST(BoxingTest, CostModel) {
  const int64_t t = 1024;
  EXPECT_EQ(BoxingBytes(SplitSbp(0), BroadcastSbp(), t, 4), 768);
  EXPECT_EQ(BoxingBytes(PartialSumSbp(), BroadcastSbp(), t, 4), 1536);
  EXPECT_EQ(BoxingBytes(PartialSumSbp(), SplitSbp(1), t, 4), 768);
  EXPECT_EQ(BoxingBytes(SplitSbp(0), SplitSbp(1), t, 4), 192);
  EXPECT_EQ(BoxingBytes(BroadcastSbp(), SplitSbp(1), t, 4), 0);
  EXPECT_EQ(BoxingBytes(BroadcastSbp(), PartialSumSbp(), t, 4), 0);
  EXPECT_EQ(BoxingBytes(SplitSbp(1), SplitSbp(1), t, 4), 0);
  EXPECT_EQ(BoxingBytes(SplitSbp(0), BroadcastSbp(), t, 1), 0);
  EXPECT_STREQ(BoxingMethod(SplitSbp(0), BroadcastSbp()), "all-gather");
  EXPECT_STREQ(BoxingMethod(PartialSumSbp(), SplitSbp(0)), "reduce-scatter");
  EXPECT_STREQ(BoxingMethod(SplitSbp(0), SplitSbp(1)), "all-to-all");
}

TEST(BoxingTest, ReshardIsTraced) {
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    GlobalTensor x = test::Unwrap(GlobalTensor::FromWhole(
        test::MakeTensor(IntegerValues(12, 5), Shape{4, 3}, DataType::kFloat32), Ranks(2),
        {SplitSbp(0)}));
    GlobalTrace trace;
    GlobalTensor y = test::Unwrap(x.ToGlobal(x.placement(), {BroadcastSbp()}));
    ASSERT_EQ(trace.records().size(), 1u) << "rank " << rank;
    EXPECT_EQ(GlobalCallRecordToString(trace.records()[0]),
              "to_global: boxing 24 B: tensor: S(0) -> B all-gather 24 B");
  });
}

}  // namespace
}  // namespace oflite
