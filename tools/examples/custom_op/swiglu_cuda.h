// The CUDA launcher of swiglu, free of the framework as kernel headers are: raw pointers in,
// cudaError_t out. swiglu_cuda_kernel.cpp turns the status into an oflite error.
#ifndef EXAMPLE_CUSTOM_OP_SWIGLU_CUDA_H_
#define EXAMPLE_CUSTOM_OP_SWIGLU_CUDA_H_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace example {

// y[i] = x[i] * silu(gate[i]) for i < n, queued on `stream`; 16-bit floats compute in float.
// Instantiated in swiglu_cuda.cu for float, double, __half and __nv_bfloat16.
template <typename T>
cudaError_t LaunchSwiglu(cudaStream_t stream, const T* x, const T* gate, T* y, int64_t n);

}  // namespace example

#endif  // EXAMPLE_CUSTOM_OP_SWIGLU_CUDA_H_
