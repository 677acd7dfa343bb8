#include "oneflow_lite/ep/matmul_settings.h"

#include <atomic>
#include <mutex>

namespace oflite {
namespace ep {

namespace {
std::atomic<bool> allow_tf32{false};
std::mutex impl_mutex;
std::string& Impl() {
  static std::string* impl = new std::string("cublas");  // read during static teardown too
  return *impl;
}
}  // namespace

void SetAllowTf32(bool allow) { allow_tf32.store(allow); }
bool AllowTf32() { return allow_tf32.load(); }

void SetMatmulImpl(const std::string& impl) {
  std::lock_guard<std::mutex> lock(impl_mutex);
  Impl() = impl;
}

std::string MatmulImpl() {
  std::lock_guard<std::mutex> lock(impl_mutex);
  return Impl();
}

}  // namespace ep
}  // namespace oflite
