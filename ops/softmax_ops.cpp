#include "ops/softmax_ops.h"

#include "oneflow_lite/framework/op_registry.h"

namespace oflite {
namespace ops {
namespace {

// Rows are independent, so any axis but the last (the softmax axis) may be split; every
// argument splits alike. The grads are linear in dy, so (y broadcast, dy and dx partial-sum)
// is valid for them too.
std::vector<SbpSignature> SplitRowsOrBroadcast(const InferContext& ctx, bool linear_in_dy) {
  std::vector<std::string> args = ctx.schema().inputs();
  args.insert(args.end(), ctx.schema().outputs().begin(), ctx.schema().outputs().end());
  const int64_t rank = ctx.inputs()[0].shape.rank();
  std::vector<SbpSignature> signatures;
  auto all_alike = [&](const Sbp& sbp) {
    SbpBuilder signature;
    for (const std::string& arg : args) {
      signature.Set(arg, sbp);
    }
    signatures.push_back(signature.Build());
  };
  for (int64_t axis = 0; axis + 1 < rank; ++axis) {
    all_alike(SplitSbp(axis));
  }
  all_alike(BroadcastSbp());
  if (linear_in_dy) {
    signatures.push_back(
        SbpBuilder().Broadcast(kSoftmaxY).PartialSum({kSoftmaxDy, kSoftmaxDx}).Build());
  }
  return signatures;
}

Maybe<std::vector<SbpSignature>> ForwardSbp(const InferContext& ctx) {
  return SplitRowsOrBroadcast(ctx, /*linear_in_dy=*/false);
}

Maybe<std::vector<SbpSignature>> GradSbp(const InferContext& ctx) {
  return SplitRowsOrBroadcast(ctx, /*linear_in_dy=*/true);
}

Maybe<void> InferGrad(InferContext* ctx) {
  const TensorDesc& y = ctx->Input(kSoftmaxY);
  const TensorDesc& dy = ctx->Input(kSoftmaxDy);
  OFLITE_CHECK_OR_RETURN(y.shape == dy.shape, ValueError)
      << ctx->op_type() << ": y and dy must have the same shape, got y " << y.shape << " and dy "
      << dy.shape;
  OFLITE_CHECK_OR_RETURN(y.dtype == dy.dtype, TypeError)
      << ctx->op_type() << ": y and dy must have the same dtype, got y " << y.dtype << " and dy "
      << dy.dtype;
  *ctx->MutOutput(kSoftmaxDx) = y;
  return Ok();
}

OFLITE_REGISTER_OP(kSoftmaxOp)
    .Input(kSoftmaxX)
    .Output(kSoftmaxY)
    .SetInferFn(InferSameAsInput(kSoftmaxX, kSoftmaxY))
    .SetSbpFn(ForwardSbp);

OFLITE_REGISTER_OP(kLogSoftmaxOp)
    .Input(kSoftmaxX)
    .Output(kSoftmaxY)
    .SetInferFn(InferSameAsInput(kSoftmaxX, kSoftmaxY))
    .SetSbpFn(ForwardSbp);

OFLITE_REGISTER_OP(kSoftmaxGradOp)
    .Input(kSoftmaxY)
    .Input(kSoftmaxDy)
    .Output(kSoftmaxDx)
    .SetInferFn(InferGrad)
    .SetSbpFn(GradSbp);

OFLITE_REGISTER_OP(kLogSoftmaxGradOp)
    .Input(kSoftmaxY)
    .Input(kSoftmaxDy)
    .Output(kSoftmaxDx)
    .SetInferFn(InferGrad)
    .SetSbpFn(GradSbp);

}  // namespace
}  // namespace ops
}  // namespace oflite
