#include "ops/transpose_ops.h"

#include <vector>

#include "oneflow_lite/framework/op_registry.h"

namespace oflite {
namespace ops {
namespace {

Maybe<void> InferTranspose(InferContext* ctx) {
  const TensorDesc& x = ctx->Input(kTransposeX);
  std::vector<int64_t> perm;
  OFLITE_ASSIGN_OR_RETURN(perm, ctx->attrs().Get<std::vector<int64_t>>(kTransposePerm));
  const int64_t rank = x.shape.rank();
  OFLITE_CHECK_OR_RETURN(static_cast<int64_t>(perm.size()) == rank, ValueError)
      << "transpose: perm has " << perm.size() << " entries for a tensor of rank " << rank
      << " (expected " << rank << ")";
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (size_t i = 0; i < perm.size(); ++i) {
    OFLITE_CHECK_OR_RETURN(perm[i] >= 0 && perm[i] < rank, IndexError)
        << "transpose: perm[" << i << "] = " << perm[i] << " is out of range for a tensor of rank "
        << rank << " (expected 0.." << rank - 1 << ")";
    OFLITE_CHECK_OR_RETURN(!seen[static_cast<size_t>(perm[i])], ValueError)
        << "transpose: perm repeats axis " << perm[i];
    seen[static_cast<size_t>(perm[i])] = true;
    dims[i] = x.shape[perm[i]];
  }
  *ctx->MutOutput(kTransposeY) = {Shape(dims), x.dtype};
  return Ok();
}

// A split of x's axis perm[i] becomes a split of y's axis i; broadcast and partial-sum pass
// through, as transpose only moves elements.
Maybe<std::vector<SbpSignature>> TransposeSbp(const InferContext& ctx) {
  std::vector<int64_t> perm;
  OFLITE_ASSIGN_OR_RETURN(perm, ctx.attrs().Get<std::vector<int64_t>>(kTransposePerm));
  std::vector<SbpSignature> signatures;
  auto add = [&](const Sbp& x, const Sbp& y) {
    signatures.push_back(SbpBuilder().Set(kTransposeX, x).Set(kTransposeY, y).Build());
  };
  for (size_t i = 0; i < perm.size(); ++i) {
    add(SplitSbp(perm[i]), SplitSbp(static_cast<int64_t>(i)));
  }
  add(BroadcastSbp(), BroadcastSbp());
  add(PartialSumSbp(), PartialSumSbp());
  return signatures;
}

OFLITE_REGISTER_OP(kTransposeOp)
    .Input(kTransposeX)
    .Output(kTransposeY)
    .Attr<std::vector<int64_t>>(kTransposePerm)
    .SetInferFn(InferTranspose)
    .SetSbpFn(TransposeSbp);

}  // namespace
}  // namespace ops
}  // namespace oflite
