// The functional calls on global tensors (oneflow_lite/framework/global_tensor.h): the same
// names as the local calls, each running through GlobalDispatch, which picks the op's SBP
// signature that moves the fewest bytes, boxes the inputs and runs the local kernels. Every
// rank of the placement makes the same calls with the same arguments.
#ifndef ONEFLOW_LITE_FUNCTIONAL_GLOBAL_H_
#define ONEFLOW_LITE_FUNCTIONAL_GLOBAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/global_tensor.h"

namespace oflite {
namespace functional {

// Softmax family over `dim` (negative counts from the end), floating dtypes: a non-last dim is
// moved last and back with global transposes.
Maybe<GlobalTensor> Softmax(const GlobalTensor& x, int64_t dim);
Maybe<GlobalTensor> LogSoftmax(const GlobalTensor& x, int64_t dim);
Maybe<GlobalTensor> SoftmaxGrad(const GlobalTensor& y, const GlobalTensor& dy, int64_t dim);
Maybe<GlobalTensor> LogSoftmaxGrad(const GlobalTensor& y, const GlobalTensor& dy, int64_t dim);
Maybe<GlobalTensor> Transpose(const GlobalTensor& x, const std::vector<int64_t>& perm);
// Elementwise on operands of one dtype that broadcast (no promotion for global tensors yet:
// TypeError when the dtypes differ).
Maybe<GlobalTensor> Add(const GlobalTensor& x, const GlobalTensor& y);
Maybe<GlobalTensor> Sub(const GlobalTensor& x, const GlobalTensor& y);
Maybe<GlobalTensor> Mul(const GlobalTensor& x, const GlobalTensor& y);
Maybe<GlobalTensor> Div(const GlobalTensor& x, const GlobalTensor& y);
Maybe<GlobalTensor> Relu(const GlobalTensor& x);
// alpha * op(a) @ op(b) for operands of rank 2 (matmul) or both of rank >= 2 (batch_matmul);
// torch.matmul's 1-D rules are not taken on global tensors (NotImplemented).
Maybe<GlobalTensor> MatMul(const GlobalTensor& a, const GlobalTensor& b, bool transpose_a = false,
                           bool transpose_b = false, double alpha = 1.0);
// The same product laid out as `out_sbp`: MatMul(...).ToGlobal(placement, out_sbp), except
// that a product split over columns (a B, b split over its columns, rank-2 CUDA operands,
// transpose_a false) wanted broadcast is made in row chunks, each chunk moving to the other
// ranks while the next is computed, where the communicator can: ranks in processes of one host
// whose GPUs reach each other's memory. Elsewhere (thread ranks, several hosts) it is the
// product, then the gather.
Maybe<GlobalTensor> MatMul(const GlobalTensor& a, const GlobalTensor& b, const NdSbp& out_sbp,
                           bool transpose_a = false, bool transpose_b = false, double alpha = 1.0);
// Any registered op by name.
Maybe<std::vector<GlobalTensor>> Call(const std::string& op_type,
                                      const std::vector<GlobalTensor>& inputs,
                                      const AttrMap& attrs = {});

}  // namespace functional
}  // namespace oflite

#endif  // ONEFLOW_LITE_FUNCTIONAL_GLOBAL_H_
