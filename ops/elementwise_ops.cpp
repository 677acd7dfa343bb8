#include "ops/elementwise_ops.h"

#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "oneflow_lite/framework/op_registry.h"
#include "primitive/broadcast_dims.h"

namespace oflite {
namespace ops {

using primitive::BinaryOp;
using primitive::UnaryOp;

bool IsGradOp(BinaryOp op) {
  switch (op) {
    case BinaryOp::kReluGrad:
    case BinaryOp::kSigmoidGrad:
    case BinaryOp::kTanhGrad:
    case BinaryOp::kGeluGrad:
    case BinaryOp::kGeluTanhGrad:
    case BinaryOp::kSiluGrad:
    case BinaryOp::kLeakyReluGrad:
      return true;
    default:
      return false;
  }
}

const std::vector<BinaryOp>& BinaryOpTypes() {
  static const std::vector<BinaryOp> ops = [] {
    std::vector<BinaryOp> all;
#define OFLITE_BINARY_OP_TYPE(enumerator, name) \
  if (BinaryOp::enumerator != BinaryOp::kGeluTanhGrad) all.push_back(BinaryOp::enumerator);
    OFLITE_BINARY_OP_LIST(OFLITE_BINARY_OP_TYPE)
#undef OFLITE_BINARY_OP_TYPE
    return all;
  }();
  return ops;
}

const std::vector<UnaryOp>& UnaryOpTypes() {
  static const std::vector<UnaryOp> ops = [] {
    std::vector<UnaryOp> all;
#define OFLITE_UNARY_OP_TYPE(enumerator, name) \
  if (UnaryOp::enumerator != UnaryOp::kGeluTanh) all.push_back(UnaryOp::enumerator);
    OFLITE_UNARY_OP_LIST(OFLITE_UNARY_OP_TYPE)
#undef OFLITE_UNARY_OP_TYPE
    return all;
  }();
  return ops;
}

const char* GradOperand(BinaryOp op) {
  return op == BinaryOp::kReluGrad || op == BinaryOp::kSigmoidGrad || op == BinaryOp::kTanhGrad
             ? kGradY
             : kGradX;
}

std::string ScalarOpType(BinaryOp op) { return std::string("scalar_") + BinaryOpName(op); }

bool BinaryOpAccepts(BinaryOp op, DataType dtype) {
  if (op == BinaryOp::kDiv || IsGradOp(op)) {
    return IsFloatingDataType(dtype);
  }
  if (dtype == DataType::kBool) {
    return op != BinaryOp::kSub && op != BinaryOp::kPow;
  }
  return true;
}

bool UnaryOpAccepts(UnaryOp op, DataType dtype) {
  switch (op) {
    case UnaryOp::kNeg:
    case UnaryOp::kAbs:
    case UnaryOp::kRelu:
      return dtype != DataType::kBool;
    default:
      return IsFloatingDataType(dtype);
  }
}

namespace {

// ---- inference ------------------------------------------------------------------------------

Maybe<void> CheckApproximate(const InferContext& ctx) {
  std::string form;
  OFLITE_ASSIGN_OR_RETURN(form, ctx.attrs().Get<std::string>(kApproximate));
  OFLITE_CHECK_OR_RETURN(form == "none" || form == "tanh", ValueError)
      << ctx.op_type() << ": approximate must be \"none\" or \"tanh\", got \"" << form << "\"";
  return Ok();
}

std::string RefusalHint(BinaryOp op, DataType dtype) {
  if (dtype == DataType::kBool && op == BinaryOp::kSub) {
    return " (bool tensors cannot be subtracted, as in PyTorch; use a logical op instead)";
  }
  if (op == BinaryOp::kDiv) {
    return " (functional::Div promotes integer operands to float32)";
  }
  return "";
}

// The largest value of an integer dtype (bool: 1).
int64_t IntegerMax(DataType dtype) {
  return VisitDataType(dtype, [](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return static_cast<int64_t>(std::numeric_limits<T>::max());
    } else {
      return int64_t{0};  // not an integer dtype; never asked
    }
  });
}

// x ** s with an integer x and a negative integer s has no integer result, and an s past x's
// dtype would wrap in the kernel's arithmetic (int8 ** 256 as ** 0): PyTorch refuses both.
Maybe<void> CheckIntegerPower(const InferContext& ctx, DataType dtype) {
  bool scalar_first = false, has_float = false;
  int64_t exponent = 0;
  OFLITE_ASSIGN_OR_RETURN(scalar_first, ctx.attrs().Get<bool>(kScalarFirst));
  OFLITE_ASSIGN_OR_RETURN(has_float, ctx.attrs().Get<bool>(kScalarHasFloatOperand));
  OFLITE_ASSIGN_OR_RETURN(exponent, ctx.attrs().Get<int64_t>(kScalarIntOperand));
  if (scalar_first || has_float || IsFloatingDataType(dtype)) {
    return Ok();
  }
  OFLITE_CHECK_OR_RETURN(exponent >= 0, ValueError)
      << "pow: integers to negative integer powers are not allowed (exponent " << exponent
      << ", base dtype " << dtype << "), as in PyTorch";
  OFLITE_CHECK_OR_RETURN(exponent <= IntegerMax(dtype), ValueError)
      << "pow: exponent " << exponent << " does not fit the base dtype " << dtype << " (at most "
      << IntegerMax(dtype) << "), as in PyTorch";
  return Ok();
}

Maybe<void> InferScalarBinary(InferContext* ctx, BinaryOp op) {
  const TensorDesc& x = ctx->Input(kScalarX);
  OFLITE_CHECK_OR_RETURN(BinaryOpAccepts(op, x.dtype), TypeError)
      << ctx->op_type() << ": dtype " << x.dtype << " is not supported" << RefusalHint(op, x.dtype);
  if (op == BinaryOp::kPow) {
    OFLITE_JUST(CheckIntegerPower(*ctx, x.dtype));
  }
  *ctx->MutOutput(kScalarY) = {x.shape, primitive::IsComparison(op) ? DataType::kBool : x.dtype};
  return Ok();
}

Maybe<void> InferBinary(InferContext* ctx, BinaryOp op) {
  const TensorDesc& x = ctx->Input(kBinaryX);
  const TensorDesc& y = ctx->Input(kBinaryY);
  OFLITE_CHECK_OR_RETURN(x.dtype == y.dtype, TypeError)
      << ctx->op_type() << ": x and y must have the same dtype (functional calls promote), got x "
      << x.dtype << " and y " << y.dtype;
  OFLITE_CHECK_OR_RETURN(BinaryOpAccepts(op, x.dtype), TypeError)
      << ctx->op_type() << ": dtype " << x.dtype << " is not supported" << RefusalHint(op, x.dtype);
  const auto broadcast = primitive::BroadcastShape(x.shape.dims(), y.shape.dims());
  OFLITE_CHECK_OR_RETURN(broadcast.ok(), ValueError)
      << ctx->op_type() << ": " << broadcast.error().message();
  *ctx->MutOutput(kBinaryZ) = {Shape(broadcast.value()),
                               primitive::IsComparison(op) ? DataType::kBool : x.dtype};
  return Ok();
}

Maybe<void> InferGrad(InferContext* ctx, BinaryOp op) {
  const char* other_name = GradOperand(op);
  const TensorDesc& dy = ctx->Input(kGradDy);
  const TensorDesc& other = ctx->Input(other_name);
  OFLITE_CHECK_OR_RETURN(dy.shape == other.shape, ValueError)
      << ctx->op_type() << ": dy and " << other_name << " must have the same shape, got dy "
      << dy.shape << " and " << other_name << " " << other.shape;
  OFLITE_CHECK_OR_RETURN(dy.dtype == other.dtype, TypeError)
      << ctx->op_type() << ": dy and " << other_name << " must have the same dtype, got dy "
      << dy.dtype << " and " << other_name << " " << other.dtype;
  OFLITE_CHECK_OR_RETURN(IsFloatingDataType(dy.dtype), TypeError)
      << ctx->op_type() << ": dy must have a floating dtype, got " << dy.dtype;
  if (op == BinaryOp::kGeluGrad) {
    OFLITE_JUST(CheckApproximate(*ctx));
  }
  *ctx->MutOutput(kGradDx) = dy;
  return Ok();
}

Maybe<void> InferUnary(InferContext* ctx, UnaryOp op) {
  const TensorDesc& x = ctx->Input(kUnaryX);
  OFLITE_CHECK_OR_RETURN(UnaryOpAccepts(op, x.dtype), TypeError)
      << ctx->op_type() << ": dtype " << x.dtype << " is not supported (expected "
      << (op == UnaryOp::kNeg || op == UnaryOp::kAbs || op == UnaryOp::kRelu
              ? "a number dtype, not bool"
              : "a floating dtype")
      << ")";
  if (op == UnaryOp::kGelu) {
    OFLITE_JUST(CheckApproximate(*ctx));
  }
  *ctx->MutOutput(kUnaryY) = x;
  return Ok();
}

Maybe<void> InferCast(InferContext* ctx) {
  DataType dtype = DataType::kFloat32;
  OFLITE_ASSIGN_OR_RETURN(dtype, ctx->attrs().Get<DataType>(kCastDtype));
  OFLITE_CHECK_OR_RETURN(IsValidDataType(static_cast<int>(dtype)), ValueError)
      << "cast: dtype value " << static_cast<int>(dtype) << " is not a dtype";
  *ctx->MutOutput(kCastY) = {ctx->Input(kCastX).shape, dtype};
  return Ok();
}

// ---- SBP ------------------------------------------------------------------------------------

SbpSignature Signature(const std::vector<std::string>& args, const std::vector<Sbp>& sbps) {
  SbpBuilder signature;
  for (size_t i = 0; i < args.size(); ++i) {
    signature.Set(args[i], sbps[i]);
  }
  return signature.Build();
}

// Splits along an output axis: each operand that has the axis at full size splits along it,
// one that broadcasts there is broadcast; an axis both broadcast along (or of size 1) is not
// split. Then all broadcast, then the partial-sum rules that hold for the op: P+P and P-P for
// add and sub; P*B and B*P for mul; P/B for div; the gradients are linear in dy (P, B -> P).
std::vector<SbpSignature> BinarySignatures(const Shape& a, const Shape& b, BinaryOp op,
                                           const std::vector<std::string>& args) {
  std::vector<SbpSignature> signatures;
  for (const BroadcastSplit& s : BroadcastSplits(a, b, std::max(a.rank(), b.rank()))) {
    signatures.push_back(Signature(args, {s.a, s.b, SplitSbp(s.axis)}));
  }
  const Sbp B = BroadcastSbp(), P = PartialSumSbp();
  signatures.push_back(Signature(args, {B, B, B}));
  if (op == BinaryOp::kAdd || op == BinaryOp::kSub) {
    signatures.push_back(Signature(args, {P, P, P}));
  } else if (op == BinaryOp::kMul) {
    signatures.push_back(Signature(args, {P, B, P}));
    signatures.push_back(Signature(args, {B, P, P}));
  } else if (op == BinaryOp::kDiv || IsGradOp(op)) {
    signatures.push_back(Signature(args, {P, B, P}));
  }
  return signatures;
}

std::vector<std::string> ArgOrder(const InferContext& ctx) {
  std::vector<std::string> args = ctx.schema().inputs();
  args.insert(args.end(), ctx.schema().outputs().begin(), ctx.schema().outputs().end());
  return args;
}

// Any axis of size > 1 splits, or all broadcast; partial sums pass only through linear maps.
std::vector<SbpSignature> UnarySignatures(const Shape& x, bool linear,
                                          const std::vector<std::string>& args) {
  std::vector<SbpSignature> signatures;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (x[i] != 1) {
      signatures.push_back(Signature(args, {SplitSbp(i), SplitSbp(i)}));
    }
  }
  signatures.push_back(Signature(args, {BroadcastSbp(), BroadcastSbp()}));
  if (linear) {
    signatures.push_back(Signature(args, {PartialSumSbp(), PartialSumSbp()}));
  }
  return signatures;
}

// ---- registration ---------------------------------------------------------------------------

void RegisterBinary(BinaryOp op) {
  const bool grad = IsGradOp(op);
  OpSchemaBuilder builder(primitive::BinaryOpName(op));
  if (grad) {
    builder.Input(kGradDy).Input(GradOperand(op)).Output(kGradDx);
  } else {
    builder.Input(kBinaryX).Input(kBinaryY).Output(kBinaryZ);
  }
  if (op == BinaryOp::kGeluGrad) {
    builder.Attr<std::string>(kApproximate, "none");
  } else if (op == BinaryOp::kLeakyReluGrad) {
    builder.Attr<double>(kAlpha, kDefaultLeakyReluAlpha);
  }
  builder.SetInferFn(
      [op, grad](InferContext* ctx) { return grad ? InferGrad(ctx, op) : InferBinary(ctx, op); });
  builder.SetSbpFn([op](const InferContext& ctx) -> Maybe<std::vector<SbpSignature>> {
    return BinarySignatures(ctx.inputs()[0].shape, ctx.inputs()[1].shape, op, ArgOrder(ctx));
  });
  OpRegistry::Global().Register(builder);
}

// x op s: splits pass through; partial sums only where the op is linear in x: x * s, s * x and
// x / s (x + s would add s once per rank).
void RegisterScalarBinary(BinaryOp op) {
  OpSchemaBuilder builder(ScalarOpType(op));
  builder.Input(kScalarX)
      .Output(kScalarY)
      .Attr<int64_t>(kScalarIntOperand, 0)
      .Attr<double>(kScalarFloatOperand, 0.0)
      .Attr<bool>(kScalarHasFloatOperand, false)
      .Attr<bool>(kScalarFirst, false);
  builder.SetInferFn([op](InferContext* ctx) { return InferScalarBinary(ctx, op); });
  builder.SetSbpFn([op](const InferContext& ctx) -> Maybe<std::vector<SbpSignature>> {
    bool scalar_first = false;
    OFLITE_ASSIGN_OR_RETURN(scalar_first, ctx.attrs().Get<bool>(kScalarFirst));
    const bool linear = op == BinaryOp::kMul || (op == BinaryOp::kDiv && !scalar_first);
    return UnarySignatures(ctx.inputs()[0].shape, linear, ArgOrder(ctx));
  });
  OpRegistry::Global().Register(builder);
}

void RegisterUnary(UnaryOp op) {
  OpSchemaBuilder builder(primitive::UnaryOpName(op));
  builder.Input(kUnaryX).Output(kUnaryY);
  if (op == UnaryOp::kGelu) {
    builder.Attr<std::string>(kApproximate, "none");
  } else if (op == UnaryOp::kLeakyRelu) {
    builder.Attr<double>(kAlpha, kDefaultLeakyReluAlpha);
  }
  builder.SetInferFn([op](InferContext* ctx) { return InferUnary(ctx, op); });
  builder.SetSbpFn([op](const InferContext& ctx) -> Maybe<std::vector<SbpSignature>> {
    return UnarySignatures(ctx.inputs()[0].shape, op == UnaryOp::kNeg, ArgOrder(ctx));
  });
  OpRegistry::Global().Register(builder);
}

const bool kElementwiseOpsRegistered = [] {
  for (BinaryOp op : BinaryOpTypes()) {
    RegisterBinary(op);
    if (!IsGradOp(op)) {
      RegisterScalarBinary(op);
    }
  }
  for (UnaryOp op : UnaryOpTypes()) {
    RegisterUnary(op);
  }
  return true;
}();

// Rounding makes a cast non-linear, so partial sums do not pass through it.
OFLITE_REGISTER_OP(kCastOp)
    .Input(kCastX)
    .Output(kCastY)
    .Attr<DataType>(kCastDtype)
    .SetInferFn(InferCast)
    .SetSbpFn([](const InferContext& ctx) -> Maybe<std::vector<SbpSignature>> {
      return UnarySignatures(ctx.inputs()[0].shape, /*linear=*/false, ArgOrder(ctx));
    });

}  // namespace
}  // namespace ops
}  // namespace oflite
