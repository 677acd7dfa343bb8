// Boxing: turning one rank's shard of a global tensor from one SBP into another, through the
// collectives of the placement's communicator (1-D placements):
//
//   S(i) -> B     all-gather              P -> B     all-reduce (sum)
//   S(i) -> S(j)  all-to-all              P -> S(i)  reduce-scatter (sum)
//   B -> S(i)     local slice             B -> P     rank 0 keeps the values, the others zeros
//   S(i) -> P     the shard in place in zeros of the global shape, no communication
//   same -> same  nothing (the shard itself)
//
// The collectives see one contiguous block per rank. A split axis that divides evenly by the
// ranks is viewed as (n, dim / n) and only the part index moves, by a permute whose contiguous
// runs are a part's inner dims: the new split's part index to the front before the collective
// (S -> S, P -> S), the old split's from the front to just before its axis after it (S -> B,
// S -> S; none for S(0), whose blocks lie in place). Uneven splits (balanced rule, placement.h)
// move the axis to the outside and back. Where the dims before the axis are all 1 the permutes
// are views and cost nothing.
//
// The cost model, used to choose among an op's SBP signatures: the bytes a rank receives for
// a global tensor of T bytes over n ranks, as ring and pairwise algorithms move them (uneven
// splits counted as even ones):
//
//   S -> B: T(n-1)/n   P -> B: 2T(n-1)/n   P -> S: T(n-1)/n   S(i) -> S(j): T(n-1)/n^2
//   B -> S, B -> P, S -> P, no change: 0
#ifndef ONEFLOW_LITE_FRAMEWORK_BOXING_H_
#define ONEFLOW_LITE_FRAMEWORK_BOXING_H_

#include <cstdint>
#include <string>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/framework/sbp.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {

namespace dist {
class Communicator;
}  // namespace dist

// The cost model above, times n^2 so that every value is a whole number and comparisons are
// exact (hence the same on every rank).
int64_t ScaledBoxingCost(const Sbp& from, const Sbp& to, int64_t bytes, int64_t world);
// The cost model's bytes a rank receives (ScaledBoxingCost / n^2, rounded down).
int64_t BoxingBytes(const Sbp& from, const Sbp& to, int64_t bytes, int64_t world);
// "none", "all-gather", "all-reduce", "reduce-scatter", "all-to-all", "local slice",
// "local zeros" (B -> P), "local scatter" (S -> P).
const char* BoxingMethod(const Sbp& from, const Sbp& to);

// One boxing step, as a trace shows it.
struct BoxingRecord {
  std::string arg;  // the op argument boxed, or "tensor" for a re-shard
  Sbp from;
  Sbp to;
  std::string method;  // BoxingMethod
  int64_t bytes = 0;   // BoxingBytes
};
std::string BoxingRecordToString(const BoxingRecord& record);  // "x: S(0) -> B all-gather 96 B"

// This rank's shard of a tensor of `global_shape` laid out as `from`, laid out as `to` (split
// axes in range). Every rank of `communicator` calls it with the same arguments but `shard`.
// Returns `shard` itself when nothing changes; else a new tensor or a view of `shard`.
Maybe<Tensor> BoxShard(const Tensor& shard, const Shape& global_shape, const Sbp& from,
                       const Sbp& to, dist::Communicator* communicator);

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_BOXING_H_
