// Allocator: device memory for tensors. Allocate fails with OutOfMemory, never aborts.
// Caching allocators keep freed blocks for reuse; their statistics and EmptyCache are reachable
// through GetAllocatorStats and EmptyCache below without any device headers.
#ifndef ONEFLOW_LITE_EP_ALLOCATOR_H_
#define ONEFLOW_LITE_EP_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace ep {

// Byte counts are of blocks as the allocator rounds them, not of the bytes asked for.
struct AllocatorStats {
  size_t allocated_bytes = 0;       // in blocks handed out and not yet returned
  size_t peak_allocated_bytes = 0;  // the most allocated_bytes has been
  size_t reserved_bytes = 0;        // held from the device: allocated plus cached
  int64_t allocation_count = 0;     // nonzero requests served
  int64_t cache_hit_count = 0;      // requests served from a cached block
  int64_t device_malloc_count = 0;  // blocks obtained from the device (e.g. cudaMalloc)
  int64_t device_free_count = 0;    // blocks given back to the device (e.g. cudaFree)
};

class Allocator {
 public:
  Allocator() = default;
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;
  virtual ~Allocator() = default;

  // A zero-byte request returns a valid pointer-or-null that Deallocate accepts.
  virtual Maybe<void*> Allocate(size_t bytes) = 0;
  virtual void Deallocate(void* ptr, size_t bytes) = 0;

  // Allocators that keep no statistics report zeros.
  virtual AllocatorStats GetStats() const { return AllocatorStats{}; }
  // Gives cached blocks back to the device; a no-op for allocators that cache nothing.
  virtual Maybe<void> EmptyCache() { return Ok(); }
};

// The statistics of a device's allocator; DeviceError when the device is not available.
Maybe<AllocatorStats> GetAllocatorStats(const oflite::Device& device);
// Gives a device's cached memory back to the device (waiting for its pending work first).
Maybe<void> EmptyCache(const oflite::Device& device);

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_ALLOCATOR_H_
