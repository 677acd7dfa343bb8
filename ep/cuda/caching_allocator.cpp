#include "ep/cuda/caching_allocator.h"

#include <cuda_runtime.h>

#include "ep/cuda/cuda_stream.h"

namespace oflite {
namespace ep {

CudaCachingAllocator::~CudaCachingAllocator() {
  // At process exit the CUDA runtime may already be gone: errors here change nothing.
  cudaSetDevice(device_index_);
  ReleaseCachedBlocks();
}

Maybe<void*> CudaCachingAllocator::DeviceMalloc(size_t bytes) {
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index_), "cudaSetDevice"));
  void* ptr = nullptr;
  const cudaError_t status = cudaMalloc(&ptr, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // an allocation failure is not sticky; clear it before any retry
    return static_cast<void*>(nullptr);
  }
  OFLITE_JUST(CudaCheck(status, "cudaMalloc"));
  return ptr;
}

// The device is current: WaitForDevice, or the destructor, set it.
Maybe<void> CudaCachingAllocator::DeviceFree(void* ptr) {
  return CudaCheck(cudaFree(ptr), "cudaFree");
}

Maybe<void> CudaCachingAllocator::WaitForDevice() {
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index_), "cudaSetDevice"));
  // Work already queued may still read a cached block; let it finish before the memory goes.
  return CudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

std::string CudaCachingAllocator::DescribeFreeMemory() {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  Maybe<void> info = CudaCheck(cudaSetDevice(device_index_), "cudaSetDevice");
  if (info.ok()) {
    info = CudaCheck(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  }
  if (!info.ok()) {
    return "free memory unknown: " + info.error().message();
  }
  return std::to_string(free_bytes) + " bytes free of " + std::to_string(total_bytes);
}

}  // namespace ep
}  // namespace oflite
