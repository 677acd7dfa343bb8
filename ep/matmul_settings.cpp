#include "oneflow_lite/ep/matmul_settings.h"

#include <atomic>

namespace oflite {
namespace ep {

namespace {
std::atomic<bool> allow_tf32{false};
}  // namespace

void SetAllowTf32(bool allow) { allow_tf32.store(allow); }
bool AllowTf32() { return allow_tf32.load(); }

}  // namespace ep
}  // namespace oflite
