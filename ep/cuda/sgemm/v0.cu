// sgemm rung v0: the naive kernel. One thread per output element; every multiply reads its A and
// B operands straight from global memory (no reuse beyond what the caches give). 16 x 16 thread
// blocks, threadIdx.x along the columns so that a warp's B loads and C stores are contiguous.
#include "ep/cuda/sgemm/common.cuh"
#include "ep/cuda/sgemm/sgemm.h"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

constexpr int kBlock = 16;

__global__ void SgemmV0Kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                              const float* __restrict__ b, float beta, float* __restrict__ c) {
  const int row = blockIdx.y * kBlock + threadIdx.y;
  const int col = blockIdx.x * kBlock + threadIdx.x;
  if (row >= m || col >= n) {
    return;
  }
  const float* a_row = a + static_cast<int64_t>(row) * k;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) {
    acc += a_row[i] * b[static_cast<int64_t>(i) * n + col];
  }
  StoreC(c, n, row, col, m, n, acc, alpha, beta);
}

cudaError_t LaunchV0(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  const dim3 block(kBlock, kBlock);
  const dim3 grid(CeilDiv(n, kBlock), CeilDiv(m, kBlock));
  SgemmV0Kernel<<<grid, block, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
  return cudaGetLastError();
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(0, "sgemm_v0", "naive: one thread per output, A and B read from global",
                           LaunchV0);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
