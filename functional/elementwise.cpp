// Elementwise math: promote dtypes as PyTorch does, turn scalars into rank-0 tensors (the
// broadcast primitive reads a one-element operand once per thread), dispatch the op.
#include <string>

#include "oneflow_lite/common/type_promotion.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/functional/functional.h"
#include "ops/elementwise_ops.h"

namespace oflite {
namespace functional {
namespace {

using primitive::BinaryOp;
using primitive::UnaryOp;

Maybe<void> CheckDefined(const char* call, const char* arg, const Tensor& t) {
  OFLITE_CHECK_OR_RETURN(t.defined(), ValueError) << call << ": " << arg << " is undefined";
  return Ok();
}

Maybe<Tensor> CastIfNeeded(const Tensor& t, DataType dtype) {
  if (t.dtype() == dtype) {
    return t;
  }
  return DispatchOne(ops::kCastOp, {t}, {{ops::kCastDtype, dtype}});
}

// True division computes in a floating dtype: integer and bool operands give float32.
DataType ComputeDtype(BinaryOp op, DataType promoted) {
  if (op == BinaryOp::kDiv && !IsFloatingDataType(promoted)) {
    return DataType::kFloat32;
  }
  return promoted;
}

Maybe<Tensor> DispatchBinary(BinaryOp op, const Tensor& x, const Tensor& y, DataType dtype) {
  if (x.dtype() == dtype && y.dtype() == dtype) {  // the common call: no copies of x and y
    return DispatchOne(primitive::BinaryOpName(op), {x, y});
  }
  Tensor a, b;
  OFLITE_ASSIGN_OR_RETURN(a, CastIfNeeded(x, dtype));
  OFLITE_ASSIGN_OR_RETURN(b, CastIfNeeded(y, dtype));
  return DispatchOne(primitive::BinaryOpName(op), {a, b});
}

// PyTorch's result type: a rank-0 tensor beside a tensor with dims counts only by category.
DataType ResultType(const Tensor& x, const Tensor& y) {
  if ((x.rank() == 0) != (y.rank() == 0)) {
    return x.rank() == 0 ? PromoteWithZeroDim(y.dtype(), x.dtype())
                         : PromoteWithZeroDim(x.dtype(), y.dtype());
  }
  return PromoteTypes(x.dtype(), y.dtype());
}

Maybe<Tensor> Binary(BinaryOp op, const Tensor& x, const Tensor& y) {
  const char* name = primitive::BinaryOpName(op);
  OFLITE_JUST(CheckDefined(name, "x", x));
  OFLITE_JUST(CheckDefined(name, "y", y));
  return DispatchBinary(op, x, y, ComputeDtype(op, ResultType(x, y)));
}

// scalar_first: the scalar is the left operand (2.5 - x). The scalar goes to the scalar op in
// attrs, exact, and enters the computation in the compute type (float for 16-bit tensors).
Maybe<Tensor> BinaryWithScalar(BinaryOp op, const Tensor& t, const Scalar& s, bool scalar_first) {
  const char* name = primitive::BinaryOpName(op);
  OFLITE_JUST(CheckDefined(name, scalar_first ? "y" : "x", t));
  const DataType dtype = ComputeDtype(op, PromoteWithScalar(t.dtype(), s));
  Tensor input;
  OFLITE_ASSIGN_OR_RETURN(input, CastIfNeeded(t, dtype));
  return DispatchOne(ops::ScalarOpType(op), {input},
                     {{ops::kScalarIntOperand, s.is_float() ? int64_t{0} : s.ToInt()},
                      {ops::kScalarFloatOperand, s.ToDouble()},
                      {ops::kScalarHasFloatOperand, s.is_float()},
                      {ops::kScalarFirst, scalar_first}});
}

// exp, log, sqrt, rsqrt, sigmoid and tanh of integers compute in float32, as in PyTorch.
bool PromotesIntegers(UnaryOp op) {
  return op == UnaryOp::kExp || op == UnaryOp::kLog || op == UnaryOp::kSqrt ||
         op == UnaryOp::kRsqrt || op == UnaryOp::kSigmoid || op == UnaryOp::kTanh;
}

Maybe<Tensor> Unary(UnaryOp op, const Tensor& x, const AttrMap& attrs = {}) {
  const char* name = primitive::UnaryOpName(op);
  OFLITE_JUST(CheckDefined(name, "x", x));
  Tensor input = x;
  if (PromotesIntegers(op) && !IsFloatingDataType(x.dtype())) {
    OFLITE_ASSIGN_OR_RETURN(input, CastIfNeeded(x, DataType::kFloat32));
  }
  return DispatchOne(name, {input}, attrs);
}

Maybe<Tensor> Grad(BinaryOp op, const Tensor& dy, const Tensor& other, const AttrMap& attrs = {}) {
  const char* name = primitive::BinaryOpName(op);
  OFLITE_JUST(CheckDefined(name, "dy", dy));
  OFLITE_JUST(CheckDefined(name, "the forward tensor", other));
  return DispatchOne(name, {dy, other}, attrs);
}

}  // namespace

#define OFLITE_DEFINE_BINARY_FUNCTION(Name, op)                                               \
  Maybe<Tensor> Name(const Tensor& x, const Tensor& y) { return Binary(BinaryOp::op, x, y); } \
  Maybe<Tensor> Name(const Tensor& x, const Scalar& y) {                                      \
    return BinaryWithScalar(BinaryOp::op, x, y, /*scalar_first=*/false);                      \
  }                                                                                           \
  Maybe<Tensor> Name(const Scalar& x, const Tensor& y) {                                      \
    return BinaryWithScalar(BinaryOp::op, y, x, /*scalar_first=*/true);                       \
  }
OFLITE_DEFINE_BINARY_FUNCTION(Add, kAdd)
OFLITE_DEFINE_BINARY_FUNCTION(Sub, kSub)
OFLITE_DEFINE_BINARY_FUNCTION(Mul, kMul)
OFLITE_DEFINE_BINARY_FUNCTION(Div, kDiv)
OFLITE_DEFINE_BINARY_FUNCTION(Maximum, kMaximum)
OFLITE_DEFINE_BINARY_FUNCTION(Minimum, kMinimum)
OFLITE_DEFINE_BINARY_FUNCTION(Pow, kPow)
OFLITE_DEFINE_BINARY_FUNCTION(Eq, kEq)
OFLITE_DEFINE_BINARY_FUNCTION(Ne, kNe)
OFLITE_DEFINE_BINARY_FUNCTION(Lt, kLt)
OFLITE_DEFINE_BINARY_FUNCTION(Le, kLe)
OFLITE_DEFINE_BINARY_FUNCTION(Gt, kGt)
OFLITE_DEFINE_BINARY_FUNCTION(Ge, kGe)
#undef OFLITE_DEFINE_BINARY_FUNCTION

Maybe<Tensor> Neg(const Tensor& x) { return Unary(UnaryOp::kNeg, x); }
Maybe<Tensor> Abs(const Tensor& x) { return Unary(UnaryOp::kAbs, x); }
Maybe<Tensor> Exp(const Tensor& x) { return Unary(UnaryOp::kExp, x); }
Maybe<Tensor> Log(const Tensor& x) { return Unary(UnaryOp::kLog, x); }
Maybe<Tensor> Sqrt(const Tensor& x) { return Unary(UnaryOp::kSqrt, x); }
Maybe<Tensor> Rsqrt(const Tensor& x) { return Unary(UnaryOp::kRsqrt, x); }
Maybe<Tensor> Sigmoid(const Tensor& x) { return Unary(UnaryOp::kSigmoid, x); }
Maybe<Tensor> Tanh(const Tensor& x) { return Unary(UnaryOp::kTanh, x); }
Maybe<Tensor> Relu(const Tensor& x) { return Unary(UnaryOp::kRelu, x); }
Maybe<Tensor> Silu(const Tensor& x) { return Unary(UnaryOp::kSilu, x); }
Maybe<Tensor> Gelu(const Tensor& x, const std::string& approximate) {
  return Unary(UnaryOp::kGelu, x, {{ops::kApproximate, approximate}});
}
Maybe<Tensor> LeakyRelu(const Tensor& x, double alpha) {
  return Unary(UnaryOp::kLeakyRelu, x, {{ops::kAlpha, alpha}});
}

Maybe<Tensor> ReluGrad(const Tensor& dy, const Tensor& y) {
  return Grad(BinaryOp::kReluGrad, dy, y);
}
Maybe<Tensor> SigmoidGrad(const Tensor& dy, const Tensor& y) {
  return Grad(BinaryOp::kSigmoidGrad, dy, y);
}
Maybe<Tensor> TanhGrad(const Tensor& dy, const Tensor& y) {
  return Grad(BinaryOp::kTanhGrad, dy, y);
}
Maybe<Tensor> GeluGrad(const Tensor& dy, const Tensor& x, const std::string& approximate) {
  return Grad(BinaryOp::kGeluGrad, dy, x, {{ops::kApproximate, approximate}});
}
Maybe<Tensor> SiluGrad(const Tensor& dy, const Tensor& x) {
  return Grad(BinaryOp::kSiluGrad, dy, x);
}
Maybe<Tensor> LeakyReluGrad(const Tensor& dy, const Tensor& x, double alpha) {
  return Grad(BinaryOp::kLeakyReluGrad, dy, x, {{ops::kAlpha, alpha}});
}

// The same dtype gives x itself (no copy), as PyTorch's x.to(x.dtype) does.
Maybe<Tensor> Cast(const Tensor& x, DataType dtype) {
  OFLITE_JUST(CheckDefined("cast", "x", x));
  OFLITE_CHECK_OR_RETURN(IsValidDataType(static_cast<int>(dtype)), ValueError)
      << "cast: dtype value " << static_cast<int>(dtype) << " is not a dtype";
  return CastIfNeeded(x, dtype);
}

}  // namespace functional
}  // namespace oflite
