// Softmax, LogSoftmax and their grads: validate, move `dim` last, dispatch, move it back.
#include <numeric>
#include <vector>

#include "functional/dim_utils.h"
#include "functional/functional.h"
#include "oneflow_lite/framework/interpreter.h"
#include "ops/softmax_ops.h"
#include "ops/transpose_ops.h"

namespace oflite {
namespace functional {
namespace {

Maybe<void> CheckFloating(const char* call, const char* arg, const Tensor& t) {
  OFLITE_CHECK_OR_RETURN(t.defined(), ValueError) << call << ": " << arg << " is undefined";
  OFLITE_CHECK_OR_RETURN(IsFloatingDataType(t.dtype()), TypeError)
      << call << ": " << arg << " must have a floating dtype (float32, float64, float16, "
      << "bfloat16), got " << t.dtype();
  return Ok();
}

// The permutation that swaps `dim` with the last axis; it is its own inverse.
std::vector<int64_t> SwapWithLast(int64_t dim, int64_t rank) {
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[static_cast<size_t>(dim)], perm.back());
  return perm;
}

// Runs op_type over the last axis of every input after moving `dim` there.
Maybe<Tensor> DispatchOverDim(const char* op_type, std::vector<Tensor> inputs, int64_t dim) {
  const int64_t rank = inputs[0].rank();
  if (rank == 0 || dim == rank - 1) {
    return DispatchOne(op_type, inputs);
  }
  const AttrMap swap = {{ops::kTransposePerm, SwapWithLast(dim, rank)}};
  for (Tensor& input : inputs) {
    OFLITE_ASSIGN_OR_RETURN(input, DispatchOne(ops::kTransposeOp, {input}, swap));
  }
  Tensor moved;
  OFLITE_ASSIGN_OR_RETURN(moved, DispatchOne(op_type, inputs));
  return DispatchOne(ops::kTransposeOp, {moved}, swap);
}

Maybe<Tensor> Forward(const char* op_type, const Tensor& x, int64_t dim) {
  OFLITE_JUST(CheckFloating(op_type, "x", x));
  OFLITE_ASSIGN_OR_RETURN(dim, WrapDim(op_type, "dim", dim, x.rank()));
  return DispatchOverDim(op_type, {x}, dim);
}

Maybe<Tensor> Backward(const char* op_type, const Tensor& y, const Tensor& dy, int64_t dim) {
  OFLITE_JUST(CheckFloating(op_type, "y", y));
  OFLITE_JUST(CheckFloating(op_type, "dy", dy));
  OFLITE_CHECK_OR_RETURN(y.shape() == dy.shape(), ValueError)
      << op_type << ": y and dy must have the same shape, got y " << y.shape() << " and dy "
      << dy.shape();
  OFLITE_CHECK_OR_RETURN(y.dtype() == dy.dtype(), TypeError)
      << op_type << ": y and dy must have the same dtype, got y " << y.dtype() << " and dy "
      << dy.dtype();
  OFLITE_ASSIGN_OR_RETURN(dim, WrapDim(op_type, "dim", dim, y.rank()));
  return DispatchOverDim(op_type, {y, dy}, dim);
}

}  // namespace

Maybe<Tensor> Softmax(const Tensor& x, int64_t dim) { return Forward(ops::kSoftmaxOp, x, dim); }

Maybe<Tensor> LogSoftmax(const Tensor& x, int64_t dim) {
  return Forward(ops::kLogSoftmaxOp, x, dim);
}

Maybe<Tensor> SoftmaxGrad(const Tensor& y, const Tensor& dy, int64_t dim) {
  return Backward(ops::kSoftmaxGradOp, y, dy, dim);
}

Maybe<Tensor> LogSoftmaxGrad(const Tensor& y, const Tensor& dy, int64_t dim) {
  return Backward(ops::kLogSoftmaxGradOp, y, dy, dim);
}

}  // namespace functional
}  // namespace oflite
