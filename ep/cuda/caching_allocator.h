// CudaCachingAllocator: the caching allocator (ep/caching_allocator.h) over one GPU's memory,
// with cudaMalloc, cudaFree and cudaMemGetInfo as its device hooks.
#ifndef ONEFLOW_LITE_EP_CUDA_CACHING_ALLOCATOR_H_
#define ONEFLOW_LITE_EP_CUDA_CACHING_ALLOCATOR_H_

#include <string>

#include "ep/caching_allocator.h"

namespace oflite {
namespace ep {

class CudaCachingAllocator final : public CachingAllocator {
 public:
  explicit CudaCachingAllocator(int device_index) : device_index_(device_index) {}
  ~CudaCachingAllocator() override;  // gives cached blocks back; blocks still in use stay

 protected:
  Maybe<void*> DeviceMalloc(size_t bytes) override;
  Maybe<void> DeviceFree(void* ptr) override;
  Maybe<void> WaitForDevice() override;
  std::string DescribeFreeMemory() override;
  std::string DeviceName() const override { return "cuda:" + std::to_string(device_index_); }

 private:
  const int device_index_;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_CACHING_ALLOCATOR_H_
