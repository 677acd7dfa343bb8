// Properties of one CUDA device, read once per device and cached: launch configuration reads
// them on every call, and cudaGetDeviceProperties is far too slow for that.
#ifndef ONEFLOW_LITE_EP_CUDA_CUDA_DEVICE_PROPERTIES_H_
#define ONEFLOW_LITE_EP_CUDA_CUDA_DEVICE_PROPERTIES_H_

#include <cstddef>

#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace ep {

struct CudaDeviceProperties {
  int device_index = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  size_t shared_memory_per_block = 0;        // without opting in (48 KB)
  size_t shared_memory_per_block_optin = 0;  // after cudaFuncSetAttribute raises the limit
  size_t shared_memory_per_sm = 0;
  size_t l2_bytes = 0;
  size_t max_pitch = 0;  // the longest row pitch a 2-D memcpy takes
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
};

// DeviceError when the device does not exist or cannot be queried.
Maybe<const CudaDeviceProperties*> GetCudaDeviceProperties(int device_index);

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_CUDA_DEVICE_PROPERTIES_H_
