#include <algorithm>
#include <mutex>

#include "ep/cuda/primitive/sgemm.h"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<SgemmRung> rungs;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: rungs outlive static teardown
  return *registry;
}

}  // namespace

bool RegisterRung(SgemmRung rung) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.rungs.push_back(std::move(rung));
  std::sort(registry.rungs.begin(), registry.rungs.end(),
            [](const SgemmRung& a, const SgemmRung& b) { return a.order < b.order; });
  return true;
}

std::vector<SgemmRung> Rungs() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.rungs;
}

const SgemmRung* FindRung(const std::string& name) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (const SgemmRung& rung : registry.rungs) {
    if (rung.name == name) {
      return &rung;  // entries are only added at load time, before any lookup
    }
  }
  return nullptr;
}

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
