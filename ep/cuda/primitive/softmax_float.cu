// Explicit instantiation of the softmax launchers for float: one .cu per dtype so that the
// kernels of different dtypes compile in parallel.
#include "ep/cuda/primitive/softmax_launch.cuh"

namespace oflite {
namespace ep {
namespace softmax {

#define OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(algorithm)                                          \
  template cudaError_t Launch<float, algorithm>(const CudaDeviceProperties&, cudaStream_t,    \
                                                int64_t, int64_t, const float*, const float*, \
                                                float*, SoftmaxImpl, LaunchInfo*);
OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(Algorithm::kSoftmax)
OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(Algorithm::kLogSoftmax)
#undef OFLITE_INSTANTIATE_SOFTMAX_LAUNCH

}  // namespace softmax
}  // namespace ep
}  // namespace oflite
