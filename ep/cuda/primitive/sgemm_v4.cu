// sgemm rung v4: v3's tiling (64 x 64 block tile, BK = 8, 8 outputs per thread) with the A and
// B tiles fetched as float4: 128 threads load the 64 x 8 A tile and 128 more the 8 x 64 B tile,
// one 16-byte load and one 16-byte shared store each, a quarter of v3's load instructions.
// Taken when k % 4 == 0, n % 4 == 0 and A and B are 16-byte aligned: then every row of A and B
// starts aligned and a float4 never straddles the edge of the matrix (k0 and the tile columns
// are multiples of 4), so masking is per float4. Any other shape or pointer runs the same
// kernel with v3's scalar, element-masked loads.
#include "ep/cuda/primitive/sgemm.h"
#include "ep/cuda/primitive/sgemm_common.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

constexpr int kBm = 64;
constexpr int kBn = 64;
constexpr int kBk = 8;
constexpr int kTm = 8;
constexpr int kThreads = kBm * kBn / kTm;  // 512
constexpr int kAVecs = kBm * kBk / 4;      // 128 float4 in the A tile
constexpr int kBVecs = kBk * kBn / 4;      // 128 float4 in the B tile
static_assert(kThreads == kBm * kBk && kThreads == kBk * kBn, "scalar path: one each");
static_assert(kAVecs + kBVecs <= kThreads, "vector path: one float4 per loading thread");

template <bool kVec>
__global__ void __launch_bounds__(kThreads)
    SgemmV4Kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                  const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ __align__(16) float a_tile[kBm * kBk];
  __shared__ __align__(16) float b_tile[kBk * kBn];
  const int block_row = blockIdx.y * kBm;
  const int block_col = blockIdx.x * kBn;
  const int t = threadIdx.x;
  const int tc = t % kBn;
  const int tr = t / kBn;

  float acc[kTm] = {};
  for (int k0 = 0; k0 < k; k0 += kBk) {
    if (kVec) {
      const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (t < kAVecs) {  // warps 0-3: the A tile, 64 rows of 2 float4
        const int r = t / (kBk / 4);
        const int c4 = (t % (kBk / 4)) * 4;
        const int row = block_row + r;
        const int col = k0 + c4;
        float4 v = zero;
        if (row < m && col < k) {
          v = *reinterpret_cast<const float4*>(a + static_cast<int64_t>(row) * k + col);
        }
        *reinterpret_cast<float4*>(&a_tile[r * kBk + c4]) = v;
      } else if (t < kAVecs + kBVecs) {  // warps 4-7: the B tile, 8 rows of 16 float4
        const int u = t - kAVecs;
        const int r = u / (kBn / 4);
        const int c4 = (u % (kBn / 4)) * 4;
        const int row = k0 + r;
        const int col = block_col + c4;
        float4 v = zero;
        if (row < k && col < n) {
          v = *reinterpret_cast<const float4*>(b + static_cast<int64_t>(row) * n + col);
        }
        *reinterpret_cast<float4*>(&b_tile[r * kBn + c4]) = v;
      }
    } else {
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

cudaError_t LaunchV4(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  const dim3 grid(CeilDiv(n, kBn), CeilDiv(m, kBm));
  const bool vec = k % 4 == 0 && n % 4 == 0 && IsAligned16(a) && IsAligned16(b);
  if (vec) {
    SgemmV4Kernel<true><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
  } else {
    SgemmV4Kernel<false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
  }
  return cudaGetLastError();
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(
    4, "sgemm_v4",
    "float4 loads of the A and B tiles (k%4 == 0, n%4 == 0, 16-byte aligned; "
    "else v3's scalar loads) on v3's 8-outputs-per-thread tiling",
    LaunchV4);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
