// sgemm ladder rung v7: v6 with the A tile stored transposed in shared memory (kBK rows of
// kBM + 4 floats), so that a thread's 8 rows of one column of A are consecutive: per k step
// both operands are read from shared memory as 2 float4 each (4 LDS.128 instead of 8 scalar
// loads for A). The transposing stores are made conflict-free by the +4 pad. float4 global
// loads and C stores as v6, with its scalar fallback for shapes or pointers it cannot vectorize.
#include "ep/cuda/sgemm/sgemm.h"
#include "ep/cuda/sgemm/tiles.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

using namespace tiles;  // NOLINT: the tile constants and helpers

// Grid (ceil(n / 128), ceil(m / 128)), 256 threads; thread t owns the 8 x 8 outputs at rows
// (t / 16) * 8, columns (t % 16) * 8 of the block tile.
template <bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
    SgemmV7Kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                  const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ __align__(16) float as[kBK * kLdAT];
  __shared__ __align__(16) float bs[kBK * kBN];
  const auto [tid, block_row, block_col, thread_row, thread_col] = ThisBlockTileThread();

  float acc[kTM][kTN] = {};
  for (int k0 = 0; k0 < k; k0 += kBK) {
    StoreATileTransposed(as, tid, FetchA<kVec>(a, m, k, block_row, k0, tid));
    StoreBTile(bs, tid, FetchB<kVec>(b, k, n, k0, block_col, tid));
    __syncthreads();
    MultiplyTransposedTile(acc, as, bs, thread_row, thread_col);
    __syncthreads();
  }

  StoreThreadTile<kVec>(c, m, n, block_row + thread_row, block_col + thread_col, acc, alpha, beta);
}

cudaError_t LaunchV7(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  return LaunchBlockTile(CanVectorize(n, k, a, b, c), SgemmV7Kernel<true>, SgemmV7Kernel<false>,
                         BlockTileGrid(m, n), stream, m, n, k, alpha, a, b, beta, c);
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(7, "sgemm_v7",
                           "A tile transposed in shared memory: both operands read from shared "
                           "memory as float4",
                           LaunchV7);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
