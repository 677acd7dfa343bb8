#include "oneflow_lite/ep/softmax_impl.h"

#include <atomic>

namespace oflite {
namespace ep {

namespace {
std::atomic<SoftmaxImpl> softmax_impl_override{SoftmaxImpl::kAuto};
}

void SetSoftmaxImplOverride(SoftmaxImpl impl) { softmax_impl_override.store(impl); }
SoftmaxImpl GetSoftmaxImplOverride() { return softmax_impl_override.load(); }

}  // namespace ep
}  // namespace oflite
