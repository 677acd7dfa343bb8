#include "ep/cuda/pool_allocator.h"

#include "ep/cuda/cuda_stream.h"

namespace oflite {
namespace ep {

Maybe<std::shared_ptr<Allocator>> CudaPoolAllocator::Create(int device_index, cudaMemPool_t pool,
                                                            Stream* default_stream) {
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index), "cudaSetDevice"));
  int supported = 0;
  OFLITE_JUST(
      CudaCheck(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device_index),
                "cudaDeviceGetAttribute"));
  OFLITE_CHECK_OR_RETURN(supported != 0, NotImplemented)
      << "cuda:" << device_index << " has no stream-ordered memory pools";
  if (pool == nullptr) {
    OFLITE_JUST(
        CudaCheck(cudaDeviceGetDefaultMemPool(&pool, device_index), "cudaDeviceGetDefaultMemPool"));
  }
  // A pool of another device would hand out memory the kernels cannot read.
  cudaMemLocation location{};
  location.type = cudaMemLocationTypeDevice;
  location.id = device_index;
  cudaMemAccessFlags access = cudaMemAccessFlagsProtNone;
  const Maybe<void> queried =
      CudaCheck(cudaMemPoolGetAccess(&access, pool, &location), "cudaMemPoolGetAccess");
  OFLITE_CHECK_OR_RETURN(queried.ok() && access == cudaMemAccessFlagsProtReadWrite, ValueError)
      << "NewCudaPoolAllocator: pool " << static_cast<void*>(pool)
      << " is not a memory pool that cuda:" << device_index << " can read and write"
      << (queried.ok() ? "" : " (" + queried.error().message() + ")");
  return std::shared_ptr<Allocator>(new CudaPoolAllocator(device_index, pool, default_stream));
}

Maybe<cudaStream_t> CudaPoolAllocator::NativeStream(Stream* stream) const {
  CudaStream* cuda_stream = nullptr;
  OFLITE_ASSIGN_OR_RETURN(
      cuda_stream,
      ActiveCudaStream(stream != nullptr ? stream : default_stream_, "CudaPoolAllocator"));
  OFLITE_CHECK_OR_RETURN(cuda_stream->device_index() == device_index_, ValueError)
      << "CudaPoolAllocator of cuda:" << device_index_
      << ": got a stream of cuda:" << cuda_stream->device_index();
  return cuda_stream->cuda_stream();
}

Maybe<void*> CudaPoolAllocator::Allocate(size_t bytes, Stream* stream) {
  if (bytes == 0) {
    return static_cast<void*>(nullptr);
  }
  cudaStream_t native = nullptr;
  OFLITE_ASSIGN_OR_RETURN(native, NativeStream(stream));
  void* ptr = nullptr;
  const cudaError_t status = cudaMallocFromPoolAsync(&ptr, bytes, pool_, native);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    cudaGetLastError();
    return OFLITE_ERROR(OutOfMemory)
           << "cuda:" << device_index_ << " memory pool: cannot allocate " << bytes << " bytes ("
           << free_bytes << " bytes free of " << total_bytes << ")";
  }
  OFLITE_JUST(CudaCheck(status, "cudaMallocFromPoolAsync"));
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.allocation_count;
  ++stats_.device_malloc_count;
  stats_.allocated_bytes += bytes;
  if (stats_.allocated_bytes > stats_.peak_allocated_bytes) {
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  }
  return ptr;
}

void CudaPoolAllocator::Deallocate(void* ptr, size_t bytes, Stream* stream) {
  if (ptr == nullptr) {
    return;
  }
  Maybe<cudaStream_t> native = NativeStream(stream);
  // A free cannot report failure: at process exit the runtime may be gone already.
  if (native.ok()) {
    cudaFreeAsync(ptr, native.value());
  }
  cudaGetLastError();
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.allocated_bytes -= bytes;
  ++stats_.device_free_count;
}

AllocatorStats CudaPoolAllocator::GetStats() const {
  AllocatorStats stats;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats = stats_;
  }
  uint64_t reserved = 0;
  if (cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess) {
    stats.reserved_bytes = static_cast<size_t>(reserved);
  }
  cudaGetLastError();
  return stats;
}

Maybe<void> CudaPoolAllocator::EmptyCache() {
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index_), "cudaSetDevice"));
  OFLITE_JUST(CudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
  return CudaCheck(cudaMemPoolTrimTo(pool_, 0), "cudaMemPoolTrimTo");
}

}  // namespace ep
}  // namespace oflite
