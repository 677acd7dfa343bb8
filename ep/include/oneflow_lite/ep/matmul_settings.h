// Process-wide matmul settings. AllowTf32: float32 matrix products may round their inputs to
// TF32 (10-bit mantissa) on GPUs with tensor cores, roughly 8x faster at about 1e-3 relative
// error; off by default, so float32 means float32 (PyTorch's torch.backends.cuda.matmul
// .allow_tf32, whose default is off too). Providers without TF32 ignore it.
#ifndef ONEFLOW_LITE_EP_MATMUL_SETTINGS_H_
#define ONEFLOW_LITE_EP_MATMUL_SETTINGS_H_

namespace oflite {
namespace ep {

void SetAllowTf32(bool allow);
bool AllowTf32();

// Sets AllowTf32 for a scope and restores the previous value.
class ScopedAllowTf32 {
 public:
  explicit ScopedAllowTf32(bool allow) : previous_(AllowTf32()) { SetAllowTf32(allow); }
  ScopedAllowTf32(const ScopedAllowTf32&) = delete;
  ScopedAllowTf32& operator=(const ScopedAllowTf32&) = delete;
  ~ScopedAllowTf32() { SetAllowTf32(previous_); }

 private:
  bool previous_;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_MATMUL_SETTINGS_H_
