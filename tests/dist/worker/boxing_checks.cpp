#include "tests/dist/worker/boxing_checks.h"

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "oneflow_lite/dist/process_group.h"
#include "oneflow_lite/framework/global_tensor.h"
#include "oneflow_lite/functional/functional.h"
#include "oneflow_lite/functional/global.h"

namespace oflite {
namespace dist_test {

namespace {

// Values every rank makes alike: small integers, so sums and products are exact in float32.
Maybe<Tensor> Whole(const Shape& shape, int seed, const Device& device) {
  std::vector<float> values(static_cast<size_t>(shape.elem_cnt()));
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(static_cast<int>((i * 7 + static_cast<size_t>(seed)) % 11) - 5);
  }
  return Tensor::FromVector<float>(values, shape, device);
}

// The elements of `whole` whose index along `axis` lies in [begin, end), in order.
std::vector<float> Slice(const std::vector<float>& whole, const Shape& shape, int64_t axis,
                         SplitRange range) {
  const int64_t inner = shape.Count(axis + 1, shape.rank());
  std::vector<float> out;
  for (size_t e = 0; e < whole.size(); ++e) {
    const int64_t at = static_cast<int64_t>(e) / inner % shape[axis];
    if (at >= range.begin && at < range.begin + range.size) {
      out.push_back(whole[e]);
    }
  }
  return out;
}

Maybe<void> Expect(bool held, const std::string& what) {
  OFLITE_CHECK_OR_RETURN(held, RuntimeError) << "rank " << dist::Rank() << ": " << what;
  return Ok();
}

// this rank's shard of `to` (S: the slice, B: the whole) and the whole after gathering.
Maybe<void> CheckPair(const Tensor& whole, const Placement& placement, const Sbp& from,
                      const Sbp& to) {
  const std::string pair = SbpToString(from) + " -> " + SbpToString(to);
  std::vector<float> values;
  OFLITE_ASSIGN_OR_RETURN(values, whole.ToVector<float>());
  GlobalTensor g;
  OFLITE_ASSIGN_OR_RETURN(g, GlobalTensor::FromWhole(whole, placement, {from}));
  GlobalTensor h;
  OFLITE_ASSIGN_OR_RETURN(h, g.ToGlobal(placement, {to}));
  OFLITE_JUST(Expect(h.shape() == whole.shape() && h.sbp()[0] == to, pair + ": global meta"));
  std::vector<float> local;
  OFLITE_ASSIGN_OR_RETURN(local, h.local().ToVector<float>());
  if (to.is_split()) {
    const SplitRange range =
        BalancedSplit(whole.shape()[to.axis()], dist::WorldSize(), dist::Rank());
    OFLITE_JUST(Expect(local == Slice(values, whole.shape(), to.axis(), range),
                       pair + ": this rank's shard"));
  } else if (to.is_broadcast()) {
    OFLITE_JUST(Expect(local == values, pair + ": the broadcast copy"));
  }
  GlobalTensor gathered;
  OFLITE_ASSIGN_OR_RETURN(gathered, h.ToGlobal(placement, {BroadcastSbp()}));
  std::vector<float> back;
  OFLITE_ASSIGN_OR_RETURN(back, gathered.local().ToVector<float>());
  return Expect(back == values, pair + " -> B: the whole tensor");
}

// a (5, 7) @ w (7, 3) with the operands laid out as given, against the local product.
Maybe<void> CheckMatMul(const Tensor& a, const Tensor& w, const Placement& placement,
                        const Sbp& a_sbp, const Sbp& w_sbp) {
  const std::string what =
      "matmul a:" + SbpToString(a_sbp) + " w:" + SbpToString(w_sbp) + ", gathered";
  GlobalTensor ga, gw, product, whole;
  OFLITE_ASSIGN_OR_RETURN(ga, GlobalTensor::FromWhole(a, placement, {a_sbp}));
  OFLITE_ASSIGN_OR_RETURN(gw, GlobalTensor::FromWhole(w, placement, {w_sbp}));
  OFLITE_ASSIGN_OR_RETURN(product, functional::MatMul(ga, gw));
  OFLITE_ASSIGN_OR_RETURN(whole, product.ToGlobal(placement, {BroadcastSbp()}));
  Tensor expected;
  OFLITE_ASSIGN_OR_RETURN(expected, functional::MatMul(a, w));
  std::vector<float> got, want;
  OFLITE_ASSIGN_OR_RETURN(got, whole.local().ToVector<float>());
  OFLITE_ASSIGN_OR_RETURN(want, expected.ToVector<float>());
  return Expect(got == want, what);
}

// MatMul naming the output's SBP against the local product: a B and w split over its columns
// (on CUDA the product travels in row chunks), w transposed, and an output SBP it has to box to.
Maybe<int64_t> CheckMatMulOutSbp(const Placement& placement, const Device& device) {
  int64_t checks = 0;
  // (m, k, n): uneven columns; more rows than chunks; a window larger than the first.
  for (const auto& [m, k, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {5, 7, 3}, {37, 16, 13}, {1024, 64, 1030}}) {
    Tensor a, w;
    OFLITE_ASSIGN_OR_RETURN(a, Whole(Shape{m, k}, 5, device));
    OFLITE_ASSIGN_OR_RETURN(w, Whole(Shape{k, n}, 6, device));
    for (const bool transpose_b : {false, true}) {
      for (const Sbp& out_sbp : {BroadcastSbp(), SplitSbp(0)}) {
        const std::string what = "matmul (" + std::to_string(m) + ", " + std::to_string(k) + ", " +
                                 std::to_string(n) + ") transpose_b " +
                                 std::to_string(transpose_b) + " out " + SbpToString(out_sbp);
        Tensor b = w;
        if (transpose_b) {
          OFLITE_ASSIGN_OR_RETURN(b, functional::Transpose(w, {1, 0}));
        }
        GlobalTensor ga, gb, product;
        OFLITE_ASSIGN_OR_RETURN(ga, GlobalTensor::FromWhole(a, placement, {BroadcastSbp()}));
        OFLITE_ASSIGN_OR_RETURN(
            gb, GlobalTensor::FromWhole(b, placement, {SplitSbp(transpose_b ? 0 : 1)}));
        OFLITE_ASSIGN_OR_RETURN(product,
                                functional::MatMul(ga, gb, {out_sbp}, false, transpose_b, 2.0));
        OFLITE_JUST(Expect(product.shape() == Shape({m, n}) && product.sbp()[0] == out_sbp,
                           what + ": global meta"));
        Tensor expected;
        OFLITE_ASSIGN_OR_RETURN(expected, functional::MatMul(a, w, false, false, 2.0));
        std::vector<float> got, want;
        OFLITE_ASSIGN_OR_RETURN(got, product.local().ToVector<float>());
        OFLITE_ASSIGN_OR_RETURN(want, expected.ToVector<float>());
        if (out_sbp.is_split()) {
          want = Slice(want, Shape{m, n}, 0, BalancedSplit(m, dist::WorldSize(), dist::Rank()));
        }
        OFLITE_JUST(Expect(got == want, what));
        ++checks;
      }
    }
  }
  return checks;
}

}  // namespace

Maybe<int64_t> CheckBoxing(const Device& device) {
  std::vector<int> ranks;
  for (int r = 0; r < dist::WorldSize(); ++r) {
    ranks.push_back(r);
  }
  const Placement placement(device.type(), ranks);
  Tensor x, a, w;
  OFLITE_ASSIGN_OR_RETURN(x, Whole(Shape{5, 7}, 1, device));  // 5 and 7 split unevenly
  OFLITE_ASSIGN_OR_RETURN(a, Whole(Shape{5, 7}, 2, device));
  OFLITE_ASSIGN_OR_RETURN(w, Whole(Shape{7, 3}, 3, device));
  const std::vector<Sbp> sbps = {SplitSbp(0), SplitSbp(1), BroadcastSbp(), PartialSumSbp()};
  int64_t checks = 0;
  for (const Sbp& from : sbps) {
    for (const Sbp& to : sbps) {
      OFLITE_JUST(CheckPair(x, placement, from, to));
      ++checks;
    }
  }
  // A rank-3 tensor: even parts along every axis on two or four ranks (S(0) -> S(j)'s one-pack
  // route), axis 2 split unevenly on three.
  Tensor even;
  OFLITE_ASSIGN_OR_RETURN(even, Whole(Shape{12, 6, 8}, 4, device));
  for (const auto& [from, to] : std::vector<std::pair<Sbp, Sbp>>{
           {SplitSbp(0), SplitSbp(1)}, {SplitSbp(0), SplitSbp(2)}, {SplitSbp(1), SplitSbp(0)}}) {
    OFLITE_JUST(CheckPair(even, placement, from, to));
    ++checks;
  }
  const std::vector<std::pair<Sbp, Sbp>> layouts = {{SplitSbp(0), BroadcastSbp()},
                                                    {BroadcastSbp(), SplitSbp(1)},
                                                    {SplitSbp(1), SplitSbp(0)},
                                                    {PartialSumSbp(), BroadcastSbp()}};
  for (const auto& [a_sbp, w_sbp] : layouts) {
    OFLITE_JUST(CheckMatMul(a, w, placement, a_sbp, w_sbp));
    ++checks;
  }
  int64_t out_sbp_checks = 0;
  OFLITE_ASSIGN_OR_RETURN(out_sbp_checks, CheckMatMulOutSbp(placement, device));
  return checks + out_sbp_checks;
}

}  // namespace dist_test
}  // namespace oflite
