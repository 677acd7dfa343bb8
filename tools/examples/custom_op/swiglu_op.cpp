// The swiglu op: its signature, shape and dtype inference, and SBP signatures. OFLITE_OP_LIBRARY()
// marks the shared library as an op library that LoadOpLibrary and `oflite --load` accept.
#include "swiglu.h"

namespace example {
namespace {

using oflite::InferContext;
using oflite::Maybe;
using oflite::SbpBuilder;
using oflite::SbpSignature;
using oflite::TensorDesc;

Maybe<void> InferSwiglu(InferContext* ctx) {
  const TensorDesc& x = ctx->Input(kSwigluX);
  const TensorDesc& gate = ctx->Input(kSwigluGate);
  OFLITE_CHECK_OR_RETURN(x.shape == gate.shape, ValueError)
      << "swiglu: x and gate must have the same shape, got x " << x.shape << " and gate "
      << gate.shape;
  OFLITE_CHECK_OR_RETURN(x.dtype == gate.dtype, TypeError)
      << "swiglu: x and gate must have the same dtype, got x " << x.dtype << " and gate "
      << gate.dtype;
  *ctx->MutOutput(kSwigluY) = x;
  return oflite::Ok();
}

// Elements are independent, so every axis may be split, all arguments alike, or everything is
// whole (B). y is linear in x: with gate whole, partial sums of x give partial sums of y.
Maybe<std::vector<SbpSignature>> SwigluSbp(const InferContext& ctx) {
  std::vector<SbpSignature> signatures;
  for (int64_t axis = 0; axis < ctx.Input(kSwigluX).shape.rank(); ++axis) {
    signatures.push_back(SbpBuilder().Split({kSwigluX, kSwigluGate, kSwigluY}, axis).Build());
  }
  signatures.push_back(SbpBuilder().Broadcast({kSwigluX, kSwigluGate, kSwigluY}).Build());
  signatures.push_back(
      SbpBuilder().PartialSum({kSwigluX, kSwigluY}).Broadcast(kSwigluGate).Build());
  return signatures;
}

// The whole declaration in one line: the name, the inputs in order, attributes with their types
// and defaults (swiglu has none), and the outputs. swiglu.h names the same arguments.
OFLITE_REGISTER_OP("example.swiglu(Tensor x, Tensor gate) -> Tensor y")
    .SetInferFn(InferSwiglu)
    .SetSbpFn(SwigluSbp);

}  // namespace
}  // namespace example

OFLITE_OP_LIBRARY();
