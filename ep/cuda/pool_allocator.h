// CudaPoolAllocator: tensors' memory from a CUDA memory pool through cudaMallocFromPoolAsync and
// cudaFreeAsync on the allocation's stream, so CUDA keeps reuse in stream order.
#ifndef ONEFLOW_LITE_EP_CUDA_POOL_ALLOCATOR_H_
#define ONEFLOW_LITE_EP_CUDA_POOL_ALLOCATOR_H_

#include <cuda_runtime.h>

#include <memory>
#include <mutex>

#include "oneflow_lite/ep/allocator.h"
#include "oneflow_lite/ep/stream.h"

namespace oflite {
namespace ep {

class CudaPoolAllocator final : public Allocator {
 public:
  // `pool` nullptr: the device's default pool. `default_stream` serves null streams.
  static Maybe<std::shared_ptr<Allocator>> Create(int device_index, cudaMemPool_t pool,
                                                  Stream* default_stream);

  Maybe<void*> Allocate(size_t bytes, Stream* stream) override;
  void Deallocate(void* ptr, size_t bytes, Stream* stream) override;
  // Byte counts are of the bytes asked for; reserved_bytes is the pool's.
  AllocatorStats GetStats() const override;
  // Waits for the device, then trims the pool to what is in use.
  Maybe<void> EmptyCache() override;

 private:
  CudaPoolAllocator(int device_index, cudaMemPool_t pool, Stream* default_stream)
      : device_index_(device_index), pool_(pool), default_stream_(default_stream) {}
  Maybe<cudaStream_t> NativeStream(Stream* stream) const;

  const int device_index_;
  const cudaMemPool_t pool_;
  Stream* const default_stream_;
  mutable std::mutex mutex_;
  AllocatorStats stats_;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_POOL_ALLOCATOR_H_
