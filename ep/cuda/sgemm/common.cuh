// Small device helpers the sgemm ladder's rungs share (ep/cuda/sgemm/v*.cu): ceiling
// division, masked loads of A and B (0 outside the matrix, so padded tile entries add nothing),
// the alignment test for vector loads, and the epilogue store of one C element.
// Row-major throughout: A is m x k (ld k), B is k x n (ld n), C is m x n (ld n).
#ifndef ONEFLOW_LITE_EP_CUDA_SGEMM_COMMON_CUH_
#define ONEFLOW_LITE_EP_CUDA_SGEMM_COMMON_CUH_

#include <cuda_runtime.h>

#include <cstdint>

namespace oflite {
namespace ep {
namespace sgemm {

// ceil(a / b) for a >= 0, b > 0.
__host__ __device__ constexpr inline int CeilDiv(int a, int b) { return (a + b - 1) / b; }

// p[row * ld + col] when (row, col) lies inside rows x cols, else 0. Index math in 64 bits so
// that row * ld cannot overflow int for large matrices.
__device__ __forceinline__ float LoadMasked(const float* p, int ld, int row, int col, int rows,
                                            int cols) {
  return (row < rows && col < cols) ? p[static_cast<int64_t>(row) * ld + col] : 0.0f;
}

// True when p is 16-byte aligned (a float4 may be loaded from it).
__host__ __device__ inline bool IsAligned16(const void* p) {
  return (reinterpret_cast<uintptr_t>(p) & 15u) == 0;
}

// The epilogue: c[row][col] = alpha * acc + beta * c[row][col], where beta == 0 never reads c
// (so NaN or garbage in C is ignored, as BLAS does). Does nothing outside m x n.
__device__ __forceinline__ void StoreC(float* c, int ldc, int row, int col, int m, int n, float acc,
                                       float alpha, float beta) {
  if (row < m && col < n) {
    float* dst = c + static_cast<int64_t>(row) * ldc + col;
    *dst = beta == 0.0f ? alpha * acc : alpha * acc + beta * *dst;
  }
}

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_SGEMM_COMMON_CUH_
