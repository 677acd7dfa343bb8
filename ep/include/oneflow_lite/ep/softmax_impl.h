// Which softmax implementation a provider uses. kAuto lets it choose by row length; tests and
// benchmarks force one to check or time each path (a forced path the shape cannot take falls
// back to the automatic choice, and the launch description says what ran).
#ifndef ONEFLOW_LITE_EP_SOFTMAX_IMPL_H_
#define ONEFLOW_LITE_EP_SOFTMAX_IMPL_H_

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

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_SOFTMAX_IMPL_H_
