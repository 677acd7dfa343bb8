// What every ep::Device shares: this thread's stream overrides and the caller's allocator.
#include "oneflow_lite/ep/device.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace oflite {
namespace ep {

namespace {
// Innermost last. Usually empty, so a call's lookup costs one thread-local read.
thread_local std::vector<std::pair<Device*, Stream*>> thread_streams;
}  // namespace

Stream* Device::stream() {
  for (auto it = thread_streams.rbegin(); it != thread_streams.rend(); ++it) {
    if (it->first == this) {
      return it->second;
    }
  }
  return default_stream();
}

void PushThreadStream(Device* device, Stream* stream) {
  thread_streams.emplace_back(device, stream);
}

void PopThreadStream(Device* device, Stream* stream) {
  const auto entry = std::make_pair(device, stream);
  auto it = std::find(thread_streams.rbegin(), thread_streams.rend(), entry);
  if (it != thread_streams.rend()) {
    thread_streams.erase(std::next(it).base());
  }
}

void Device::SetAllocator(std::shared_ptr<Allocator> allocator) {
  Allocator* raw = allocator.get();
  if (allocator != nullptr) {
    std::lock_guard<std::mutex> lock(kept_mutex_);
    kept_allocators_.push_back(std::move(allocator));
  }
  allocator_.store(raw, std::memory_order_release);
}

Maybe<void> Device::EmptyCache() {
  Allocator* current = allocator();
  OFLITE_JUST(current->EmptyCache());
  return current == builtin_allocator() ? Ok() : builtin_allocator()->EmptyCache();
}

Maybe<std::shared_ptr<Allocator>> Device::NewPoolAllocator(void* /*pool*/) {
  return OFLITE_ERROR(NotImplemented) << device() << " has no stream-ordered memory pools";
}

}  // namespace ep
}  // namespace oflite
