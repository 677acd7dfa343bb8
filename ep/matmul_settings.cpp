#include "oneflow_lite/ep/matmul_settings.h"

#include <atomic>
#include <mutex>
#include <set>
#include <string>

namespace oflite {
namespace ep {

namespace {
std::atomic<bool> allow_tf32{false};
std::mutex impl_mutex;
// Every name ever set, never freed (a handful): readers take the current one with one atomic
// load and no lock, and may keep the reference.
// Null until the first SetMatmulImpl: the default is "cublas". (A string made here and then
// replaced would be unreachable: a leak to LeakSanitizer.)
std::atomic<const std::string*> impl{nullptr};
}  // namespace

void SetAllowTf32(bool allow) { allow_tf32.store(allow); }
bool AllowTf32() { return allow_tf32.load(); }

void SetMatmulImpl(const std::string& name) {
  static std::set<std::string>* names = new std::set<std::string>;  // read at teardown too
  std::lock_guard<std::mutex> lock(impl_mutex);
  impl.store(&*names->insert(name).first, std::memory_order_release);
}

const std::string& MatmulImpl() {
  static const std::string* const kDefault = new std::string("cublas");  // reachable: no leak
  const std::string* current = impl.load(std::memory_order_acquire);
  return current != nullptr ? *current : *kDefault;
}

}  // namespace ep
}  // namespace oflite
