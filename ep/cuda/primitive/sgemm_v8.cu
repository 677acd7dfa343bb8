// sgemm ladder rung v8: v7 with double-buffered shared memory. 128 x 128 block tile, BK = 8,
// 256 threads of 8 x 8 outputs. While the block multiplies the tiles in one buffer, each
// thread already holds the next k tile's A and B floats in registers (fetched from global
// memory before the math, so their latency hides behind it) and stores them into the other
// buffer afterwards: one __syncthreads per k step instead of two. float4 global loads and C
// stores as v6, with its masked scalar fallback for shapes or pointers it cannot vectorize.
#include "ep/cuda/primitive/sgemm.h"
#include "ep/cuda/primitive/sgemm_tiles.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

using namespace tiles;  // NOLINT: the tile constants and helpers

// Grid (ceil(n / 128), ceil(m / 128)), 256 threads; thread t owns the 8 x 8 outputs at rows
// (t / 16) * 8, columns (t % 16) * 8 of the block tile.
template <bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
    SgemmV8Kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                  const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ __align__(16) float as[2][kBK * kLdAT];
  __shared__ __align__(16) float bs[2][kBK * kBN];
  const auto [tid, block_row, block_col, thread_row, thread_col] = ThisBlockTileThread();
  const int num_tiles = CeilDiv(k, kBK);

  float acc[kTM][kTN] = {};
  if (num_tiles > 0) {
    StoreATileTransposed(as[0], tid, FetchA<kVec>(a, m, k, block_row, 0, tid));
    StoreBTile(bs[0], tid, FetchB<kVec>(b, k, n, 0, block_col, tid));
    __syncthreads();
  }
  for (int t = 0; t < num_tiles; ++t) {
    const int cur = t & 1;
    const bool has_next = t + 1 < num_tiles;
    float4 next_a;
    float4 next_b;
    if (has_next) {  // issue the next tile's global loads before the math
      const int k0 = (t + 1) * kBK;
      next_a = FetchA<kVec>(a, m, k, block_row, k0, tid);
      next_b = FetchB<kVec>(b, k, n, k0, block_col, tid);
    }
    MultiplyTransposedTile(acc, as[cur], bs[cur], thread_row, thread_col);
    if (has_next) {
      // The other buffer was last read in step t - 1, which ended with a barrier.
      StoreATileTransposed(as[cur ^ 1], tid, next_a);
      StoreBTile(bs[cur ^ 1], tid, next_b);
    }
    __syncthreads();
  }

  StoreThreadTile<kVec>(c, m, n, block_row + thread_row, block_col + thread_col, acc, alpha, beta);
}

cudaError_t LaunchV8(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  return LaunchBlockTile(CanVectorize(n, k, a, b, c), SgemmV8Kernel<true>, SgemmV8Kernel<false>,
                         BlockTileGrid(m, n), stream, m, n, k, alpha, a, b, beta, c);
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(8, "sgemm_v8",
                           "double-buffered shared memory, next k tile prefetched into registers "
                           "during the math",
                           LaunchV8);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
