// sgemm rung v3: several outputs per thread (1-D thread tiling). A block of 512 threads owns a
// 64 x 64 tile of C and slides 64 x 8 tiles of A and 8 x 64 tiles of B along K (one element of
// each per thread). Each thread computes a column of 8 outputs: per step of the inner K loop it
// reads one B value from shared memory into a register and reuses it for its 8 rows, so a
// multiply-add costs 1 + 1/8 shared loads instead of v2's 2, with the 8 partial sums in
// registers.
#include "ep/cuda/primitive/sgemm.h"
#include "ep/cuda/primitive/sgemm_common.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

constexpr int kBm = 64;
constexpr int kBn = 64;
constexpr int kBk = 8;
constexpr int kTm = 8;                     // outputs per thread, along the rows
constexpr int kThreads = kBm * kBn / kTm;  // 512
static_assert(kThreads == kBm * kBk, "one A element per thread and step");
static_assert(kThreads == kBk * kBn, "one B element per thread and step");

__global__ void __launch_bounds__(kThreads)
    SgemmV3Kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                  const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ float a_tile[kBm * kBk];
  __shared__ float b_tile[kBk * kBn];
  const int block_row = blockIdx.y * kBm;
  const int block_col = blockIdx.x * kBn;
  const int t = threadIdx.x;
  // Loading: A as 64 rows of 8, B as 8 rows of 64.
  const int a_r = t / kBk;
  const int a_c = t % kBk;
  const int b_r = t / kBn;
  const int b_c = t % kBn;
  // Computing: thread column t % 64 (a warp's columns are contiguous), rows (t / 64) * 8 + i.
  const int tc = t % kBn;
  const int tr = t / kBn;

  float acc[kTm] = {};
  for (int k0 = 0; k0 < k; k0 += kBk) {
    a_tile[a_r * kBk + a_c] = LoadMasked(a, k, block_row + a_r, k0 + a_c, m, k);
    b_tile[b_r * kBn + b_c] = LoadMasked(b, n, k0 + b_r, block_col + b_c, k, n);
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

cudaError_t LaunchV3(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  const dim3 grid(CeilDiv(n, kBn), CeilDiv(m, kBm));
  SgemmV3Kernel<<<grid, kThreads, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
  return cudaGetLastError();
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(3, "sgemm_v3",
                           "1-D thread tile: 8 outputs (rows) per thread, 64x64 block tile, BK=8, "
                           "one B register reused 8 times",
                           LaunchV3);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
