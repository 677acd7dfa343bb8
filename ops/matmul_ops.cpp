#include "ops/matmul_ops.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "oneflow_lite/framework/op_registry.h"
#include "primitive/broadcast_dims.h"

namespace oflite {
namespace ops {
namespace {

struct Transposes {
  bool a = false;
  bool b = false;
};

Maybe<Transposes> GetTransposes(const AttrMap& attrs) {
  Transposes t;
  OFLITE_ASSIGN_OR_RETURN(t.a, attrs.Get<bool>(kMatmulTransposeA));
  OFLITE_ASSIGN_OR_RETURN(t.b, attrs.Get<bool>(kMatmulTransposeB));
  return t;
}

// Axes of the matrix dims, counted in each operand: a is (.., m, k), or (.., k, m) transposed;
// b is (.., k, n), or (.., n, k) transposed.
int64_t RowAxisOfA(const Shape& a, const Transposes& t) { return a.rank() - (t.a ? 1 : 2); }
int64_t InnerAxisOfA(const Shape& a, const Transposes& t) { return a.rank() - (t.a ? 2 : 1); }
int64_t InnerAxisOfB(const Shape& b, const Transposes& t) { return b.rank() - (t.b ? 1 : 2); }
int64_t ColAxisOfB(const Shape& b, const Transposes& t) { return b.rank() - (t.b ? 2 : 1); }

std::string TransposeNote(const Transposes& t) {
  if (!t.a && !t.b) {
    return "";
  }
  return std::string(" (after ") +
         (t.a && t.b ? "transpose_a and transpose_b"
          : t.a      ? "transpose_a"
                     : "transpose_b") +
         ")";
}

// Rank, dtype and inner-dim checks both ops share; min_rank = max_rank = 2 for matmul.
Maybe<Transposes> CheckOperands(const InferContext& ctx, bool batched) {
  const TensorDesc& a = ctx.Input(kMatmulA);
  const TensorDesc& b = ctx.Input(kMatmulB);
  const char* expected = batched ? "rank >= 2" : "rank 2";
  for (const auto& [name, desc] : {std::make_pair(kMatmulA, &a), std::make_pair(kMatmulB, &b)}) {
    const bool ok = batched ? desc->shape.rank() >= 2 : desc->shape.rank() == 2;
    OFLITE_CHECK_OR_RETURN(ok, ValueError)
        << ctx.op_type() << ": " << name << " must have " << expected << ", got rank "
        << desc->shape.rank() << " (shape " << desc->shape << ")"
        << (ctx.op_type() == kMatmulOp ? "; batch_matmul multiplies batches of matrices" : "");
  }
  Transposes t;
  OFLITE_ASSIGN_OR_RETURN(t, GetTransposes(ctx.attrs()));
  const int64_t ka = a.shape[InnerAxisOfA(a.shape, t)];
  const int64_t kb = b.shape[InnerAxisOfB(b.shape, t)];
  OFLITE_CHECK_OR_RETURN(ka == kb, ValueError)
      << ctx.op_type() << ": a " << a.shape << " and b " << b.shape << ": inner dims " << ka
      << " and " << kb << " differ" << TransposeNote(t);
  OFLITE_CHECK_OR_RETURN(a.dtype == b.dtype, TypeError)
      << ctx.op_type() << ": a and b must have the same dtype, got a " << a.dtype << " and b "
      << b.dtype;
  OFLITE_CHECK_OR_RETURN(IsFloatingDataType(a.dtype), NotImplemented)
      << ctx.op_type() << ": dtype " << a.dtype
      << " is not supported: matrix products are implemented for the floating dtypes only "
         "(float32, float64, float16, bfloat16), not for integer or bool tensors";
  return t;
}

Maybe<void> InferMatmul(InferContext* ctx) {
  Transposes t;
  OFLITE_ASSIGN_OR_RETURN(t, CheckOperands(*ctx, /*batched=*/false));
  const Shape& a = ctx->Input(kMatmulA).shape;
  const Shape& b = ctx->Input(kMatmulB).shape;
  *ctx->MutOutput(kMatmulOut) = {Shape{a[RowAxisOfA(a, t)], b[ColAxisOfB(b, t)]},
                                 ctx->Input(kMatmulA).dtype};
  return Ok();
}

Maybe<void> InferBatchMatmul(InferContext* ctx) {
  Transposes t;
  OFLITE_ASSIGN_OR_RETURN(t, CheckOperands(*ctx, /*batched=*/true));
  const Shape& a = ctx->Input(kMatmulA).shape;
  const Shape& b = ctx->Input(kMatmulB).shape;
  const std::vector<int64_t> batch_a(a.dims().begin(), a.dims().end() - 2);
  const std::vector<int64_t> batch_b(b.dims().begin(), b.dims().end() - 2);
  const auto batch = primitive::BroadcastShape(batch_a, batch_b);
  OFLITE_CHECK_OR_RETURN(batch.ok(), ValueError)
      << ctx->op_type() << ": a " << a << " and b " << b << ": batch dims " << Shape(batch_a)
      << " and " << Shape(batch_b) << " do not broadcast";
  std::vector<int64_t> out = batch.value();
  out.push_back(a[RowAxisOfA(a, t)]);
  out.push_back(b[ColAxisOfB(b, t)]);
  *ctx->MutOutput(kMatmulOut) = {Shape(std::move(out)), ctx->Input(kMatmulA).dtype};
  return Ok();
}

// fused_matmul_bias_act: matmul's checks, then the bias (1-D, n long, a's dtype) and the
// activation's name.
Maybe<void> InferFusedMatmulBiasAct(InferContext* ctx) {
  Transposes t;
  OFLITE_ASSIGN_OR_RETURN(t, CheckOperands(*ctx, /*batched=*/false));
  std::string activation;
  OFLITE_ASSIGN_OR_RETURN(activation, ctx->attrs().Get<std::string>(kFusedMatmulActivation));
  const bool known =
      std::any_of(std::begin(kFusedMatmulActivations), std::end(kFusedMatmulActivations),
                  [&](const char* name) { return activation == name; });
  OFLITE_CHECK_OR_RETURN(known, ValueError)
      << ctx->op_type() << ": unknown activation \"" << activation
      << "\" (expected \"none\", \"relu\", \"gelu\", \"gelu_tanh\" or \"leaky_relu\")";
  const Shape& a = ctx->Input(kMatmulA).shape;
  const Shape& b = ctx->Input(kMatmulB).shape;
  const TensorDesc& bias = ctx->Input(kFusedMatmulBias);
  const int64_t n = b[ColAxisOfB(b, t)];
  OFLITE_CHECK_OR_RETURN(bias.shape.rank() == 1 && bias.shape[0] == n, ValueError)
      << ctx->op_type() << ": bias must have shape " << Shape{n} << " (one value per column of "
      << "the product of a " << a << " and b " << b << TransposeNote(t) << "), got " << bias.shape;
  OFLITE_CHECK_OR_RETURN(bias.dtype == ctx->Input(kMatmulA).dtype, TypeError)
      << ctx->op_type() << ": bias must have a's dtype " << ctx->Input(kMatmulA).dtype << ", got "
      << bias.dtype;
  *ctx->MutOutput(kMatmulOut) = {Shape{a[RowAxisOfA(a, t)], n}, ctx->Input(kMatmulA).dtype};
  return Ok();
}

// ---- SBP ------------------------------------------------------------------------------------

SbpSignature Signature(const Sbp& a, const Sbp& b, const Sbp& out) {
  return SbpBuilder().Set(kMatmulA, a).Set(kMatmulB, b).Set(kMatmulOut, out).Build();
}

// Batch axes first (an operand with the axis at full size splits along it, one that broadcasts
// there is broadcast), then the matrix rules: rows of a with b broadcast split out's rows;
// columns of b with a broadcast split its columns; splitting the inner dim of both gives partial
// sums; and the product is linear in each operand (P x B and B x P give P). Axes of size 1 are
// not split. matmul is the case without batch axes.
Maybe<std::vector<SbpSignature>> MatmulSignatures(const InferContext& ctx) {
  Transposes t;
  OFLITE_ASSIGN_OR_RETURN(t, GetTransposes(ctx.attrs()));
  const Shape& a = ctx.Input(kMatmulA).shape;
  const Shape& b = ctx.Input(kMatmulB).shape;
  const int64_t out_rank = std::max(a.rank(), b.rank());
  const Sbp B = BroadcastSbp(), P = PartialSumSbp();
  std::vector<SbpSignature> signatures;
  for (const BroadcastSplit& s : BroadcastSplits(a, b, out_rank - 2)) {
    signatures.push_back(Signature(s.a, s.b, SplitSbp(s.axis)));
  }
  if (a[RowAxisOfA(a, t)] != 1) {
    signatures.push_back(Signature(SplitSbp(RowAxisOfA(a, t)), B, SplitSbp(out_rank - 2)));
  }
  if (b[ColAxisOfB(b, t)] != 1) {
    signatures.push_back(Signature(B, SplitSbp(ColAxisOfB(b, t)), SplitSbp(out_rank - 1)));
  }
  if (a[InnerAxisOfA(a, t)] != 1) {
    signatures.push_back(Signature(SplitSbp(InnerAxisOfA(a, t)), SplitSbp(InnerAxisOfB(b, t)), P));
  }
  signatures.push_back(Signature(B, B, B));
  signatures.push_back(Signature(P, B, P));
  signatures.push_back(Signature(B, P, P));
  return signatures;
}

SbpSignature FusedSignature(const Sbp& a, const Sbp& b, const Sbp& bias, const Sbp& out) {
  return SbpBuilder()
      .Set(kMatmulA, a)
      .Set(kMatmulB, b)
      .Set(kFusedMatmulBias, bias)
      .Set(kMatmulOut, out)
      .Build();
}

// Rows of a with b and the bias broadcast split out's rows; columns of b with the bias split
// alike and a broadcast split its columns; all broadcast. No partial sums: a partial bias or
// product would go through the activation piecewise (and a broadcast bias be added twice).
Maybe<std::vector<SbpSignature>> FusedMatmulBiasActSignatures(const InferContext& ctx) {
  Transposes t;
  OFLITE_ASSIGN_OR_RETURN(t, GetTransposes(ctx.attrs()));
  const Shape& a = ctx.Input(kMatmulA).shape;
  const Shape& b = ctx.Input(kMatmulB).shape;
  const Sbp B = BroadcastSbp();
  std::vector<SbpSignature> signatures;
  if (a[RowAxisOfA(a, t)] != 1) {
    signatures.push_back(FusedSignature(SplitSbp(RowAxisOfA(a, t)), B, B, SplitSbp(0)));
  }
  if (b[ColAxisOfB(b, t)] != 1) {
    signatures.push_back(FusedSignature(B, SplitSbp(ColAxisOfB(b, t)), SplitSbp(0), SplitSbp(1)));
  }
  signatures.push_back(FusedSignature(B, B, B, B));
  return signatures;
}

// ---- registration ---------------------------------------------------------------------------

OFLITE_REGISTER_OP(kMatmulOp)
    .Input(kMatmulA)
    .Input(kMatmulB)
    .Output(kMatmulOut)
    .Attr<bool>(kMatmulTransposeA, false)
    .Attr<bool>(kMatmulTransposeB, false)
    .Attr<double>(kMatmulAlpha, 1.0)
    .SetInferFn(InferMatmul)
    .SetSbpFn(MatmulSignatures);

OFLITE_REGISTER_OP(kBatchMatmulOp)
    .Input(kMatmulA)
    .Input(kMatmulB)
    .Output(kMatmulOut)
    .Attr<bool>(kMatmulTransposeA, false)
    .Attr<bool>(kMatmulTransposeB, false)
    .Attr<double>(kMatmulAlpha, 1.0)
    .SetInferFn(InferBatchMatmul)
    .SetSbpFn(MatmulSignatures);

OFLITE_REGISTER_OP(kFusedMatmulBiasActOp)
    .Input(kMatmulA)
    .Input(kMatmulB)
    .Input(kFusedMatmulBias)
    .Output(kMatmulOut)
    .Attr<bool>(kMatmulTransposeA, false)
    .Attr<bool>(kMatmulTransposeB, false)
    .Attr<std::string>(kFusedMatmulActivation, std::string("none"))
    .Attr<double>(kFusedMatmulLeakyAlpha, 0.01)
    .SetInferFn(InferFusedMatmulBiasAct)
    .SetSbpFn(FusedMatmulBiasActSignatures);

}  // namespace
}  // namespace ops
}  // namespace oflite
