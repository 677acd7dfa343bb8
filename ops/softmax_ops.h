// softmax, log_softmax and their grads operate on the last axis; functional/ moves other dims
// there. Names live here so functors and kernels never repeat the strings.
#ifndef ONEFLOW_LITE_OPS_SOFTMAX_OPS_H_
#define ONEFLOW_LITE_OPS_SOFTMAX_OPS_H_

namespace oflite {
namespace ops {

constexpr const char* kSoftmaxOp = "softmax";
constexpr const char* kLogSoftmaxOp = "log_softmax";
constexpr const char* kSoftmaxGradOp = "softmax_grad";
constexpr const char* kLogSoftmaxGradOp = "log_softmax_grad";

// forward: x -> y; grad: (y, dy) -> dx
constexpr const char* kSoftmaxX = "x";
constexpr const char* kSoftmaxY = "y";
constexpr const char* kSoftmaxDy = "dy";
constexpr const char* kSoftmaxDx = "dx";

}  // namespace ops
}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_SOFTMAX_OPS_H_
