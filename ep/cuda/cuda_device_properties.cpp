#include "ep/cuda/cuda_device_properties.h"

#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>

#include "ep/cuda/cuda_stream.h"

namespace oflite {
namespace ep {

Maybe<const CudaDeviceProperties*> GetCudaDeviceProperties(int device_index) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<CudaDeviceProperties>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[device_index];
  if (slot == nullptr) {
    cudaDeviceProp prop;
    OFLITE_JUST(CudaCheck(cudaGetDeviceProperties(&prop, device_index), "cudaGetDeviceProperties"));
    auto props = std::make_unique<CudaDeviceProperties>();
    props->device_index = device_index;
    props->sm_count = prop.multiProcessorCount;
    props->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    props->max_threads_per_block = prop.maxThreadsPerBlock;
    props->shared_memory_per_block = prop.sharedMemPerBlock;
    props->shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
    props->shared_memory_per_sm = prop.sharedMemPerMultiprocessor;
    props->l2_bytes = static_cast<size_t>(prop.l2CacheSize);
    props->max_pitch = prop.memPitch;
    props->compute_capability_major = prop.major;
    props->compute_capability_minor = prop.minor;
    slot = std::move(props);
  }
  return static_cast<const CudaDeviceProperties*>(slot.get());
}

}  // namespace ep
}  // namespace oflite
