// The 1-D thread-tile kernel of sgemm rungs v3 and v4: a block of 512 threads owns a 64 x 64
// tile of C and slides 64 x 8 tiles of A and 8 x 64 tiles of B along K. Each thread computes a
// column of 8 outputs: per step of the inner K loop it reads one B value from shared memory
// into a register and reuses it for its 8 rows.
//
// kVec = false (v3, and v4's fallback): every thread loads one element of the A tile and one of
// the B tile, masked per element, so any shape and any pointer works.
// kVec = true (v4): 128 threads load the A tile and 128 more the B tile, one float4 each. Needs
// k % 4 == 0, n % 4 == 0 and a, b 16-byte aligned (then every row of A and B starts aligned and
// a float4 never straddles the edge of the matrix, so masking is per float4).
#ifndef ONEFLOW_LITE_EP_CUDA_SGEMM_THREAD_TILE_CUH_
#define ONEFLOW_LITE_EP_CUDA_SGEMM_THREAD_TILE_CUH_

#include <cuda_runtime.h>

#include <cstdint>

#include "ep/cuda/sgemm/common.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace thread_tile {

constexpr int kBm = 64;
constexpr int kBn = 64;
constexpr int kBk = 8;
constexpr int kTm = 8;                     // outputs per thread, along the rows
constexpr int kThreads = kBm * kBn / kTm;  // 512
constexpr int kAVecs = kBm * kBk / 4;      // 128 float4 in the A tile
constexpr int kBVecs = kBk * kBn / 4;      // 128 float4 in the B tile
static_assert(kThreads == kBm * kBk, "scalar path: one A element per thread and step");
static_assert(kThreads == kBk * kBn, "scalar path: one B element per thread and step");
static_assert(kAVecs + kBVecs <= kThreads, "vector path: one float4 per loading thread");

// dst[0 .. 3] = p[row][col .. col + 3] of a rows x cols matrix (ld cols) as one float4, or 0
// outside it (cols % 4 == 0 and col % 4 == 0: the 4 columns are all inside or all outside).
__device__ __forceinline__ void CopyFloat4(float* dst, const float* p, int rows, int cols, int row,
                                           int col) {
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (row < rows && col < cols) {
    v = *reinterpret_cast<const float4*>(p + static_cast<int64_t>(row) * cols + col);
  }
  *reinterpret_cast<float4*>(dst) = v;
}

// Grid (ceil(n / 64), ceil(m / 64)), kThreads threads.
template <bool kVec>
__global__ void __launch_bounds__(kThreads)
    ThreadTileKernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                     const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ __align__(16) float a_tile[kBm * kBk];
  __shared__ __align__(16) float b_tile[kBk * kBn];
  const int block_row = blockIdx.y * kBm;
  const int block_col = blockIdx.x * kBn;
  const int t = threadIdx.x;
  // Computing: thread column t % 64 (a warp's columns are contiguous), rows (t / 64) * 8 + i.
  const int tc = t % kBn;
  const int tr = t / kBn;

  float acc[kTm] = {};
  for (int k0 = 0; k0 < k; k0 += kBk) {
    if (kVec) {
      if (t < kAVecs) {  // warps 0-3: the A tile, 64 rows of 2 float4
        const int r = t / (kBk / 4);
        const int c4 = (t % (kBk / 4)) * 4;
        CopyFloat4(&a_tile[r * kBk + c4], a, m, k, block_row + r, k0 + c4);
      } else if (t < kAVecs + kBVecs) {  // warps 4-7: the B tile, 8 rows of 16 float4
        const int u = t - kAVecs;
        const int r = u / (kBn / 4);
        const int c4 = (u % (kBn / 4)) * 4;
        CopyFloat4(&b_tile[r * kBn + c4], b, k, n, k0 + r, block_col + c4);
      }
    } else {  // A as 64 rows of 8, B as 8 rows of 64, one element each
      const int a_r = t / kBk;
      const int a_c = t % kBk;
      const int b_r = t / kBn;
      const int b_c = t % kBn;
      a_tile[a_r * kBk + a_c] = LoadMasked(a, k, block_row + a_r, k0 + a_c, m, k);
      b_tile[b_r * kBn + b_c] = LoadMasked(b, n, k0 + b_r, block_col + b_c, k, n);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kBk; ++i) {
      const float b_val = b_tile[i * kBn + tc];
#pragma unroll
      for (int r = 0; r < kTm; ++r) {
        acc[r] += a_tile[(tr * kTm + r) * kBk + i] * b_val;
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < kTm; ++r) {
    StoreC(c, n, block_row + tr * kTm + r, block_col + tc, m, n, acc[r], alpha, beta);
  }
}

// Launches ThreadTileKernel<vec> (vec = true only when the float4 conditions above hold).
inline cudaError_t Launch(bool vec, cudaStream_t stream, int m, int n, int k, float alpha,
                          const float* a, const float* b, float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  const dim3 grid(CeilDiv(n, kBn), CeilDiv(m, kBm));
  if (vec) {
    ThreadTileKernel<true><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
  } else {
    ThreadTileKernel<false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
  }
  return cudaGetLastError();
}

}  // namespace thread_tile
}  // namespace sgemm
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_SGEMM_THREAD_TILE_CUH_
