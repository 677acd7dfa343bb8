// Process-wide matmul settings. AllowTf32: float32 matrix products may round their inputs to
// TF32 (10-bit mantissa) on GPUs with tensor cores, roughly 8x faster at about 1e-3 relative
// error; off by default, so float32 means float32 (PyTorch's torch.backends.cuda.matmul
// .allow_tf32, whose default is off too). Providers without TF32 ignore it.
#ifndef ONEFLOW_LITE_EP_MATMUL_SETTINGS_H_
#define ONEFLOW_LITE_EP_MATMUL_SETTINGS_H_

#include "oneflow_lite/common/scoped_setting.h"

namespace oflite {
namespace ep {

void SetAllowTf32(bool allow);
bool AllowTf32();

// Sets AllowTf32 for a scope and restores the previous value.
using ScopedAllowTf32 = ScopedSetting<bool, &AllowTf32, &SetAllowTf32>;

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_MATMUL_SETTINGS_H_
