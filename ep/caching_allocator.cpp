#include "ep/caching_allocator.h"

#include <cstdint>
#include <functional>

#include "oneflow_lite/common/hash_combine.h"
#include "oneflow_lite/common/logging.h"

namespace oflite {
namespace ep {

namespace {
// Classes per power of two above kSmallLimit, as a shift: 8 classes, at most 1/8 wasted.
constexpr int kLargeClassShift = 3;

int FloorLog2(size_t value) {
  int log = -1;
  while (value != 0) {
    value >>= 1;
    ++log;
  }
  return log;
}
}  // namespace

size_t CachingAllocator::BinHash::operator()(const Bin& bin) const {
  return HashCombine(std::hash<size_t>()(bin.size), std::hash<const void*>()(bin.stream));
}

size_t CachingAllocator::RoundSize(size_t bytes) {
  if (bytes <= kSmallLimit) {
    return (bytes + kSmallGranularity - 1) / kSmallGranularity * kSmallGranularity;
  }
  if (bytes > SIZE_MAX / 2) {  // no device has that much; rounding could wrap around
    return 0;
  }
  const size_t step = size_t{1} << (FloorLog2(bytes) - kLargeClassShift);
  return (bytes + step - 1) / step * step;
}

void CachingAllocator::ReleaseCachedBlocks() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& bin : free_blocks_) {
    for (void* ptr : bin.second) {
      // At process exit the device runtime may already be gone: errors here change nothing.
      static_cast<void>(DeviceFree(ptr));
      stats_.reserved_bytes -= bin.first.size;
      ++stats_.device_free_count;
    }
  }
  free_blocks_.clear();
}

Maybe<void*> CachingAllocator::Allocate(size_t bytes, Stream* stream) {
  if (bytes == 0) {
    return static_cast<void*>(nullptr);
  }
  const size_t rounded = RoundSize(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  void* ptr = nullptr;
  const Bin key{rounded, stream};
  auto bin = free_blocks_.find(key);
  if (bin != free_blocks_.end() && !bin->second.empty()) {
    ptr = bin->second.back();
    bin->second.pop_back();
    ++stats_.cache_hit_count;
  } else {
    OFLITE_ASSIGN_OR_RETURN(ptr, MallocBlock(bytes, rounded));
  }
  if (spare_nodes_.empty()) {
    live_blocks_.emplace(ptr, key);
  } else {  // reuse a map node: a cache hit costs no heap allocation
    LiveBlocks::node_type node = std::move(spare_nodes_.back());
    spare_nodes_.pop_back();
    node.key() = ptr;
    node.mapped() = key;
    live_blocks_.insert(std::move(node));
  }
  ++stats_.allocation_count;
  stats_.allocated_bytes += rounded;
  if (stats_.allocated_bytes > stats_.peak_allocated_bytes) {
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  }
  return ptr;
}

// Called with mutex_ held, on a cache miss.
Maybe<void*> CachingAllocator::MallocBlock(size_t bytes, size_t rounded) {
  void* ptr = nullptr;
  if (rounded != 0) {
    OFLITE_ASSIGN_OR_RETURN(ptr, DeviceMalloc(rounded));
  }
  const size_t cached_bytes = stats_.reserved_bytes - stats_.allocated_bytes;
  if (ptr == nullptr && rounded != 0 && cached_bytes > 0) {
    OFLITE_JUST(EmptyCacheLocked());
    OFLITE_ASSIGN_OR_RETURN(ptr, DeviceMalloc(rounded));
  }
  if (ptr == nullptr) {
    auto error = OFLITE_ERROR(OutOfMemory);
    error << DeviceName() << ": cannot allocate " << bytes << " bytes (";
    if (rounded != 0) {
      error << "a block of " << rounded << " bytes; ";
    }
    error << DescribeFreeMemory() << "; " << stats_.allocated_bytes << " bytes in use by tensors";
    if (cached_bytes > 0) {
      error << ", " << cached_bytes << " cached bytes released before retrying";
    }
    error << ")";
    return error;
  }
  ++stats_.device_malloc_count;
  stats_.reserved_bytes += rounded;
  return ptr;
}

// The block goes back to the bin of the stream it was allocated for, whatever `stream` says:
// that is the stream the runtime orders its last uses on.
void CachingAllocator::Deallocate(void* ptr, size_t /*bytes*/, Stream* /*stream*/) {
  if (ptr == nullptr) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto live = live_blocks_.find(ptr);
  if (live == live_blocks_.end()) {
    OFLITE_LOG(ERROR) << DeviceName() << ": ignoring the free of " << ptr
                      << ", which this allocator did not hand out (or was freed twice)";
    return;
  }
  const Bin key = live->second;
  spare_nodes_.push_back(live_blocks_.extract(live));
  stats_.allocated_bytes -= key.size;
  free_blocks_[key].push_back(ptr);
}

AllocatorStats CachingAllocator::GetStats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

Maybe<void> CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> lock(mutex_);
  return EmptyCacheLocked();
}

Maybe<void> CachingAllocator::EmptyCacheLocked() {
  if (stats_.reserved_bytes == stats_.allocated_bytes) {
    return Ok();
  }
  OFLITE_JUST(WaitForDevice());
  for (auto bin = free_blocks_.begin(); bin != free_blocks_.end(); bin = free_blocks_.erase(bin)) {
    while (!bin->second.empty()) {
      void* ptr = bin->second.back();
      bin->second.pop_back();
      stats_.reserved_bytes -= bin->first.size;  // a block that fails to free is lost either way
      ++stats_.device_free_count;
      OFLITE_JUST(DeviceFree(ptr));
    }
  }
  return Ok();
}

}  // namespace ep
}  // namespace oflite
