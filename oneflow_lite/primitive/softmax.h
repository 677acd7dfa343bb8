// Softmax and LogSoftmax over the last axis of a (rows x cols) row-major matrix.
#ifndef ONEFLOW_LITE_PRIMITIVE_SOFTMAX_H_
#define ONEFLOW_LITE_PRIMITIVE_SOFTMAX_H_

#include <cstddef>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace primitive {

enum class SoftmaxAlgorithm { kSoftmax, kLogSoftmax };

// y[r, :] = softmax(x[r, :]) (or log_softmax), computed stably (the row max is subtracted).
template <SoftmaxAlgorithm kAlgorithm>
class SoftmaxBase : public Primitive {
 public:
  virtual Maybe<void> Launch(ep::Stream* stream, size_t rows, size_t cols, const void* x,
                             void* y) = 0;
};

template <SoftmaxAlgorithm kAlgorithm>
class SoftmaxBaseFactory : public Factory<SoftmaxBase<kAlgorithm>, DataType> {
 public:
  static constexpr const char* kName =
      kAlgorithm == SoftmaxAlgorithm::kSoftmax ? "softmax" : "log_softmax";
};

using Softmax = SoftmaxBase<SoftmaxAlgorithm::kSoftmax>;
using LogSoftmax = SoftmaxBase<SoftmaxAlgorithm::kLogSoftmax>;
using SoftmaxFactory = SoftmaxBaseFactory<SoftmaxAlgorithm::kSoftmax>;
using LogSoftmaxFactory = SoftmaxBaseFactory<SoftmaxAlgorithm::kLogSoftmax>;

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_SOFTMAX_H_
