// Gradients of Softmax and LogSoftmax over the last axis, from the forward output y and dy:
//   softmax:      dx = y * (dy - sum(dy * y))
//   log_softmax:  dx = dy - exp(y) * sum(dy)
#ifndef ONEFLOW_LITE_PRIMITIVE_SOFTMAX_BACKWARD_H_
#define ONEFLOW_LITE_PRIMITIVE_SOFTMAX_BACKWARD_H_

#include <cstddef>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/primitive/primitive.h"
#include "oneflow_lite/primitive/softmax.h"

namespace oflite {
namespace primitive {

template <SoftmaxAlgorithm kAlgorithm>
class SoftmaxBackwardBase : public Primitive {
 public:
  virtual Maybe<void> Launch(ep::Stream* stream, size_t rows, size_t cols, const void* y,
                             const void* dy, void* dx) = 0;
};

template <SoftmaxAlgorithm kAlgorithm>
class SoftmaxBackwardBaseFactory : public Factory<SoftmaxBackwardBase<kAlgorithm>, DataType> {
 public:
  static constexpr const char* kName =
      kAlgorithm == SoftmaxAlgorithm::kSoftmax ? "softmax_backward" : "log_softmax_backward";
};

using SoftmaxBackward = SoftmaxBackwardBase<SoftmaxAlgorithm::kSoftmax>;
using LogSoftmaxBackward = SoftmaxBackwardBase<SoftmaxAlgorithm::kLogSoftmax>;
using SoftmaxBackwardFactory = SoftmaxBackwardBaseFactory<SoftmaxAlgorithm::kSoftmax>;
using LogSoftmaxBackwardFactory = SoftmaxBackwardBaseFactory<SoftmaxAlgorithm::kLogSoftmax>;

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_SOFTMAX_BACKWARD_H_
