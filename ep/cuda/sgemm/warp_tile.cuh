// The warp-tiled, multi-stage SGEMM kernel of the ladder's final rung (best.cu), as a
// template over its tile shape (Config) so that the rung can pick a shape per problem size.
//
// A block computes a kBM x kBN tile of C, one warp per kWM x kWN warp tile. A lane owns a 4 x 4
// fragment of every (4 kLaneRows) x (4 kLaneCols) sub-tile, so a warp's reads of one A column
// and one B row are whole runs of distinct float4 (no bank conflicts). k tiles flow through a
// ring of kStages shared-memory stages: B by cp.async (zero-filled outside the matrix), A
// through registers, since it is stored transposed (a lane's 4 rows of one column are one
// float4), which a 16-byte copy cannot do. Tile t + kStages - 1 is in flight while tile t is
// multiplied, one barrier per k tile; fragments are double-buffered in registers; blocks run in
// Triton's grouped order (kGroupM block rows at a time) so that resident blocks share A and B
// panels in L2. Global addresses are computed once and advanced per k tile.
//
// Vector path (kVec): k % 4 == 0, n % 4 == 0 and a, b, c 16-byte aligned (tiles::CanVectorize);
// the scalar path works for any shape and pointer.
#ifndef ONEFLOW_LITE_EP_CUDA_SGEMM_WARP_TILE_CUH_
#define ONEFLOW_LITE_EP_CUDA_SGEMM_WARP_TILE_CUH_

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "ep/cuda/cp_async.cuh"
#include "ep/cuda/sgemm/common.cuh"
#include "ep/cuda/sgemm/tiles.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace warp_tile {

constexpr int kGroupM = 8;  // block rows per swizzle group

// One tile shape. kMinBlocks is the launch bound's blocks per SM (it caps the registers).
template <int kBM_, int kBN_, int kBK_, int kWM_, int kWN_, int kLaneRows_, int kStages_,
          int kMinBlocks_>
struct Config {
  static constexpr int kBM = kBM_;  // block tile rows
  static constexpr int kBN = kBN_;  // block tile columns
  static constexpr int kBK = kBK_;  // k tile depth
  static constexpr int kWM = kWM_;  // warp tile rows
  static constexpr int kWN = kWN_;  // warp tile columns
  static constexpr int kLaneRows = kLaneRows_;
  static constexpr int kStages = kStages_;
  static constexpr int kMinBlocks = kMinBlocks_;

  static constexpr int kLaneCols = 32 / kLaneRows;
  static constexpr int kFrag = 4;                  // a lane's fragment: 4 x 4
  static constexpr int kSubM = kLaneRows * kFrag;  // sub-tile rows
  static constexpr int kSubN = kLaneCols * kFrag;  // sub-tile columns
  static constexpr int kIterM = kWM / kSubM;       // sub-tiles down a warp tile
  static constexpr int kIterN = kWN / kSubN;       // and across
  static constexpr int kTM = kIterM * kFrag;       // outputs per thread, rows
  static constexpr int kTN = kIterN * kFrag;       // and columns
  static constexpr int kWarpsN = kBN / kWN;
  static constexpr int kThreads = (kBM / kWM) * kWarpsN * 32;
  // The transposed A tile's row pitch: +4 keeps rows 16-byte aligned and shifts the banks of
  // consecutive rows.
  static constexpr int kLdA = kBM + 4;
  static constexpr int kStageA = kBK * kLdA;  // floats of one stage's A tile
  static constexpr int kStageB = kBK * kBN;   // and B tile
  static constexpr int kSmemBytes = kStages * (kStageA + kStageB) * static_cast<int>(sizeof(float));
  // A tile: float4 number i of a thread covers row tid % kBM, columns
  // (i * kAColStep + tid / kBM) * 4 + 0..3: one row per thread, consecutive threads on
  // consecutive rows (so the transposing stores of a warp are 32 consecutive floats).
  static constexpr int kAVecs = kBM * kBK / 4 / kThreads;
  static constexpr int kAColStep = kThreads / kBM;

  static_assert(kLaneRows * kLaneCols == 32, "a warp has 32 lanes");
  static_assert(kIterM * kSubM == kWM && kIterN * kSubN == kWN, "whole sub-tiles per warp tile");
  static_assert(kThreads % kBM == 0, "every thread keeps one A row");
  static_assert(kAVecs * 4 * kThreads == kBM * kBK, "A tile: whole float4 per thread");
  static_assert(kStages >= 2, "a ring of at least two stages");
};

// B tile copies of kWidth floats (4 on the vector path, else 1): copy i of a thread covers
// row i * kRowStep + tid / kPerRow, columns (tid % kPerRow) * kWidth + 0..kWidth-1: one column
// group per thread.
template <class Cfg, int kWidth>
struct BCopies {
  static constexpr int kPerRow = Cfg::kBN / kWidth;
  static constexpr int kRowStep = Cfg::kThreads / kPerRow;
  static constexpr int kCount = Cfg::kBK * Cfg::kBN / kWidth / Cfg::kThreads;
  static_assert(Cfg::kThreads % kPerRow == 0, "every thread keeps one B column group");
  static_assert(kCount * kWidth * Cfg::kThreads == Cfg::kBK * Cfg::kBN, "B tile: whole copies");
};

// This block's tile origin in C, in grouped order.
template <class Cfg>
__device__ __forceinline__ void GroupedBlockOrigin(int m, int n, int& block_row, int& block_col) {
  const int num_pid_m = CeilDiv(m, Cfg::kBM);
  const int num_pid_n = CeilDiv(n, Cfg::kBN);
  const int pid = blockIdx.x;
  const int num_pid_in_group = kGroupM * num_pid_n;
  const int first_pid_m = (pid / num_pid_in_group) * kGroupM;
  const int group_size_m = min(num_pid_m - first_pid_m, kGroupM);
  block_row = (first_pid_m + (pid % num_pid_in_group) % group_size_m) * Cfg::kBM;
  block_col = ((pid % num_pid_in_group) / group_size_m) * Cfg::kBN;
}

// One thread's share of every k tile's global loads: where its A row and B columns start for
// the current k tile, and whether they lie inside the matrix at all.
template <class Cfg, bool kVec>
struct TileLoader {
  using B = BCopies<Cfg, kVec ? 4 : 1>;

  const float* a_src;  // A[row][k0 + first column]
  const float* b_src;  // B[k0 + first row][column]
  int a_col;           // the first column of its A float4s within a k tile
  int b_row;           // the first row of its B copies within a k tile
  bool a_row_inside;
  bool b_col_inside;
  int64_t b_row_pitch;   // floats between its consecutive B copies (kRowStep rows)
  int64_t b_tile_pitch;  // floats from one k tile of B to the next

  __device__ __forceinline__ TileLoader(const float* a, const float* b, int m, int n, int k,
                                        int block_row, int block_col, int tid) {
    const int row = block_row + tid % Cfg::kBM;
    a_col = (tid / Cfg::kBM) * 4;
    a_row_inside = row < m;
    a_src = a + (a_row_inside ? static_cast<int64_t>(row) * k + a_col : 0);
    const int col = block_col + (tid % B::kPerRow) * (kVec ? 4 : 1);
    b_row = tid / B::kPerRow;
    b_col_inside = col < n;  // vector path: n % 4 == 0, so all 4 columns are inside or outside
    b_src = b + (b_col_inside ? static_cast<int64_t>(b_row) * n + col : 0);
    b_row_pitch = static_cast<int64_t>(B::kRowStep) * n;
    b_tile_pitch = static_cast<int64_t>(Cfg::kBK) * n;
  }

  // The A tile at k0 into registers (0 outside the matrix).
  __device__ __forceinline__ void FetchA(float4 (&ra)[Cfg::kAVecs], int k, int k0) const {
#pragma unroll
    for (int i = 0; i < Cfg::kAVecs; ++i) {
      const int col = k0 + a_col + i * Cfg::kAColStep * 4;  // of A, the first of 4
      const float* src = a_src + i * Cfg::kAColStep * 4;
      if (kVec) {
        ra[i] = a_row_inside && col < k ? __ldg(reinterpret_cast<const float4*>(src))
                                        : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
        ra[i].x = a_row_inside && col + 0 < k ? __ldg(src + 0) : 0.0f;
        ra[i].y = a_row_inside && col + 1 < k ? __ldg(src + 1) : 0.0f;
        ra[i].z = a_row_inside && col + 2 < k ? __ldg(src + 2) : 0.0f;
        ra[i].w = a_row_inside && col + 3 < k ? __ldg(src + 3) : 0.0f;
      }
    }
  }

  // Those registers into a stage's A tile, transposed.
  __device__ __forceinline__ void StoreA(float* as, const float4 (&ra)[Cfg::kAVecs],
                                         int tid) const {
#pragma unroll
    for (int i = 0; i < Cfg::kAVecs; ++i) {
      float* dst = as + (a_col + i * Cfg::kAColStep * 4) * Cfg::kLdA + tid % Cfg::kBM;
      dst[0 * Cfg::kLdA] = ra[i].x;
      dst[1 * Cfg::kLdA] = ra[i].y;
      dst[2 * Cfg::kLdA] = ra[i].z;
      dst[3 * Cfg::kLdA] = ra[i].w;
    }
  }

  // Issues the copies of the B tile at k0 into a stage (bs[kk * kBN + c]).
  __device__ __forceinline__ void IssueB(float* bs, const float* b, int k, int k0, int tid) const {
    constexpr int kWidth = kVec ? 4 : 1;
    float* dst = bs + b_row * Cfg::kBN + (tid % B::kPerRow) * kWidth;
#pragma unroll
    for (int i = 0; i < B::kCount; ++i) {
      const bool inside = b_col_inside && k0 + b_row + i * B::kRowStep < k;
      CpAsync<kWidth * 4>(dst + i * B::kRowStep * Cfg::kBN, inside ? b_src + i * b_row_pitch : b,
                          inside);
    }
  }

  // On to the next k tile.
  __device__ __forceinline__ void Advance() {
    a_src += Cfg::kBK;
    b_src += b_tile_pitch;
  }
};

// k step kk's fragments: this lane's kTM rows of one column of A and kTN columns of one row of
// B, a float4 per sub-tile.
template <class Cfg>
__device__ __forceinline__ void LoadFragments(float (&ra)[Cfg::kTM], float (&rb)[Cfg::kTN],
                                              const float* as, const float* bs, int kk, int row0,
                                              int col0) {
#pragma unroll
  for (int im = 0; im < Cfg::kIterM; ++im) {
    tiles::LoadShared4(ra, im * Cfg::kFrag, as + kk * Cfg::kLdA + row0 + im * Cfg::kSubM);
  }
#pragma unroll
  for (int jn = 0; jn < Cfg::kIterN; ++jn) {
    tiles::LoadShared4(rb, jn * Cfg::kFrag, bs + kk * Cfg::kBN + col0 + jn * Cfg::kSubN);
  }
}

// The kBK k steps of one stage, the fragments double-buffered in registers.
template <class Cfg>
__device__ __forceinline__ void MultiplyStage(float (&acc)[Cfg::kTM][Cfg::kTN], const float* as,
                                              const float* bs, int row0, int col0) {
  float ra[2][Cfg::kTM];
  float rb[2][Cfg::kTN];
  LoadFragments<Cfg>(ra[0], rb[0], as, bs, 0, row0, col0);
#pragma unroll
  for (int kk = 0; kk < Cfg::kBK; ++kk) {
    if (kk + 1 < Cfg::kBK) {
      LoadFragments<Cfg>(ra[(kk + 1) % 2], rb[(kk + 1) % 2], as, bs, kk + 1, row0, col0);
    }
    tiles::OuterProduct(acc, ra[kk % 2], rb[kk % 2]);
  }
}

// 1-D grid of ceil(m / kBM) * ceil(n / kBN) blocks, kThreads threads, kSmemBytes of dynamic
// shared memory: kStages A tiles, then kStages B tiles.
template <class Cfg, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    WarpTileKernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                   const float* __restrict__ b, float beta, float* __restrict__ c) {
  extern __shared__ float4 smem[];  // float4: 16-byte aligned
  float* const as_ring = reinterpret_cast<float*>(smem);
  float* const bs_ring = as_ring + Cfg::kStages * Cfg::kStageA;
  int block_row;
  int block_col;
  GroupedBlockOrigin<Cfg>(m, n, block_row, block_col);
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  // The block-tile row and column where this lane's first fragment starts.
  const int row0 = (warp / Cfg::kWarpsN) * Cfg::kWM + (lane / Cfg::kLaneCols) * Cfg::kFrag;
  const int col0 = (warp % Cfg::kWarpsN) * Cfg::kWN + (lane % Cfg::kLaneCols) * Cfg::kFrag;
  const int num_tiles = CeilDiv(k, Cfg::kBK);

  TileLoader<Cfg, kVec> loader(a, b, m, n, k, block_row, block_col, tid);
  float4 ra[Cfg::kAVecs];
#pragma unroll
  for (int s = 0; s < Cfg::kStages - 1; ++s) {
    if (s < num_tiles) {
      loader.FetchA(ra, k, s * Cfg::kBK);
      loader.StoreA(as_ring + s * Cfg::kStageA, ra, tid);
      loader.IssueB(bs_ring + s * Cfg::kStageB, b, k, s * Cfg::kBK, tid);
      loader.Advance();
    }
    CpAsyncCommit();  // an empty group keeps the count uniform
  }

  float acc[Cfg::kTM][Cfg::kTN] = {};
  for (int t = 0; t < num_tiles; ++t) {
    CpAsyncWait<Cfg::kStages - 2>();  // this thread's copies of tile t have landed
    __syncthreads();                  // everyone's have; and everyone is done with tile t - 1
    // Tile t + kStages - 1 goes into the stage tile t - 1 used: B copied now, A fetched now
    // and stored after the math (it is read no sooner than after the next barrier).
    const int next = t + Cfg::kStages - 1;
    const int next_stage = next % Cfg::kStages;
    const bool has_next = next < num_tiles;
    if (has_next) {
      loader.FetchA(ra, k, next * Cfg::kBK);
      loader.IssueB(bs_ring + next_stage * Cfg::kStageB, b, k, next * Cfg::kBK, tid);
      loader.Advance();
    }
    CpAsyncCommit();
    const int stage = t % Cfg::kStages;
    MultiplyStage<Cfg>(acc, as_ring + stage * Cfg::kStageA, bs_ring + stage * Cfg::kStageB, row0,
                       col0);
    if (has_next) {
      loader.StoreA(as_ring + next_stage * Cfg::kStageA, ra, tid);
    }
  }
  CpAsyncWait<0>();  // no copy may still target shared memory when the block exits

#pragma unroll
  for (int i = 0; i < Cfg::kTM; ++i) {
    const int row = block_row + row0 + (i / Cfg::kFrag) * Cfg::kSubM + i % Cfg::kFrag;
#pragma unroll
    for (int j = 0; j < Cfg::kTN; j += Cfg::kFrag) {
      tiles::StoreC4<kVec>(c, m, n, row, block_col + col0 + (j / Cfg::kFrag) * Cfg::kSubN,
                           make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]),
                           alpha, beta);
    }
  }
}

// Blocks of a grid of Cfg tiles over an m x n C.
template <class Cfg>
int64_t NumBlocks(int m, int n) {
  return static_cast<int64_t>(CeilDiv(m, Cfg::kBM)) * static_cast<int64_t>(CeilDiv(n, Cfg::kBN));
}

// Launches WarpTileKernel<Cfg, vec> over C (m, n > 0; vec as tiles::CanVectorize).
template <class Cfg>
cudaError_t Launch(bool vec, cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                   const float* b, float beta, float* c) {
  const int64_t num_blocks = NumBlocks<Cfg>(m, n);
  if (num_blocks > INT_MAX) {
    return cudaErrorInvalidConfiguration;
  }
  const auto kernel = vec ? WarpTileKernel<Cfg, true> : WarpTileKernel<Cfg, false>;
  // Past 48 KB a kernel must opt in to dynamic shared memory. Asked at every launch (it does
  // not synchronize), so that it holds on whichever device the call runs on.
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes);
  if (err != cudaSuccess) {
    return err;
  }
  kernel<<<static_cast<unsigned>(num_blocks), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
      m, n, k, tiles::EffectiveAlpha(k, alpha), a, b, beta, c);
  return cudaGetLastError();
}

}  // namespace warp_tile
}  // namespace sgemm
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_SGEMM_WARP_TILE_CUH_
