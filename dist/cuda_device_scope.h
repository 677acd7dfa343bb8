// CudaDeviceScope: makes a GPU current for a scope and gives the caller's back at its end, for
// code that may run on any thread (destructors, thread ranks) (internal).
#ifndef ONEFLOW_LITE_DIST_CUDA_DEVICE_SCOPE_H_
#define ONEFLOW_LITE_DIST_CUDA_DEVICE_SCOPE_H_

#if OFLITE_WITH_NCCL
#include <cuda_runtime.h>

namespace oflite {
namespace dist {

class CudaDeviceScope {
 public:
  explicit CudaDeviceScope(int device) {
    cudaGetDevice(&caller_);
    cudaSetDevice(device);
  }
  CudaDeviceScope(const CudaDeviceScope&) = delete;
  CudaDeviceScope& operator=(const CudaDeviceScope&) = delete;
  ~CudaDeviceScope() {
    if (caller_ >= 0) {
      cudaSetDevice(caller_);
    }
  }

 private:
  int caller_ = -1;
};

}  // namespace dist
}  // namespace oflite

#endif  // OFLITE_WITH_NCCL
#endif  // ONEFLOW_LITE_DIST_CUDA_DEVICE_SCOPE_H_
