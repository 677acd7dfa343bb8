// Softmax, LogSoftmax and their grads: validate, move `dim` last, dispatch, move it back.
#include <numeric>
#include <vector>

#include "functional/dim_utils.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/functional/functional.h"
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

// The permutation that moves `dim` last, the others keeping their order, and its inverse. Each
// merges to a batched 2-D transpose, (before, dim, after) <-> (before, after, dim), the permute
// kernel's tiled path; swapping `dim` with the last axis instead reverses three merged dims,
// which only the general kernel serves.
std::vector<int64_t> MoveToLast(int64_t dim, int64_t rank) {
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  perm.erase(perm.begin() + dim);
  perm.push_back(dim);
  return perm;
}
std::vector<int64_t> MoveBackFromLast(int64_t dim, int64_t rank) {
  std::vector<int64_t> perm(static_cast<size_t>(rank - 1));
  std::iota(perm.begin(), perm.end(), 0);
  perm.insert(perm.begin() + dim, rank - 1);
  return perm;
}

constexpr char kDim[] = "dim";

// The steps of op_type over a non-last `dim` (the composite's one attribute): each input moved
// there with a transpose, the op, and its output moved back.
Maybe<std::vector<CompositeStep>> OverDimSteps(const char* op_type,
                                               const std::vector<TensorDesc>& inputs,
                                               const AttrMap& attrs) {
  int64_t dim = 0;
  OFLITE_ASSIGN_OR_RETURN(dim, attrs.Get<int64_t>(kDim));
  const int64_t rank = inputs[0].shape.rank();
  const AttrMap to_last = {{ops::kTransposePerm, MoveToLast(dim, rank)}};
  const AttrMap back = {{ops::kTransposePerm, MoveBackFromLast(dim, rank)}};
  std::vector<CompositeStep> steps;
  CompositeStep op{op_type, {}, {}};
  for (size_t i = 0; i < inputs.size(); ++i) {
    steps.push_back({ops::kTransposeOp, to_last, {i}});
    op.args.push_back(inputs.size() + i);
  }
  steps.push_back(op);
  steps.push_back({ops::kTransposeOp, back, {2 * inputs.size()}});
  return steps;
}

// An op over its last axis, and the composite that runs it over any other.
struct OverDimOp {
  explicit OverDimOp(const char* op)
      : op_type(op),
        composite{std::string(op) + " over a non-last dim",
                  [op](const std::vector<TensorDesc>& inputs, const AttrMap& attrs) {
                    return OverDimSteps(op, inputs, attrs);
                  }} {}
  const char* op_type;
  Composite composite;
};

// Runs the op over the last axis of every input after moving `dim` there: the transposes and
// the op run as one composite call.
Maybe<Tensor> DispatchOverDim(const OverDimOp& op, TensorArgs inputs, int64_t dim) {
  const int64_t rank = inputs[0].rank();
  if (rank == 0 || dim == rank - 1) {
    return DispatchOne(op.op_type, inputs);
  }
  return DispatchComposite(op.composite, inputs, {{kDim, dim}});
}

Maybe<Tensor> Forward(const OverDimOp& op, const Tensor& x, int64_t dim) {
  const char* op_type = op.op_type;
  OFLITE_JUST(CheckFloating(op_type, "x", x));
  OFLITE_ASSIGN_OR_RETURN(dim, WrapDim(op_type, "dim", dim, x.rank()));
  return DispatchOverDim(op, {x}, dim);
}

Maybe<Tensor> Backward(const OverDimOp& op, const Tensor& y, const Tensor& dy, int64_t dim) {
  const char* op_type = op.op_type;
  OFLITE_JUST(CheckFloating(op_type, "y", y));
  OFLITE_JUST(CheckFloating(op_type, "dy", dy));
  OFLITE_JUST(CheckGradPair(op_type, y.shape(), y.dtype(), dy.shape(), dy.dtype()));
  OFLITE_ASSIGN_OR_RETURN(dim, WrapDim(op_type, "dim", dim, y.rank()));
  return DispatchOverDim(op, {y, dy}, dim);
}

}  // namespace

Maybe<Tensor> Softmax(const Tensor& x, int64_t dim) {
  static const OverDimOp op(ops::kSoftmaxOp);
  return Forward(op, x, dim);
}

Maybe<Tensor> LogSoftmax(const Tensor& x, int64_t dim) {
  static const OverDimOp op(ops::kLogSoftmaxOp);
  return Forward(op, x, dim);
}

Maybe<Tensor> SoftmaxGrad(const Tensor& y, const Tensor& dy, int64_t dim) {
  static const OverDimOp op(ops::kSoftmaxGradOp);
  return Backward(op, y, dy, dim);
}

Maybe<Tensor> LogSoftmaxGrad(const Tensor& y, const Tensor& dy, int64_t dim) {
  static const OverDimOp op(ops::kLogSoftmaxGradOp);
  return Backward(op, y, dy, dim);
}

}  // namespace functional
}  // namespace oflite
