// swiglu's CUDA kernel: one grid-stride loop with 64-bit indices.
#include <algorithm>

#include "swiglu_cuda.h"

namespace example {
namespace {

// 16-bit floats compute in float; __half and __nv_bfloat16 convert both ways, rounding to
// nearest even when stored.
template <typename T>
struct ComputeTypeOf {
  using type = float;
};
template <>
struct ComputeTypeOf<double> {
  using type = double;
};

template <typename T>
__global__ void SwigluKernel(const T* x, const T* gate, T* y, int64_t n) {
  using C = typename ComputeTypeOf<T>::type;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const C g = static_cast<C>(gate[i]);
    y[i] = static_cast<T>(static_cast<C>(x[i]) * g / (C(1) + exp(-g)));
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchSwiglu(cudaStream_t stream, const T* x, const T* gate, T* y, int64_t n) {
  if (n == 0) {
    return cudaSuccess;
  }
  // Enough blocks to fill any current GPU many times over; the loop covers the rest.
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{1} << 14);
  SwigluKernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x, gate, y, n);
  return cudaPeekAtLastError();
}

template cudaError_t LaunchSwiglu<float>(cudaStream_t, const float*, const float*, float*, int64_t);
template cudaError_t LaunchSwiglu<double>(cudaStream_t, const double*, const double*, double*,
                                          int64_t);
template cudaError_t LaunchSwiglu<__half>(cudaStream_t, const __half*, const __half*, __half*,
                                          int64_t);
template cudaError_t LaunchSwiglu<__nv_bfloat16>(cudaStream_t, const __nv_bfloat16*,
                                                 const __nv_bfloat16*, __nv_bfloat16*, int64_t);

}  // namespace example
