// Allocator: device memory for tensors. Allocate fails with OutOfMemory, never aborts.
// Caching allocators keep freed blocks for reuse; their statistics and EmptyCache are reachable
// through GetAllocatorStats and EmptyCache below without any device headers. A caller may plug
// in an allocator of its own per device (SetAllocator), e.g. a CUDA memory pool
// (NewCudaPoolAllocator).
#ifndef ONEFLOW_LITE_EP_ALLOCATOR_H_
#define ONEFLOW_LITE_EP_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>

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

class Stream;

// Memory is stream-ordered: Allocate names the stream the memory is first used on, and
// Deallocate comes with that same stream once every use of the memory is queued on it (the
// runtime makes that stream wait for other streams that used it, see Tensor::RecordStream).
// An allocator may hand the block to later work on that stream at once, but must not hand it
// to another stream before the work queued so far on this one has finished. A null stream is
// the device's default stream. All members may be called from several threads at once.
class Allocator {
 public:
  Allocator() = default;
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;
  virtual ~Allocator() = default;

  // A zero-byte request returns a valid pointer-or-null that Deallocate accepts.
  virtual Maybe<void*> Allocate(size_t bytes, Stream* stream) = 0;
  virtual void Deallocate(void* ptr, size_t bytes, Stream* stream) = 0;

  // Allocators that keep no statistics report zeros.
  virtual AllocatorStats GetStats() const { return AllocatorStats{}; }
  // Gives cached blocks back to the device; a no-op for allocators that cache nothing.
  virtual Maybe<void> EmptyCache() { return Ok(); }
};

// The statistics of a device's allocator; DeviceError when the device is not available.
Maybe<AllocatorStats> GetAllocatorStats(const oflite::Device& device);
// Gives a device's cached memory back to the device (waiting for its pending work first).
Maybe<void> EmptyCache(const oflite::Device& device);

// Tensors made on `device` from now on take their memory from `allocator`; tensors made before
// keep the allocator they came from. The runtime keeps every allocator it was given until the
// process exits (tensors still alive may return memory to it). nullptr restores the built-in
// caching allocator. DeviceError when the device is not available.
Maybe<void> SetAllocator(const oflite::Device& device, std::shared_ptr<Allocator> allocator);
// An allocator over a CUDA memory pool (cudaMallocFromPoolAsync / cudaFreeAsync on the
// allocation's stream, so CUDA itself keeps reuse in stream order): `pool` is a cudaMemPool_t
// of that GPU, or nullptr for the GPU's default pool. NotImplemented for other devices.
Maybe<std::shared_ptr<Allocator>> NewCudaPoolAllocator(const oflite::Device& device,
                                                       void* pool = nullptr);

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_ALLOCATOR_H_
