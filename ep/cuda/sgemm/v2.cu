// sgemm rung v2: v1's tiles, laid out for the memory system. A 1-D block of 1024 threads owns a
// 32 x 32 tile of C and slides 32 x 32 tiles of A and B along K (BK = 32: half as many
// __syncthreads per multiply-add as v1's BK = 16). Thread t handles row t / 32, column t % 32,
// so each warp is one full tile row: its A and B tile loads and its C stores are single
// 128-byte coalesced transactions (v1's 16-wide rows give half-warp, 64-byte segments), its
// reads of the A tile are one broadcast per step and its reads of the B tile hit 32 distinct
// banks. The inner loop is fully unrolled over the constant BK.
#include "ep/cuda/sgemm/common.cuh"
#include "ep/cuda/sgemm/sgemm.h"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

constexpr int kTile = 32;
constexpr int kThreads = kTile * kTile;

__global__ void __launch_bounds__(kThreads)
    SgemmV2Kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                  const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ float a_tile[kTile * kTile];
  __shared__ float b_tile[kTile * kTile];
  const int tr = threadIdx.x / kTile;  // row inside the tile: one per warp
  const int tc = threadIdx.x % kTile;  // column inside the tile: one per lane
  const int row = blockIdx.y * kTile + tr;
  const int col = blockIdx.x * kTile + tc;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    a_tile[tr * kTile + tc] = LoadMasked(a, k, row, k0 + tc, m, k);
    b_tile[tr * kTile + tc] = LoadMasked(b, n, k0 + tr, col, k, n);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTile; ++i) {
      acc += a_tile[tr * kTile + i] * b_tile[i * kTile + tc];
    }
    __syncthreads();
  }
  StoreC(c, n, row, col, m, n, acc, alpha, beta);
}

cudaError_t LaunchV2(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  const dim3 grid(CeilDiv(n, kTile), CeilDiv(m, kTile));
  SgemmV2Kernel<<<grid, kThreads, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
  return cudaGetLastError();
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(2, "sgemm_v2",
                           "32x32 tiles slid along K (BK=32) by a 1-D block: warp = one tile row, "
                           "coalesced 128-byte loads, broadcast A reads, half v1's syncs",
                           LaunchV2);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
