// sgemm ladder rung "sgemm_best" (order 9): beyond v8, three techniques on the same 128 x 128
// x 8 block tile, 256 threads and 8 x 8 outputs per thread:
//  1. Warp tiling. The 8 warps form a 2 x 4 grid of 64 x 32 warp tiles; in a warp tile a lane
//     owns 2 x 2 fragments of 4 x 4 (lanes as 8 rows x 4 columns over a 32 x 16 sub-tile,
//     repeated 2 x 2). Per k step a warp's A reads are 8 distinct float4 within 32 consecutive
//     floats and its B reads 4 distinct float4 within 16: each LDS.128 is a single
//     shared-memory wavefront, where v8's contiguous 8 x 8 layout spreads a warp's B reads over
//     16 float4 at a stride of 8 floats (several wavefronts, bank conflicts).
//  2. Block swizzling: a 1-D grid walked in groups of kGroupM block rows (Triton's grouped
//     ordering), so that blocks resident together share A row panels and B column panels in L2.
//  3. A kStages-deep cp.async pipeline instead of register prefetch: global -> shared copies
//     bypass registers (no staging registers, no store instructions) and kStages - 1 tiles are
//     in flight while one is multiplied; one barrier per k step. Out-of-matrix elements are
//     zero-filled by the copy itself (src-size 0). A is copied 4 bytes at a time straight into
//     its transposed place (so any k and any alignment of a work); B 16 bytes at a time when
//     n % 4 == 0 and b, c are 16-byte aligned (C then also stored as float4), else 4 bytes.
#include <climits>
#include <cstdint>

#include "ep/cuda/primitive/sgemm.h"
#include "ep/cuda/primitive/sgemm_tiles.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

using namespace tiles;  // NOLINT: the tile constants and helpers

constexpr int kStages = 4;                             // shared-memory ring of k tiles: 4 x 8.3 KB
constexpr int kGroupM = 8;                             // block rows per swizzle group
constexpr int kWarpM = 64;                             // warp tile rows
constexpr int kWarpN = 32;                             // warp tile columns
constexpr int kFragM = 4;                              // rows of one per-lane fragment
constexpr int kFragN = 4;                              // columns of one per-lane fragment
constexpr int kLaneRows = 8;                           // lanes along a warp sub-tile's rows
constexpr int kLaneCols = 4;                           // lanes along its columns
constexpr int kIterM = kWarpM / (kLaneRows * kFragM);  // 2 sub-tiles down
constexpr int kIterN = kWarpN / (kLaneCols * kFragN);  // 2 sub-tiles across
constexpr int kStageA = kBK * kLdAT;
constexpr int kStageB = kBK * kBN;

static_assert((kBM / kWarpM) * (kBN / kWarpN) * 32 == kThreads, "one warp per warp tile");
static_assert(kLaneRows * kLaneCols == 32, "a warp has 32 lanes");
static_assert(kIterM * kFragM == kTM && kIterN * kFragN == kTN, "8 x 8 outputs per thread");
static_assert((kBM * kBK) % kThreads == 0 && (kBK * kBN) % kThreads == 0, "even split");

__device__ __forceinline__ uint32_t SharedAddress(const float* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 4-byte asynchronous copy; writes 0 instead when !inside (src-size 0 reads nothing).
__device__ __forceinline__ void CpAsync4(float* dst, const float* src, bool inside) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(SharedAddress(dst)), "l"(src),
               "r"(inside ? 4 : 0)
               : "memory");
}

// 16-byte asynchronous copy (dst and src 16-byte aligned); zeros when !inside.
__device__ __forceinline__ void CpAsync16(float* dst, const float* src, bool inside) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(SharedAddress(dst)),
               "l"(src), "r"(inside ? 16 : 0)
               : "memory");
}

__device__ __forceinline__ void CpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Issues the copies of k tile k0 into one stage. A: per copy, a warp takes 4 rows x 8
// columns (4 whole 32-byte sectors) and scatters them transposed, bank-conflict free, into
// as[kk * kLdAT + r]. B: float4 per thread (kVec) or 4 coalesced 4-byte copies.
template <bool kVec>
__device__ __forceinline__ void IssueTile(float* as, float* bs, const float* __restrict__ a,
                                          const float* __restrict__ b, int m, int n, int k,
                                          int block_row, int block_col, int k0, int tid) {
  const int a_kk = tid % kBK;
  const bool a_k_inside = k0 + a_kk < k;
#pragma unroll
  for (int i = 0; i < kBM * kBK / kThreads; ++i) {
    const int r = tid / kBK + i * (kThreads / kBK);
    const int row = block_row + r;
    const bool inside = a_k_inside && row < m;
    const float* src = inside ? a + static_cast<int64_t>(row) * k + k0 + a_kk : a;
    CpAsync4(as + a_kk * kLdAT + r, src, inside);
  }
  if (kVec) {
    const int kk = BTileRow(tid);
    const int col = block_col + BTileCol(tid);
    const bool inside = k0 + kk < k && col < n;  // n % 4 == 0: the 4 columns are all inside
    const float* src = inside ? b + static_cast<int64_t>(k0 + kk) * n + col : b;
    CpAsync16(bs + kk * kBN + BTileCol(tid), src, inside);
  } else {
#pragma unroll
    for (int i = 0; i < kBK * kBN / kThreads; ++i) {
      const int e = i * kThreads + tid;
      const int kk = e / kBN;
      const int c = e % kBN;
      const int col = block_col + c;
      const bool inside = k0 + kk < k && col < n;
      const float* src = inside ? b + static_cast<int64_t>(k0 + kk) * n + col : b;
      CpAsync4(bs + kk * kBN + c, src, inside);
    }
  }
}

// 1-D grid of ceil(m / 128) * ceil(n / 128) blocks, 256 threads.
template <bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
    SgemmBestKernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                    const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ __align__(16) float as[kStages][kStageA];
  __shared__ __align__(16) float bs[kStages][kStageB];

  // Grouped ("swizzled") block order: kGroupM block rows at a time, column-major inside.
  const int num_pid_m = CeilDiv(m, kBM);
  const int num_pid_n = CeilDiv(n, kBN);
  const int pid = blockIdx.x;
  const int num_pid_in_group = kGroupM * num_pid_n;
  const int first_pid_m = (pid / num_pid_in_group) * kGroupM;
  const int group_size_m = min(num_pid_m - first_pid_m, kGroupM);
  const int pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m;
  const int pid_n = (pid % num_pid_in_group) / group_size_m;
  const int block_row = pid_m * kBM;
  const int block_col = pid_n * kBN;

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int warp_row = (warp / (kBN / kWarpN)) * kWarpM;
  const int warp_col = (warp % (kBN / kWarpN)) * kWarpN;
  const int lane_row = (lane / kLaneCols) * kFragM;
  const int lane_col = (lane % kLaneCols) * kFragN;
  // Row (column) of the block tile where fragment im (jn) of this lane starts.
  const int frag_row0 = warp_row + lane_row;
  const int frag_col0 = warp_col + lane_col;
  constexpr int kSubM = kLaneRows * kFragM;  // 32: distance between a lane's fragments, down
  constexpr int kSubN = kLaneCols * kFragN;  // 16: and across

  const int num_tiles = CeilDiv(k, kBK);
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < num_tiles) {
      IssueTile<kVec>(as[s], bs[s], a, b, m, n, k, block_row, block_col, s * kBK, tid);
    }
    CpAsyncCommit();  // an empty group keeps the count uniform
  }

  float acc[kTM][kTN] = {};
  float ra[kTM];
  float rb[kTN];
  for (int t = 0; t < num_tiles; ++t) {
    CpAsyncWait<kStages - 2>();  // this thread's copies of tile t have landed
    __syncthreads();             // everyone's have; and everyone is done with tile t - 1
    const int next = t + kStages - 1;
    if (next < num_tiles) {  // refills the stage tile t - 1 used
      IssueTile<kVec>(as[next % kStages], bs[next % kStages], a, b, m, n, k, block_row, block_col,
                      next * kBK, tid);
    }
    CpAsyncCommit();
    const float* as_t = as[t % kStages];
    const float* bs_t = bs[t % kStages];
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
#pragma unroll
      for (int im = 0; im < kIterM; ++im) {
        LoadShared4(ra, im * kFragM, as_t + kk * kLdAT + frag_row0 + im * kSubM);
      }
#pragma unroll
      for (int jn = 0; jn < kIterN; ++jn) {
        LoadShared4(rb, jn * kFragN, bs_t + kk * kBN + frag_col0 + jn * kSubN);
      }
      OuterProduct(acc, ra, rb);
    }
  }
  CpAsyncWait<0>();  // no copy may still target shared memory when the block exits

#pragma unroll
  for (int im = 0; im < kIterM; ++im) {
#pragma unroll
    for (int i = 0; i < kFragM; ++i) {
      const int row = block_row + frag_row0 + im * kSubM + i;
      const float* acc_row = acc[im * kFragM + i];
#pragma unroll
      for (int jn = 0; jn < kIterN; ++jn) {
        const int j = jn * kFragN;
        StoreC4<kVec>(c, m, n, row, block_col + frag_col0 + jn * kSubN,
                      make_float4(acc_row[j], acc_row[j + 1], acc_row[j + 2], acc_row[j + 3]),
                      alpha, beta);
      }
    }
  }
}

cudaError_t LaunchBest(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                       const float* b, float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  const int64_t num_blocks =
      static_cast<int64_t>(CeilDiv(m, kBM)) * static_cast<int64_t>(CeilDiv(n, kBN));
  if (num_blocks > INT_MAX) {
    return cudaErrorInvalidConfiguration;
  }
  // A is copied 4 bytes at a time, so only B and C decide the vector path.
  const bool vec = n % 4 == 0 && IsAligned16(b) && IsAligned16(c);
  return LaunchBlockTile(vec, SgemmBestKernel<true>, SgemmBestKernel<false>,
                         dim3(static_cast<unsigned>(num_blocks)), stream, m, n, k, alpha, a, b,
                         beta, c);
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(9, "sgemm_best",
                           "warp tiling (64x32 warp tiles, conflict-free float4 fragments), "
                           "grouped block swizzle for L2 reuse, 4-stage cp.async pipeline",
                           LaunchBest);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
