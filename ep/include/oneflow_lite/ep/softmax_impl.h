// Which softmax implementation a provider uses. kAuto lets it choose by row length; tests and
// benchmarks force one to check or time each path (a forced path the shape cannot take falls
// back to the automatic choice, and the launch description says what ran).
#ifndef ONEFLOW_LITE_EP_SOFTMAX_IMPL_H_
#define ONEFLOW_LITE_EP_SOFTMAX_IMPL_H_

#include <cstdint>

namespace oflite {
namespace ep {

enum class SoftmaxImpl { kAuto, kWarp, kBlockRegister, kBlockSmem, kBlockUncached };

void SetSoftmaxImplOverride(SoftmaxImpl impl);
SoftmaxImpl GetSoftmaxImplOverride();

// Sets the override for a scope and restores the previous one.
class ScopedSoftmaxImpl {
 public:
  explicit ScopedSoftmaxImpl(SoftmaxImpl impl) : previous_(GetSoftmaxImplOverride()) {
    SetSoftmaxImplOverride(impl);
  }
  ScopedSoftmaxImpl(const ScopedSoftmaxImpl&) = delete;
  ScopedSoftmaxImpl& operator=(const ScopedSoftmaxImpl&) = delete;
  ~ScopedSoftmaxImpl() { SetSoftmaxImplOverride(previous_); }

 private:
  SoftmaxImpl previous_;
};

// The most blocks a register-path softmax launch uses (0: the hardware's limit, 2^31 - 1). That
// path gives each row its own block, and its blocks loop over rows only past this many; tests
// lower it to run the loop on small tensors.
void SetSoftmaxGridLimitOverride(int64_t blocks);
int64_t GetSoftmaxGridLimitOverride();

class ScopedSoftmaxGridLimit {
 public:
  explicit ScopedSoftmaxGridLimit(int64_t blocks) : previous_(GetSoftmaxGridLimitOverride()) {
    SetSoftmaxGridLimitOverride(blocks);
  }
  ScopedSoftmaxGridLimit(const ScopedSoftmaxGridLimit&) = delete;
  ScopedSoftmaxGridLimit& operator=(const ScopedSoftmaxGridLimit&) = delete;
  ~ScopedSoftmaxGridLimit() { SetSoftmaxGridLimitOverride(previous_); }

 private:
  int64_t previous_;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_SOFTMAX_IMPL_H_
