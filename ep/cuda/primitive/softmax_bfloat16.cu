// Explicit instantiation of the softmax launchers for __nv_bfloat16: one .cu per dtype so that the
// kernels of different dtypes compile in parallel.
#include "ep/cuda/primitive/softmax_launch.cuh"

namespace oflite {
namespace ep {
namespace softmax {

#define OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(algorithm)                                     \
  template cudaError_t Launch<__nv_bfloat16, algorithm>(                                 \
      const CudaDeviceProperties&, cudaStream_t, int64_t, int64_t, const __nv_bfloat16*, \
      const __nv_bfloat16*, __nv_bfloat16*, SoftmaxImpl, LaunchInfo*);
OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(Algorithm::kSoftmax)
OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(Algorithm::kLogSoftmax)
#undef OFLITE_INSTANTIATE_SOFTMAX_LAUNCH

}  // namespace softmax
}  // namespace ep
}  // namespace oflite
