// Pieces the upper rungs of the sgemm ladder (sgemm_v5 ... sgemm_v8) share, sgemm_best the
// vector test, the shared loads and the C epilogue: the 128 x 128 x 8 block tile of v5 ... v8, its
// register-staged global loaders (float4 when the shape and pointers allow, masked scalars
// otherwise), the shared-memory stores of a fetched tile (A row-major or transposed), the float4 C
// epilogue, and the register outer-product kernel of v5 that v6 instantiates with vector loads.
//
// Tile loading: 256 threads fetch a 128 x 8 A tile and an 8 x 128 B tile, 4 consecutive floats
// each (one float4). A: thread t takes row t / 2, columns (t % 2) * 4 + 0..3. B: thread t takes
// row t / 32, columns (t % 32) * 4 + 0..3. Outside the matrix the loaders give 0, so padded
// tile entries add nothing to the products.
//
// The vector path (kVec = true) needs k % 4 == 0 and n % 4 == 0 (so every group of 4 along a
// row of A, B or C is wholly inside or wholly outside the matrix, and every row starts 16-byte
// aligned) and a, b, c 16-byte aligned: see CanVectorize. The scalar path works for any shape.
#ifndef ONEFLOW_LITE_EP_CUDA_SGEMM_TILES_CUH_
#define ONEFLOW_LITE_EP_CUDA_SGEMM_TILES_CUH_

#include <cuda_runtime.h>

#include <cstdint>

#include "ep/cuda/sgemm/common.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace tiles {

constexpr int kBM = 128;                             // block tile rows (of A and C)
constexpr int kBN = 128;                             // block tile columns (of B and C)
constexpr int kBK = 8;                               // block tile depth
constexpr int kTM = 8;                               // outputs per thread, rows
constexpr int kTN = 8;                               // outputs per thread, columns
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);  // 256
// Leading dimension of a transposed A tile in shared memory (kBK rows of kBM + 4): the pad
// keeps the transposing stores free of bank conflicts and every row 16-byte aligned.
constexpr int kLdAT = kBM + 4;

static_assert(kBM * kBK == 4 * kThreads, "one float4 of A per thread");
static_assert(kBK * kBN == 4 * kThreads, "one float4 of B per thread");
static_assert(kLdAT % 4 == 0, "transposed A rows must stay 16-byte aligned");

// Whether the float4 paths apply to this call (see the file comment).
inline bool CanVectorize(int n, int k, const float* a, const float* b, const float* c) {
  return k % 4 == 0 && n % 4 == 0 && IsAligned16(a) && IsAligned16(b) && IsAligned16(c);
}

// BLAS semantics for k == 0: C = beta * C, alpha never applied (it may be inf or NaN). The
// kernels then run no k step and their accumulators stay 0, so alpha = 0 gives exactly that.
inline float EffectiveAlpha(int k, float alpha) { return k == 0 ? 0.0f : alpha; }

__device__ __forceinline__ int ATileRow(int tid) { return tid / (kBK / 4); }
__device__ __forceinline__ int ATileCol(int tid) { return (tid % (kBK / 4)) * 4; }
__device__ __forceinline__ int BTileRow(int tid) { return tid / (kBN / 4); }
__device__ __forceinline__ int BTileCol(int tid) { return (tid % (kBN / 4)) * 4; }

// Where a thread of a 2-D grid of block tiles (v5 ... v7) works: its block tile's top-left
// corner in C (block x along n, y along m) and, in the block tile, the first row and column of
// its contiguous 8 x 8 outputs: rows (tid / 16) * 8, columns (tid % 16) * 8.
struct BlockTileThread {
  int tid;
  int block_row;
  int block_col;
  int thread_row;
  int thread_col;
};

__device__ __forceinline__ BlockTileThread ThisBlockTileThread() {
  const int tid = threadIdx.x;
  return {tid, static_cast<int>(blockIdx.y * kBM), static_cast<int>(blockIdx.x * kBN),
          (tid / (kBN / kTN)) * kTM, (tid % (kBN / kTN)) * kTN};
}

// p[row][col .. col + 3] of a rows x cols matrix (ld cols), 0 outside it. kVec: one float4
// (cols % 4 == 0 and col % 4 == 0: the 4 columns are all inside or all outside); else 4
// masked scalars.
template <bool kVec>
__device__ __forceinline__ float4 Fetch4(const float* __restrict__ p, int rows, int cols, int row,
                                         int col) {
  if (kVec) {
    if (row < rows && col < cols) {
      return __ldg(reinterpret_cast<const float4*>(p + static_cast<int64_t>(row) * cols + col));
    }
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  return make_float4(
      LoadMasked(p, cols, row, col, rows, cols), LoadMasked(p, cols, row, col + 1, rows, cols),
      LoadMasked(p, cols, row, col + 2, rows, cols), LoadMasked(p, cols, row, col + 3, rows, cols));
}

// This thread's 4 floats of the A tile whose top-left corner is (block_row, k0).
template <bool kVec>
__device__ __forceinline__ float4 FetchA(const float* __restrict__ a, int m, int k, int block_row,
                                         int k0, int tid) {
  return Fetch4<kVec>(a, m, k, block_row + ATileRow(tid), k0 + ATileCol(tid));
}

// This thread's 4 floats of the B tile whose top-left corner is (k0, block_col).
template <bool kVec>
__device__ __forceinline__ float4 FetchB(const float* __restrict__ b, int k, int n, int k0,
                                         int block_col, int tid) {
  return Fetch4<kVec>(b, k, n, k0 + BTileRow(tid), block_col + BTileCol(tid));
}

// A tile kept as in global memory: as[r * kBK + kk], kBM x kBK.
__device__ __forceinline__ void StoreATileRowMajor(float* as, int tid, float4 v) {
  *reinterpret_cast<float4*>(as + ATileRow(tid) * kBK + ATileCol(tid)) = v;
}

// A tile transposed: as[kk * kLdAT + r], kBK rows of kLdAT, so that a thread's rows of one
// column of A are consecutive and may be read as float4.
__device__ __forceinline__ void StoreATileTransposed(float* as, int tid, float4 v) {
  const int r = ATileRow(tid);
  const int kk = ATileCol(tid);
  as[(kk + 0) * kLdAT + r] = v.x;
  as[(kk + 1) * kLdAT + r] = v.y;
  as[(kk + 2) * kLdAT + r] = v.z;
  as[(kk + 3) * kLdAT + r] = v.w;
}

// B tile as in global memory: bs[kk * kBN + c], kBK x kBN.
__device__ __forceinline__ void StoreBTile(float* bs, int tid, float4 v) {
  *reinterpret_cast<float4*>(bs + BTileRow(tid) * kBN + BTileCol(tid)) = v;
}

__device__ __forceinline__ float4 LoadShared4(const float* p) {
  return *reinterpret_cast<const float4*>(p);
}

// r[i .. i + 3] = the 4 floats at p in shared memory (one LDS.128).
template <int N>
__device__ __forceinline__ void LoadShared4(float (&r)[N], int i, const float* p) {
  const float4 v = LoadShared4(p);
  r[i] = v.x;
  r[i + 1] = v.y;
  r[i + 2] = v.z;
  r[i + 3] = v.w;
}

// The epilogue for C[row][col .. col + 3] = alpha * acc + beta * C (beta == 0 never reads C).
// kVec: one float4 (col % 4 == 0, n % 4 == 0 and c 16-byte aligned); else 4 masked scalars.
template <bool kVec>
__device__ __forceinline__ void StoreC4(float* __restrict__ c, int m, int n, int row, int col,
                                        float4 acc, float alpha, float beta) {
  if (kVec) {
    if (row < m && col < n) {
      float4* dst = reinterpret_cast<float4*>(c + static_cast<int64_t>(row) * n + col);
      float4 out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
      if (beta != 0.0f) {
        const float4 old = *dst;
        out.x = fmaf(beta, old.x, out.x);
        out.y = fmaf(beta, old.y, out.y);
        out.z = fmaf(beta, old.z, out.z);
        out.w = fmaf(beta, old.w, out.w);
      }
      *dst = out;
    }
  } else {
    StoreC(c, n, row, col + 0, m, n, acc.x, alpha, beta);
    StoreC(c, n, row, col + 1, m, n, acc.y, alpha, beta);
    StoreC(c, n, row, col + 2, m, n, acc.z, alpha, beta);
    StoreC(c, n, row, col + 3, m, n, acc.w, alpha, beta);
  }
}

// acc[i][j] += ra[i] * rb[j]: the register outer product of one k step (8 x 8 on v5 ... v8,
// any thread tile on sgemm_best).
template <int M, int N>
__device__ __forceinline__ void OuterProduct(float (&acc)[M][N], const float (&ra)[M],
                                             const float (&rb)[N]) {
#pragma unroll
  for (int i = 0; i < M; ++i) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
      acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
  }
}

// The k steps of one block tile with A transposed in shared memory (v7): per step a
// thread reads its 8 rows of one column of A (as[kk * kLdAT + thread_row ..]) and its 8 columns
// of one row of B (bs[kk * kBN + thread_col ..]) as 2 float4 each and adds their outer product.
__device__ __forceinline__ void MultiplyTransposedTile(float (&acc)[kTM][kTN],
                                                       const float* __restrict__ as,
                                                       const float* __restrict__ bs, int thread_row,
                                                       int thread_col) {
  float ra[kTM];
  float rb[kTN];
#pragma unroll
  for (int kk = 0; kk < kBK; ++kk) {
#pragma unroll
    for (int i = 0; i < kTM; i += 4) {
      LoadShared4(ra, i, as + kk * kLdAT + thread_row + i);
    }
#pragma unroll
    for (int j = 0; j < kTN; j += 4) {
      LoadShared4(rb, j, bs + kk * kBN + thread_col + j);
    }
    OuterProduct(acc, ra, rb);
  }
}

// Stores a thread's 8 x 8 outputs, contiguous at (row0, col0) in C (v5, v6, v7).
template <bool kVec>
__device__ __forceinline__ void StoreThreadTile(float* __restrict__ c, int m, int n, int row0,
                                                int col0, const float (&acc)[kTM][kTN], float alpha,
                                                float beta) {
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int j = 0; j < kTN; j += 4) {
      StoreC4<kVec>(c, m, n, row0 + i, col0 + j,
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]), alpha,
                    beta);
    }
  }
}

// v5's kernel (v6 instantiates it with kVec = true): grid (ceil(n / 128), ceil(m / 128)),
// 256 threads; thread t owns the 8 x 8 outputs at rows (t / 16) * 8, columns (t % 16) * 8 of
// the block tile. Both tiles are kept as in global memory; per k step a thread reads its 8
// values of one column of the A tile and 8 of one row of the B tile into registers and adds
// their outer product.
template <bool kVec>
__global__ void __launch_bounds__(kThreads)
    OuterProductKernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                       const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ __align__(16) float as[kBM * kBK];
  __shared__ __align__(16) float bs[kBK * kBN];
  const auto [tid, block_row, block_col, thread_row, thread_col] = ThisBlockTileThread();

  float acc[kTM][kTN] = {};
  float ra[kTM];
  float rb[kTN];
  for (int k0 = 0; k0 < k; k0 += kBK) {
    StoreATileRowMajor(as, tid, FetchA<kVec>(a, m, k, block_row, k0, tid));
    StoreBTile(bs, tid, FetchB<kVec>(b, k, n, k0, block_col, tid));
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
#pragma unroll
      for (int i = 0; i < kTM; ++i) {
        ra[i] = as[(thread_row + i) * kBK + kk];
      }
#pragma unroll
      for (int j = 0; j < kTN; ++j) {
        rb[j] = bs[kk * kBN + thread_col + j];
      }
      OuterProduct(acc, ra, rb);
    }
    __syncthreads();
  }

  StoreThreadTile<kVec>(c, m, n, block_row + thread_row, block_col + thread_col, acc, alpha, beta);
}

// Grid of 128 x 128 block tiles, n-tiles along x, m-tiles along y (m and n > 0).
inline dim3 BlockTileGrid(int m, int n) { return dim3(CeilDiv(n, kBN), CeilDiv(m, kBM)); }

// The signature of every block-tile kernel (tiles::OuterProductKernel, the v7 and v8
// kernels).
using BlockTileKernel = void (*)(int m, int n, int k, float alpha, const float* a, const float* b,
                                 float beta, float* c);

// The launch shared by v6, v7 and v8: nothing for an empty C, alpha through
// EffectiveAlpha, vec_kernel when vec (the caller's float4 condition, CanVectorize for v6 ... v8)
// else scalar_kernel, over grid with kThreads threads on stream.
inline cudaError_t LaunchBlockTile(bool vec, BlockTileKernel vec_kernel,
                                   BlockTileKernel scalar_kernel, dim3 grid, cudaStream_t stream,
                                   int m, int n, int k, float alpha, const float* a, const float* b,
                                   float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  const BlockTileKernel kernel = vec ? vec_kernel : scalar_kernel;
  kernel<<<grid, kThreads, 0, stream>>>(m, n, k, EffectiveAlpha(k, alpha), a, b, beta, c);
  return cudaGetLastError();
}

}  // namespace tiles
}  // namespace sgemm
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_SGEMM_TILES_CUH_
