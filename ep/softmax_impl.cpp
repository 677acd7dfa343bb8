#include "ep/softmax_impl.h"

#include <atomic>

namespace oflite {
namespace ep {

namespace {
std::atomic<SoftmaxImpl> softmax_impl_override{SoftmaxImpl::kAuto};
std::atomic<int64_t> softmax_grid_limit_override{0};
}  // namespace

void SetSoftmaxImplOverride(SoftmaxImpl impl) { softmax_impl_override.store(impl); }
SoftmaxImpl GetSoftmaxImplOverride() { return softmax_impl_override.load(); }

void SetSoftmaxGridLimitOverride(int64_t blocks) { softmax_grid_limit_override.store(blocks); }
int64_t GetSoftmaxGridLimitOverride() { return softmax_grid_limit_override.load(); }

}  // namespace ep
}  // namespace oflite
