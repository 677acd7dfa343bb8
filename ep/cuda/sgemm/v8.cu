// sgemm ladder rung v8: v7 with double buffering at both levels of the memory hierarchy.
// 128 x 128 block tile, BK = 8, 256 threads of 8 x 8 outputs.
//  - Shared memory: while the block multiplies the tiles in one buffer, each thread already
//    holds the next k tile's A and B floats in registers (fetched from global memory before the
//    math, so their latency hides behind it) and stores them into the other buffer afterwards:
//    one __syncthreads per k step instead of two.
//  - Registers: a thread reads k step kk + 1's fragments from shared memory while it multiplies
//    step kk's, so the shared-memory latency hides behind the FMAs too.
// A thread's 8 x 8 outputs are four 4 x 4 quadrants 64 rows and 64 columns apart (rows
// (t / 16) * 4 + {0, 64}, columns (t % 16) * 4 + {0, 64}): a warp's float4 reads of a B row then
// cover 16 consecutive float4 (two wavefronts), where v7's contiguous 8 x 8 reads 16 float4 at a
// stride of 8 floats (bank conflicts: ncu counted 5-way on average for that layout). float4
// global loads and C stores as v6, with its masked scalar fallback for shapes or pointers it
// cannot vectorize.
#include "ep/cuda/sgemm/sgemm.h"
#include "ep/cuda/sgemm/tiles.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

using namespace tiles;  // NOLINT: the tile constants and helpers

constexpr int kQuad = 4;            // a quadrant is 4 x 4
constexpr int kQuadRows = kBM / 2;  // 64: distance between a thread's two quadrant rows
constexpr int kQuadCols = kBN / 2;  // 64: and between its two quadrant columns
static_assert(2 * kQuad == kTM && 2 * kQuad == kTN, "8 x 8 outputs as 2 x 2 quadrants");

// k step kk's fragments: this thread's 8 rows of one column of the transposed A tile and its 8
// columns of one row of the B tile, as 2 float4 each.
__device__ __forceinline__ void LoadFragments(float (&ra)[kTM], float (&rb)[kTN],
                                              const float* __restrict__ as,
                                              const float* __restrict__ bs, int kk, int row0,
                                              int col0) {
  LoadShared4(ra, 0, as + kk * kLdAT + row0);
  LoadShared4(ra, kQuad, as + kk * kLdAT + row0 + kQuadRows);
  LoadShared4(rb, 0, bs + kk * kBN + col0);
  LoadShared4(rb, kQuad, bs + kk * kBN + col0 + kQuadCols);
}

// The kBK k steps of one tile, the fragments double-buffered in registers.
__device__ __forceinline__ void MultiplyTile(float (&acc)[kTM][kTN], const float* __restrict__ as,
                                             const float* __restrict__ bs, int row0, int col0) {
  float ra[2][kTM];
  float rb[2][kTN];
  LoadFragments(ra[0], rb[0], as, bs, 0, row0, col0);
#pragma unroll
  for (int kk = 0; kk < kBK; ++kk) {
    if (kk + 1 < kBK) {
      LoadFragments(ra[(kk + 1) % 2], rb[(kk + 1) % 2], as, bs, kk + 1, row0, col0);
    }
    OuterProduct(acc, ra[kk % 2], rb[kk % 2]);
  }
}

// Grid (ceil(n / 128), ceil(m / 128)), 256 threads; thread t owns the quadrants above.
template <bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
    SgemmV8Kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                  const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ __align__(16) float as[2][kBK * kLdAT];
  __shared__ __align__(16) float bs[2][kBK * kBN];
  const int tid = threadIdx.x;
  const int block_row = blockIdx.y * kBM;
  const int block_col = blockIdx.x * kBN;
  const int row0 = (tid / (kQuadCols / kQuad)) * kQuad;
  const int col0 = (tid % (kQuadCols / kQuad)) * kQuad;
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
    MultiplyTile(acc, as[cur], bs[cur], row0, col0);
    if (has_next) {
      // The other buffer was last read in step t - 1, which ended with a barrier.
      StoreATileTransposed(as[cur ^ 1], tid, next_a);
      StoreBTile(bs[cur ^ 1], tid, next_b);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = block_row + row0 + (i / kQuad) * kQuadRows + i % kQuad;
#pragma unroll
    for (int j = 0; j < kTN; j += kQuad) {
      StoreC4<kVec>(c, m, n, row, block_col + col0 + (j / kQuad) * kQuadCols,
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]), alpha,
                    beta);
    }
  }
}

cudaError_t LaunchV8(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  return LaunchBlockTile(CanVectorize(n, k, a, b, c), SgemmV8Kernel<true>, SgemmV8Kernel<false>,
                         BlockTileGrid(m, n), stream, m, n, k, alpha, a, b, beta, c);
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(8, "sgemm_v8",
                           "double-buffered shared memory (next k tile prefetched into registers "
                           "during the math) and register fragments, 4 x 4 quadrants",
                           LaunchV8);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
