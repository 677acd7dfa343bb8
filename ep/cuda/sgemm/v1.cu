// sgemm rung v1: shared-memory tiling, the textbook version. A 16 x 16 thread block owns a 16 x 16
// tile of C; for each 16-wide step along K it copies one 16 x 16 tile of A and one of B into
// shared memory (one element of each per thread, zero outside the matrices), synchronizes, and
// every thread accumulates its one output from the shared tiles: each global element is read by
// the block once instead of 16 times.
#include "ep/cuda/sgemm/common.cuh"
#include "ep/cuda/sgemm/sgemm.h"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

constexpr int kTile = 16;

__global__ void SgemmV1Kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                              const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int ty = threadIdx.y;
  const int tx = threadIdx.x;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    a_tile[ty][tx] = LoadMasked(a, k, row, k0 + tx, m, k);
    b_tile[ty][tx] = LoadMasked(b, n, k0 + ty, col, k, n);
    __syncthreads();
    for (int i = 0; i < kTile; ++i) {
      acc += a_tile[ty][i] * b_tile[i][tx];
    }
    __syncthreads();
  }
  StoreC(c, n, row, col, m, n, acc, alpha, beta);
}

cudaError_t LaunchV1(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  const dim3 block(kTile, kTile);
  const dim3 grid(CeilDiv(n, kTile), CeilDiv(m, kTile));
  SgemmV1Kernel<<<grid, block, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
  return cudaGetLastError();
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(1, "sgemm_v1",
                           "shared-memory tiles: 16x16 tiles of A and B staged per K step, "
                           "one output per thread",
                           LaunchV1);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
