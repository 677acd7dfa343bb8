// Explicit instantiation of the softmax launchers for __half: one .cu per dtype so that the
// kernels of different dtypes compile in parallel.
#include "ep/cuda/primitive/softmax_launch.cuh"

namespace oflite {
namespace ep {
namespace softmax {

#define OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(algorithm)                                             \
  template cudaError_t Launch<__half, algorithm>(const CudaDeviceProperties&, cudaStream_t,      \
                                                 int64_t, int64_t, const __half*, const __half*, \
                                                 __half*, SoftmaxImpl, LaunchInfo*);
OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(Algorithm::kSoftmax)
OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(Algorithm::kLogSoftmax)
#undef OFLITE_INSTANTIATE_SOFTMAX_LAUNCH

}  // namespace softmax
}  // namespace ep
}  // namespace oflite
