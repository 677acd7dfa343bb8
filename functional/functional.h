// The user-facing API: validated, canonicalized calls that dispatch ops.
#ifndef ONEFLOW_LITE_FUNCTIONAL_FUNCTIONAL_H_
#define ONEFLOW_LITE_FUNCTIONAL_FUNCTIONAL_H_

#include <cstdint>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {
namespace functional {

// Softmax family over `dim` (negative counts from the end). Floating dtypes only.
// A rank-0 tensor softmaxes to 1; an empty tensor gives an empty result.
Maybe<Tensor> Softmax(const Tensor& x, int64_t dim);
Maybe<Tensor> LogSoftmax(const Tensor& x, int64_t dim);
// Gradients from the forward output y and the incoming gradient dy (same shape and dtype).
Maybe<Tensor> SoftmaxGrad(const Tensor& y, const Tensor& dy, int64_t dim);
Maybe<Tensor> LogSoftmaxGrad(const Tensor& y, const Tensor& dy, int64_t dim);

// y.shape[i] = x.shape[perm[i]]; entries may be negative (counted from the end).
Maybe<Tensor> Transpose(const Tensor& x, const std::vector<int64_t>& perm);
// PyTorch's name for the same call.
Maybe<Tensor> Permute(const Tensor& x, const std::vector<int64_t>& dims);

}  // namespace functional
}  // namespace oflite

#endif  // ONEFLOW_LITE_FUNCTIONAL_FUNCTIONAL_H_
