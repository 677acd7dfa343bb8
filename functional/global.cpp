// The functional calls on global tensors: check and canonicalize as the local calls do, then
// GlobalDispatch.
#include "oneflow_lite/functional/global.h"

#include <numeric>

#include "functional/dim_utils.h"
#include "oneflow_lite/framework/global_dispatch.h"
#include "ops/elementwise_ops.h"
#include "ops/matmul_ops.h"
#include "ops/softmax_ops.h"
#include "ops/transpose_ops.h"

namespace oflite {
namespace functional {
namespace {

Maybe<void> CheckDefined(const char* call, const char* arg, const GlobalTensor& t) {
  OFLITE_CHECK_OR_RETURN(t.defined(), ValueError) << call << ": " << arg << " is undefined";
  return Ok();
}

Maybe<void> CheckFloating(const char* op_type, const char* arg, const GlobalTensor& x) {
  OFLITE_JUST(CheckDefined(op_type, arg, x));
  OFLITE_CHECK_OR_RETURN(IsFloatingDataType(x.dtype()), TypeError)
      << op_type << ": " << arg
      << " must have a floating dtype (float32, float64, float16, bfloat16), got " << x.dtype();
  return Ok();
}

// The op over the last axis of each input (one shape) after moving `dim` there, and back.
Maybe<GlobalTensor> OverDim(const char* op_type, std::vector<GlobalTensor> inputs, int64_t dim) {
  const int64_t rank = inputs[0].shape().rank();
  OFLITE_ASSIGN_OR_RETURN(dim, WrapDim(op_type, "dim", dim, rank));
  if (rank == 0 || dim == rank - 1) {
    return GlobalDispatchOne(op_type, inputs);
  }
  std::vector<int64_t> to_last(static_cast<size_t>(rank));
  std::iota(to_last.begin(), to_last.end(), 0);
  to_last.erase(to_last.begin() + dim);
  to_last.push_back(dim);
  std::vector<int64_t> back(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) {
    back[static_cast<size_t>(to_last[static_cast<size_t>(i)])] = i;
  }
  for (GlobalTensor& input : inputs) {
    OFLITE_ASSIGN_OR_RETURN(input, Transpose(input, to_last));
  }
  GlobalTensor y;
  OFLITE_ASSIGN_OR_RETURN(y, GlobalDispatchOne(op_type, inputs));
  return Transpose(y, back);
}

Maybe<GlobalTensor> Forward(const char* op_type, const GlobalTensor& x, int64_t dim) {
  OFLITE_JUST(CheckFloating(op_type, "x", x));
  return OverDim(op_type, {x}, dim);
}

Maybe<GlobalTensor> Backward(const char* op_type, const GlobalTensor& y, const GlobalTensor& dy,
                             int64_t dim) {
  OFLITE_JUST(CheckFloating(op_type, "y", y));
  OFLITE_JUST(CheckFloating(op_type, "dy", dy));
  OFLITE_JUST(CheckGradPair(op_type, y.shape(), y.dtype(), dy.shape(), dy.dtype()));
  return OverDim(op_type, {y, dy}, dim);
}

Maybe<GlobalTensor> Binary(primitive::BinaryOp op, const GlobalTensor& x, const GlobalTensor& y) {
  const char* name = primitive::BinaryOpName(op);
  OFLITE_JUST(CheckDefined(name, "x", x));
  OFLITE_JUST(CheckDefined(name, "y", y));
  OFLITE_CHECK_OR_RETURN(x.dtype() == y.dtype(), TypeError)
      << name << ": global operands must have one dtype, got x " << x.dtype() << " and y "
      << y.dtype() << " (cast one first)";
  return GlobalDispatchOne(name, {x, y});
}

}  // namespace

Maybe<GlobalTensor> Softmax(const GlobalTensor& x, int64_t dim) {
  return Forward(ops::kSoftmaxOp, x, dim);
}
Maybe<GlobalTensor> LogSoftmax(const GlobalTensor& x, int64_t dim) {
  return Forward(ops::kLogSoftmaxOp, x, dim);
}
Maybe<GlobalTensor> SoftmaxGrad(const GlobalTensor& y, const GlobalTensor& dy, int64_t dim) {
  return Backward(ops::kSoftmaxGradOp, y, dy, dim);
}
Maybe<GlobalTensor> LogSoftmaxGrad(const GlobalTensor& y, const GlobalTensor& dy, int64_t dim) {
  return Backward(ops::kLogSoftmaxGradOp, y, dy, dim);
}

Maybe<GlobalTensor> Transpose(const GlobalTensor& x, const std::vector<int64_t>& perm) {
  OFLITE_JUST(CheckDefined(ops::kTransposeOp, "x", x));
  std::vector<int64_t> wrapped;
  for (int64_t p : perm) {
    int64_t d = 0;
    OFLITE_ASSIGN_OR_RETURN(d, WrapDim(ops::kTransposeOp, "perm", p, x.shape().rank()));
    wrapped.push_back(d);
  }
  return GlobalDispatchOne(ops::kTransposeOp, {x}, {{ops::kTransposePerm, wrapped}});
}

Maybe<GlobalTensor> Add(const GlobalTensor& x, const GlobalTensor& y) {
  return Binary(primitive::BinaryOp::kAdd, x, y);
}
Maybe<GlobalTensor> Sub(const GlobalTensor& x, const GlobalTensor& y) {
  return Binary(primitive::BinaryOp::kSub, x, y);
}
Maybe<GlobalTensor> Mul(const GlobalTensor& x, const GlobalTensor& y) {
  return Binary(primitive::BinaryOp::kMul, x, y);
}
Maybe<GlobalTensor> Div(const GlobalTensor& x, const GlobalTensor& y) {
  OFLITE_CHECK_OR_RETURN(!x.defined() || IsFloatingDataType(x.dtype()), NotImplemented)
      << "div: global division of " << x.dtype()
      << " tensors (true division promotes integers; cast to a floating dtype first)";
  return Binary(primitive::BinaryOp::kDiv, x, y);
}

Maybe<GlobalTensor> Relu(const GlobalTensor& x) {
  const char* name = primitive::UnaryOpName(primitive::UnaryOp::kRelu);
  OFLITE_JUST(CheckDefined(name, "x", x));
  return GlobalDispatchOne(name, {x});
}

Maybe<GlobalTensor> MatMul(const GlobalTensor& a, const GlobalTensor& b, bool transpose_a,
                           bool transpose_b, double alpha) {
  OFLITE_JUST(CheckDefined(ops::kMatmulOp, "a", a));
  OFLITE_JUST(CheckDefined(ops::kMatmulOp, "b", b));
  const int64_t ra = a.shape().rank(), rb = b.shape().rank();
  OFLITE_CHECK_OR_RETURN(ra >= 2 && rb >= 2, NotImplemented)
      << "matmul: global operands of rank " << ra << " and " << rb
      << "; global matrix products take operands of rank >= 2";
  const char* op = ra == 2 && rb == 2 ? ops::kMatmulOp : ops::kBatchMatmulOp;
  return GlobalDispatchOne(op, {a, b},
                           {{ops::kMatmulTransposeA, transpose_a},
                            {ops::kMatmulTransposeB, transpose_b},
                            {ops::kMatmulAlpha, alpha}});
}

Maybe<std::vector<GlobalTensor>> Call(const std::string& op_type,
                                      const std::vector<GlobalTensor>& inputs,
                                      const AttrMap& attrs) {
  std::vector<GlobalTensor> outputs;
  OFLITE_ASSIGN_OR_RETURN(outputs, GlobalDispatch(op_type, inputs, attrs));
  return outputs;
}

}  // namespace functional
}  // namespace oflite
