// Proving one SBP signature of an op: split and broadcast the inputs of a case into k pieces as
// the signature says, run the op on every piece, rebuild each output (concatenate splits, sum
// partial sums, check broadcasts all equal the whole) and compare with the whole-tensor result.
//
// Errors allowed: every computed tensor may be off the truth by its tolerance, so a rebuilt
// output may differ from the whole result by the whole result's budget plus the budget of
// every piece that went into it (a sum of k partial results: k + 1 budgets).
//
// Partial-sum inputs are split exactly, so the pieces sum back to precisely the input:
// floating values as v * w_i with weights ±2^e summing to 1 (scaling by a power of two never
// rounds, unless it leaves the dtype's normal range: then v goes whole to one piece), integers and
// bool as whole numbers of the dtype (integer sums are meaningful: a sum op over int32 may list P).
// Partial-sum outputs of integer dtypes are summed modulo the dtype, as the kernels' own arithmetic
// wraps.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_SBP_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_SBP_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/dist/communicator.h"
#include "oneflow_lite/framework/op_schema.h"
#include "oneflow_lite/framework/op_test_spec.h"

namespace oflite {
namespace optest {

// [begin, end) of piece i when a dim of `dim` elements is split in k, as OneFlow's
// BalancedSplitter does: sizes differ by at most one, the first dim % k pieces get the extra
// element, and a dim smaller than k leaves the last pieces empty.
struct PieceRange {
  int64_t begin = 0;
  int64_t end = 0;
};
PieceRange BalancedRange(int64_t dim, int64_t k, int64_t i);

// The elements of t with index `range` along `axis`.
HostTensor SliceAxis(const HostTensor& t, int64_t axis, PieceRange range);
// Pieces of one rank and dtype, equal in every dim but `axis`, joined along it.
HostTensor ConcatAxis(const std::vector<HostTensor>& pieces, int64_t axis);
// k tensors of t's shape and dtype whose element-wise sum is exactly t (see above).
std::vector<HostTensor> PartialSumParts(const HostTensor& t, int64_t k, CaseRng& rng);

// One case of an op as run whole on a device: what signatures are checked against.
struct SbpCase {
  const OpSchema& schema;
  const std::vector<HostTensor>& inputs;
  const AttrMap& attrs;                    // complete
  const std::vector<HostTensor>& outputs;  // the whole-tensor results on `device`
  Device device;
  std::function<Tolerance(DataType)> tolerance;  // of an output dtype
};

// Ok when `signature` holds for `c` with k pieces; otherwise a RuntimeError
// "<op>: signature <S> does not hold with k=<k> pieces: <why>". `seed` draws the partial sums.
Maybe<void> CheckSbpSignature(const SbpCase& c, const SbpSignature& signature, int64_t k,
                              uint64_t seed);

// The same on real ranks: every rank of `comm` (a CPU communicator: the pieces travel as host
// values) draws the same pieces, runs the op on its own one on c.device, and the ranks gather
// every piece's outputs to rebuild and compare them alike, so every rank comes to the same
// verdict. A piece that fails on some rank is that verdict on all of them, not a hang.
Maybe<void> CheckSbpSignatureOnRanks(const SbpCase& c, const SbpSignature& signature,
                                     dist::Communicator* comm, uint64_t seed);

}  // namespace optest
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_SBP_H_
