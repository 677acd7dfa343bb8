// Softmax / LogSoftmax forward and backward kernels over the last axis of a (rows x cols)
// row-major matrix. Framework-free: launchers return cudaError_t; softmax.cu turns that into
// Maybe and picks the implementation.
//
// Three implementations here, and a fourth in softmax_block_register.cuh:
//   warp           cols <= 1024: a row per group of kWidth lanes, the row in registers,
//                  kRowsPerAccess rows per group, packs of kPack elements per load
//   block smem     a row per block, cached in shared memory as stored, so it is read once
//   block uncached a row per block, re-read from global memory (rows too long for shared memory)
//   block register (forward, tensors that start 16-byte aligned) a row per block in the
//                  threads' registers
// All index with int64_t (the block-register kernel with int within a row, at most 65536
// columns there). NaN and infinities propagate as in PyTorch: a NaN or +inf anywhere in
// a row, or a row of only -inf, makes the row NaN (through the sum).
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_KERNELS_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_KERNELS_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <type_traits>

#include "ep/cuda/primitive/softmax_launch.h"

namespace oflite {
namespace ep {
namespace softmax {

// ---- element conversion and math in the compute type -------------------------------------

__device__ __forceinline__ float ToCompute(float v) { return v; }
__device__ __forceinline__ double ToCompute(double v) { return v; }
__device__ __forceinline__ float ToCompute(__half v) { return __half2float(v); }
__device__ __forceinline__ float ToCompute(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T FromCompute(float v);
template <>
__device__ __forceinline__ float FromCompute<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __half FromCompute<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 FromCompute<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <typename T>
__device__ __forceinline__ T FromCompute(double v) {
  return static_cast<T>(v);
}

__device__ __forceinline__ float Exp(float v) { return expf(v); }
__device__ __forceinline__ double Exp(double v) { return exp(v); }
__device__ __forceinline__ float Log(float v) { return logf(v); }
__device__ __forceinline__ double Log(double v) { return log(v); }
// 2^t by the hardware exp2 alone. Without .ftz, exp2f wraps it in a denormal fix-up (three more
// instructions); results below 2^-126 flush to zero here, which callers keep out of their
// outputs (see ExpFor).
__device__ __forceinline__ float Exp2Ftz(float t) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
  return r;
}

constexpr float kLog2E = 1.4426950408889634f;
// Softmax sums and outputs of 16-bit rows are computed scaled by 2^kExpBias: the scale cancels
// in exp * (1 / sum), and it lifts every exp that float16 or bfloat16 can show above float's
// denormals (bfloat16 keeps float's exponent range, down to 2^-133), where Exp2Ftz would flush.
constexpr float kExpBias = 64;

// exp(d) for the rows of algorithm kAlgorithm stored as T, d = x - max <= 0 (or y <= 0 in
// log_softmax's backward). Every term of a row takes the hardware exp2 of d * log2(e), as
// Triton's softmax does, instead of expf's own range reduction (about seven more instructions;
// the uncached kernel's rescaling of its running sum keeps Exp). For float32 it matters only
// where a block's exp lies on its row's critical path: it is what makes RegisterAutoPlan's 8
// values a thread at 896-1024 columns and 1024-thread blocks at 8193-16384 the faster plans.
// - float32 keeps exp2f's denormal fix-up. Relative error, at worst: exp2f's 2 ulp (2.4e-7),
//   plus |d| * 7.3e-8 from rounding d * log2(e) and the constant, plus |d| * 6e-8 from
//   rounding d = x - max itself (which expf had too). That is within float32's 1e-5
//   (docs/TESTING.md) for |d| <= 73, outputs down to e^-73 of the row's largest
//   (Float32ExpHoldsItsToleranceOnWideRows checks |d| up to 70); below that, down to float's normal
//   range (|d| = 87), 1.2e-5 at worst.
// - 16-bit rows are bound by instruction issue, not memory, and take the bare exp2: softmax
//   scaled by 2^kExpBias (both its sum and its outputs; d is never positive, so the scaled
//   value cannot overflow), log_softmax unscaled (its sum is at least 1, and flushing terms
//   below 2^-126 moves it by less than float's rounding; in its backward, exp(y) * sum loses
//   only what lies below 2^-126 * sum). The rounded argument adds a relative error of at most
//   2^-18 (a bias-sized argument's rounding), far below float16's and bfloat16's.
// float64 keeps the accurate exp (its tolerance is 1e-12).
template <typename T, SoftmaxAlgorithm kAlgorithm>
__device__ __forceinline__ float ExpFor(float d) {
  if constexpr (sizeof(T) == 4) {
    return exp2f(d * kLog2E);
  } else if constexpr (kAlgorithm == SoftmaxAlgorithm::kSoftmax) {
    return Exp2Ftz(fmaf(d, kLog2E, kExpBias));
  } else {
    return Exp2Ftz(d * kLog2E);
  }
}
template <typename T, SoftmaxAlgorithm kAlgorithm>
__device__ __forceinline__ double ExpFor(double d) {
  return Exp(d);
}

template <typename C>
__device__ __forceinline__ C Max(C a, C b) {
  return a > b ? a : b;  // a NaN is carried by the sum instead
}
template <typename C>
__device__ __forceinline__ C NegativeInfinity() {
  return static_cast<C>(-INFINITY);
}

// The row sum of exp(x - max) for float32 log_softmax on the block kernels and the warp
// kernel's narrow or element-wise lanes, and on its other lanes for rows that their plain sum
// leaves imprecise (see WarpSumType and GroupRowScale). log(sum) of a plain float sum near 1
// keeps only float's absolute precision: a large relative error in the outputs near 0 of a row
// with one dominant value (-log(sum) there). Terms that are exactly 1 (the row's max) are
// counted apart, so log(sum) = log1p(rest + ones - 1) keeps float's relative precision; a double
// sum would too, at a conversion and a double add per element. For 16-bit outputs the plain
// float sum's error is far below their rounding.
struct LogSum {
  float rest;
  float ones;

  LogSum() = default;  // trivial, so it may live in shared memory
  __device__ __forceinline__ LogSum(float v) : rest(v), ones(0) {}
  __device__ __forceinline__ LogSum& operator+=(float e) {
    if (e == 1.0f) {
      ones += 1.0f;
    } else {
      rest += e;
    }
    return *this;
  }
  __device__ __forceinline__ LogSum operator+(LogSum o) const {
    LogSum r;
    r.rest = rest + o.rest;
    r.ones = ones + o.ones;
    return r;
  }
  // Rescaled by exp(old max - new max): past a new max the old ones are ordinary terms.
  __device__ __forceinline__ LogSum operator*(float f) const {
    return f == 1.0f ? *this : LogSum((rest + ones) * f);
  }
  __device__ __forceinline__ bool operator==(LogSum o) const {
    return rest == o.rest && ones == o.ones;
  }
};
// log(sum); a NaN term leaves rest NaN, and a sum of nothing (a row of only -inf) gives -inf.
__device__ __forceinline__ float Log(LogSum s) { return log1pf(s.rest + (s.ones - 1.0f)); }

template <typename T, typename C, SoftmaxAlgorithm kAlgorithm>
using SumType =
    std::conditional_t<kAlgorithm == SoftmaxAlgorithm::kLogSoftmax && std::is_same_v<T, float>,
                       LogSum, C>;

// What a row's first pass keeps of d = x - max for its output pass (ExpFor(d) for softmax, d for
// log_softmax), having added d's term of the sum to *sum.
template <typename T, SoftmaxAlgorithm kAlgorithm, typename C, typename S>
__device__ __forceinline__ C HoldAndSum(C d, S* sum) {
  if constexpr (kAlgorithm == SoftmaxAlgorithm::kSoftmax) {
    d = ExpFor<T, kAlgorithm>(d);
    *sum += d;
  } else {
    *sum += ExpFor<T, kAlgorithm>(d);
  }
  return d;
}

// What the outputs combine with the row's max: 1 / sum for softmax, log(sum) for log_softmax.
template <SoftmaxAlgorithm kAlgorithm, typename C, typename S>
__device__ __forceinline__ C RowScale(S sum) {
  if constexpr (kAlgorithm == SoftmaxAlgorithm::kSoftmax) {
    return static_cast<C>(1 / sum);
  } else {
    return static_cast<C>(Log(sum));
  }
}

// One butterfly step of a reduction: the value of lane (this lane ^ mask) within kWidth.
template <int kWidth, typename V>
__device__ __forceinline__ V ShflXor(V v, int mask) {
  if constexpr (std::is_same_v<V, LogSum>) {
    LogSum r;
    r.rest = __shfl_xor_sync(0xffffffff, v.rest, mask, kWidth);
    r.ones = __shfl_xor_sync(0xffffffff, v.ones, mask, kWidth);
    return r;
  } else {
    return __shfl_xor_sync(0xffffffff, v, mask, kWidth);
  }
}

// ---- packs: kPack elements moved as one aligned access (16 bytes at most) -----------------

template <typename T, int kPack>
struct alignas(sizeof(T) * kPack) Pack {
  T elem[kPack];
};

template <typename C, int kPack, typename T>
__device__ __forceinline__ void LoadPack(const T* src, C* dst) {
  const Pack<T, kPack> pack = *reinterpret_cast<const Pack<T, kPack>*>(src);
#pragma unroll
  for (int i = 0; i < kPack; ++i) {
    dst[i] = ToCompute(pack.elem[i]);
  }
}

// The running max of a thread's packs as held. Packs of 16-bit values (held as loaded) fold
// pairwise, one instruction for two values; a NaN loses to a number there, and the row still
// ends NaN through its sum (see Max).
template <typename H, int kPack>
struct PackMax {
  static constexpr bool kPairs = sizeof(H) == 2;
  using Pair = std::conditional_t<std::is_same_v<H, __half>, __half2, __nv_bfloat162>;
  std::conditional_t<kPairs, Pair, H> m;

  __device__ __forceinline__ PackMax() {
    if constexpr (kPairs) {
      m = Pair(H(-INFINITY), H(-INFINITY));
    } else {
      m = NegativeInfinity<H>();
    }
  }
  __device__ __forceinline__ void Add(const Pack<H, kPack>& p) {
#pragma unroll
    for (int i = 0; i < kPack; i += kPairs ? 2 : 1) {
      if constexpr (kPairs) {
        m = __hmax2(m, *reinterpret_cast<const Pair*>(&p.elem[i]));
      } else {
        m = Max(m, p.elem[i]);
      }
    }
  }
  __device__ __forceinline__ auto Value() const {
    if constexpr (kPairs) {
      return Max(ToCompute(m.x), ToCompute(m.y));
    } else {
      return m;
    }
  }
};

// Two floats into two adjacent 16-bit values with one paired conversion instruction.
__device__ __forceinline__ void FromCompute2(float a, float b, __half* out) {
  *reinterpret_cast<__half2*>(out) = __floats2half2_rn(a, b);
}
__device__ __forceinline__ void FromCompute2(float a, float b, __nv_bfloat16* out) {
  *reinterpret_cast<__nv_bfloat162*>(out) = __floats2bfloat162_rn(a, b);
}

// kPack computed values as stored, 16-bit pairs converted by one instruction.
template <int kPack, typename T, typename C>
__device__ __forceinline__ Pack<T, kPack> ToPack(const C* src) {
  Pack<T, kPack> pack;
  if constexpr (sizeof(T) == 2 && kPack % 2 == 0) {
#pragma unroll
    for (int i = 0; i < kPack; i += 2) {
      FromCompute2(src[i], src[i + 1], &pack.elem[i]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      pack.elem[i] = FromCompute<T>(src[i]);
    }
  }
  return pack;
}

template <int kPack, typename T, typename C>
__device__ __forceinline__ void StorePack(const C* src, T* dst) {
  *reinterpret_cast<Pack<T, kPack>*>(dst) = ToPack<kPack, T>(src);
}

// StorePack of a 16-byte pack as one vector store. The split kernel's stores, addressed by
// element offsets within a chunk, compiled to 4.5-8 narrower stores a pack with StorePack's
// assignment (ptxas; float32 2.5-3).
template <int kPack, typename T, typename C>
__device__ __forceinline__ void StorePack16(const C* src, T* dst) {
  static_assert(sizeof(Pack<T, kPack>) == 16, "16-byte packs");
  const Pack<T, kPack> pack = ToPack<kPack, T>(src);
  uint32_t w[4];
  memcpy(w, &pack, sizeof(w));
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};"
               :
               : "l"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
               : "memory");
}

// ---- warp reductions over a group of kWidth lanes ------------------------------------------

template <int kWidth, typename C>
__device__ __forceinline__ C GroupMax(C v) {
#pragma unroll
  for (int mask = kWidth / 2; mask > 0; mask /= 2) {
    v = Max(v, __shfl_xor_sync(0xffffffff, v, mask, kWidth));
  }
  return v;
}

template <int kWidth, typename C>
__device__ __forceinline__ C GroupSum(C v) {
#pragma unroll
  for (int mask = kWidth / 2; mask > 0; mask /= 2) {
    v = v + ShflXor<kWidth>(v, mask);
  }
  return v;
}

// float32 log_softmax rows of the warp kernel whose plain float sum reaches this take log of
// it; rows below are summed again as LogSum. Every output is at least log(sum) in magnitude, and
// the plain sum's relative error (an ulp or so per term a lane adds and per shuffle level) is
// log(sum)'s absolute error: from log(4) = 1.39 on, the outputs' relative error is no more than
// LogSum's at its worst (a sum near 1). LogSum costs a compare and a second accumulator per
// element and twice the shuffles, which lanes of 16 values or more feel (at 8 it is a wash).
// Lanes of 4 keep LogSum, since the recount's branch costs them more. The block kernels keep
// LogSum too: there the plain sum gains nothing, and the recount's code costs their register
// blocks registers and speed. So do lanes that load element by element (rows of tensors that
// start off a 16-byte boundary): the recount took their 32-value kernel far more registers and
// ran it much slower.
constexpr float kPlainLogSumFrom = 4.0f;
constexpr int kWarpPlainSumValues = 8;  // a lane's values from which the warp kernel sums plainly

template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, int kPack, int kColsPerThread>
using WarpSumType = std::conditional_t<(kPack > 1 && kColsPerThread >= kWarpPlainSumValues), C,
                                       SumType<T, C, kAlgorithm>>;

// RowScale of a row whose group of kWidth lanes holds lane_sum, this lane's part of its sum;
// for a plain float32 log_softmax sum, terms(acc) adds this lane's terms into acc for the
// recount. The groups of a warp shuffle together, so the recount runs in all of them when any
// needs it. Plain sums are only those of whole-warp groups today (32 lanes, one row), where the
// vote changes nothing but shows ptxas the branch is uniform (a branch on the sum alone was
// slower). The recount's terms take the accurate Exp, not ExpFor: with ExpFor's instructions
// ptxas kept the first pass's exps in registers for the recount, which took more registers.
template <typename T, SoftmaxAlgorithm kAlgorithm, int kWidth, typename C, typename S,
          typename Terms>
__device__ __forceinline__ C GroupRowScale(S lane_sum, Terms terms) {
  const S sum = GroupSum<kWidth>(lane_sum);
  if constexpr (kAlgorithm == SoftmaxAlgorithm::kLogSoftmax && std::is_same_v<T, float> &&
                std::is_same_v<S, float>) {
    const bool recount = sum < kPlainLogSumFrom;  // a NaN sum stays NaN
    if (__any_sync(0xffffffff, recount)) {
      const LogSum exact = GroupSum<kWidth>(terms(LogSum(0)));
      if (recount) {
        return Log(exact);
      }
    }
  }
  return RowScale<kAlgorithm, C>(sum);
}

// ---- warp implementation ----------------------------------------------------------------

// Writes the packs lane `lane` owns in a row handled by a group of kWidth lanes (the layout the
// warp kernels load in): g(p, out) fills the kPack values of the lane's p-th pack.
template <int kPack, int kNumPacks, int kWidth, typename C, typename T, typename G>
__device__ __forceinline__ void WriteGroupRow(T* row, int64_t cols, int lane, G g) {
#pragma unroll
  for (int p = 0; p < kNumPacks; ++p) {
    const int64_t col = (static_cast<int64_t>(p) * kWidth + lane) * kPack;
    if (col >= cols) {
      continue;
    }
    C out[kPack];
    g(p, out);
    StorePack<kPack>(out, row + col);
  }
}

// Block shape: (kWidth, threads / kWidth), threads at most kWarpBlockThreads (the launcher's
// kWarpBlockThreadsFor). Each group owns kRowsPerAccess rows at a time (see WarpRows); lane l
// holds columns (p * kWidth + l) * kPack + [0, kPack) for p < kColsPerThread / kPack, so a
// group's loads for one p are contiguous and coalesced.
constexpr int kWarpBlockThreads = 128;

// Where a group's kRowsPerAccess rows lie: row0 + r * kStride. Groups whose rows take less than
// a 128-byte line (kRowBytes: a group holds kWidth * kColsPerThread values of a row) interleave
// over the G = 32 / kWidth groups of their warp: with base the warp's first row, group g takes
// rows base + g and base + G + g, so each load or store the warp issues for one r reaches
// consecutive rows; with neighbouring rows (2g, 2g + 1) each line is split between the two
// instructions (figures: docs/BENCHMARKS.md, CUDA softmax backward). Groups of a line or more
// keep neighbouring rows: interleaved, some of them measured slower, for no reason found (their
// instructions cover whole lines either way).
template <typename T, int kColsPerThread, int kWidth, int kRowsPerAccess>
struct WarpRows {
  static constexpr int kRowBytes = kWidth * kColsPerThread * static_cast<int>(sizeof(T));
  static constexpr bool kInterleaved = kRowsPerAccess > 1 && kWidth < 32 && kRowBytes < 128;
  static constexpr int kStride = kInterleaved ? 32 / kWidth : 1;
  // The first row0 of group `group`. A warp's groups are consecutive and the first is a multiple
  // of kStride, since blocks are whole warps (LaunchWarp).
  __device__ __forceinline__ static int64_t First(int64_t group) {
    return (group / kStride) * kStride * kRowsPerAccess + group % kStride;
  }
};

template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, int kPack, int kColsPerThread,
          int kWidth, int kRowsPerAccess>
__global__ void __launch_bounds__(kWarpBlockThreads)
    WarpSoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t cols) {
  static_assert(kColsPerThread % kPack == 0, "a thread holds whole packs");
  constexpr int kNumPacks = kColsPerThread / kPack;
  C buf[kRowsPerAccess][kColsPerThread];
  const int64_t group = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const int64_t group_count = static_cast<int64_t>(gridDim.x) * blockDim.y;
  const int lane = threadIdx.x;
  using Rows = WarpRows<T, kColsPerThread, kWidth, kRowsPerAccess>;
  for (int64_t row0 = Rows::First(group); row0 < rows; row0 += group_count * kRowsPerAccess) {
    C max[kRowsPerAccess];
#pragma unroll
    for (int r = 0; r < kRowsPerAccess; ++r) {
      max[r] = NegativeInfinity<C>();
      const int64_t row = row0 + r * Rows::kStride;
      const bool row_valid = row < rows;
      const T* row_x = x + row * cols;
#pragma unroll
      for (int p = 0; p < kNumPacks; ++p) {
        const int64_t col = (static_cast<int64_t>(p) * kWidth + lane) * kPack;
        if (row_valid && col < cols) {
          LoadPack<C, kPack>(row_x + col, &buf[r][p * kPack]);
#pragma unroll
          for (int i = 0; i < kPack; ++i) {
            max[r] = Max(max[r], buf[r][p * kPack + i]);
          }
        } else {
#pragma unroll
          for (int i = 0; i < kPack; ++i) {
            buf[r][p * kPack + i] = NegativeInfinity<C>();
          }
        }
      }
    }
    WarpSumType<T, C, kAlgorithm, kPack, kColsPerThread> sum[kRowsPerAccess];
#pragma unroll
    for (int r = 0; r < kRowsPerAccess; ++r) {
      max[r] = GroupMax<kWidth>(max[r]);
      sum[r] = 0;
#pragma unroll
      for (int c = 0; c < kColsPerThread; ++c) {
        // padding columns hold -inf: exp(-inf - max) is 0 unless the whole row is -inf, and
        // then the row is NaN anyway
        buf[r][c] = HoldAndSum<T, kAlgorithm>(buf[r][c] - max[r], &sum[r]);
      }
    }
#pragma unroll
    for (int r = 0; r < kRowsPerAccess; ++r) {
      const C scale = GroupRowScale<T, kAlgorithm, kWidth, C>(sum[r], [&](auto acc) {
#pragma unroll
        for (int c = 0; c < kColsPerThread; ++c) {
          acc += Exp(buf[r][c]);  // float32 log_softmax: buf holds x - max
        }
        return acc;
      });
      const int64_t row = row0 + r * Rows::kStride;
      if (row >= rows) {
        continue;
      }
      WriteGroupRow<kPack, kNumPacks, kWidth, C>(y + row * cols, cols, lane, [&](int p, C* out) {
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
          const C v = buf[r][p * kPack + i];
          out[i] = kAlgorithm == SoftmaxAlgorithm::kSoftmax ? v * scale : v - scale;
        }
      });
    }
  }
}

template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, int kPack, int kColsPerThread,
          int kWidth, int kRowsPerAccess>
__global__ void __launch_bounds__(kWarpBlockThreads)
    WarpSoftmaxBackwardKernel(const T* __restrict__ y, const T* __restrict__ dy, T* __restrict__ dx,
                              int64_t rows, int64_t cols) {
  static_assert(kColsPerThread % kPack == 0, "a thread holds whole packs");
  constexpr int kNumPacks = kColsPerThread / kPack;
  C y_buf[kRowsPerAccess][kColsPerThread];
  C dy_buf[kRowsPerAccess][kColsPerThread];
  const int64_t group = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const int64_t group_count = static_cast<int64_t>(gridDim.x) * blockDim.y;
  const int lane = threadIdx.x;
  using Rows = WarpRows<T, kColsPerThread, kWidth, kRowsPerAccess>;
  for (int64_t row0 = Rows::First(group); row0 < rows; row0 += group_count * kRowsPerAccess) {
    C sum[kRowsPerAccess];
#pragma unroll
    for (int r = 0; r < kRowsPerAccess; ++r) {
      sum[r] = 0;
      const int64_t row = row0 + r * Rows::kStride;
      const bool row_valid = row < rows;
      const int64_t offset = row * cols;
#pragma unroll
      for (int p = 0; p < kNumPacks; ++p) {
        const int64_t col = (static_cast<int64_t>(p) * kWidth + lane) * kPack;
        C* yb = &y_buf[r][p * kPack];
        C* db = &dy_buf[r][p * kPack];
        if (row_valid && col < cols) {
          LoadPack<C, kPack>(y + offset + col, yb);
          LoadPack<C, kPack>(dy + offset + col, db);
#pragma unroll
          for (int i = 0; i < kPack; ++i) {
            sum[r] += kAlgorithm == SoftmaxAlgorithm::kSoftmax ? yb[i] * db[i] : db[i];
          }
        } else {
#pragma unroll
          for (int i = 0; i < kPack; ++i) {
            yb[i] = db[i] = 0;
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < kRowsPerAccess; ++r) {
      sum[r] = GroupSum<kWidth>(sum[r]);
      const int64_t row = row0 + r * Rows::kStride;
      if (row >= rows) {
        continue;
      }
      WriteGroupRow<kPack, kNumPacks, kWidth, C>(dx + row * cols, cols, lane, [&](int p, C* out) {
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
          const C yv = y_buf[r][p * kPack + i], dyv = dy_buf[r][p * kPack + i];
          out[i] = kAlgorithm == SoftmaxAlgorithm::kSoftmax
                       ? yv * (dyv - sum[r])
                       : dyv - ExpFor<T, kAlgorithm>(yv) * sum[r];
        }
      });
    }
  }
}

// ---- block-wide helpers -----------------------------------------------------------------

// Reduces over the block and hands every thread the result.
template <int kBlockSize, typename C, typename Op>
__device__ __forceinline__ C BlockAllReduce(C v, Op op) {
  using Reduce = cub::BlockReduce<C, kBlockSize>;
  __shared__ typename Reduce::TempStorage storage;
  __shared__ C result;
  const C reduced = Reduce(storage).Reduce(v, op);
  if (threadIdx.x == 0) {
    result = reduced;
  }
  __syncthreads();
  const C all = result;
  __syncthreads();  // storage and result are reused by the next reduction
  return all;
}

struct MaxOp {
  template <typename C>
  __device__ __forceinline__ C operator()(C a, C b) const {
    return Max(a, b);
  }
};
struct SumOp {
  template <typename C>
  __device__ __forceinline__ C operator()(C a, C b) const {
    return a + b;
  }
};

// Elements of a row before its first 16-byte-aligned element (at most the row).
template <typename T>
__device__ __forceinline__ int64_t AlignedHead(const T* row, int64_t cols) {
  const auto misalignment = reinterpret_cast<uintptr_t>(row) % 16;
  const int64_t head =
      misalignment == 0 ? 0 : static_cast<int64_t>((16 - misalignment) / sizeof(T));
  return head < cols ? head : cols;
}

template <int N>
using Count = std::integral_constant<int, N>;

// Walks a row, the threads of the block splitting it: f(col, raw values, Count<1>) over the
// unaligned head and the tail one element at a time, and g(col, col_stride, packs, Count<u>) over
// the aligned body's 16-byte packs u at a time, packs[i] starting at col + i * col_stride.
// Several packs per thread are loaded before any is used (4, then 2, then 1): with one load in
// flight per thread, a block path keeps too few bytes in flight to cover memory latency.
template <int kPack, typename T, typename F, typename G>
__device__ __forceinline__ void ForEachPackGroupInRow(const T* row, int64_t cols, F f, G g) {
  const int64_t head = AlignedHead(row, cols);
  const int64_t packs = (cols - head) / kPack;
  for (int64_t c = threadIdx.x; c < head; c += blockDim.x) {
    f(c, &row[c], Count<1>());
  }
  const int64_t stride = blockDim.x;
  int64_t p = threadIdx.x;
  auto unrolled = [&](auto unroll) {
    constexpr int kUnroll = decltype(unroll)::value;
    for (; p + (kUnroll - 1) * stride < packs; p += kUnroll * stride) {
      Pack<T, kPack> v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        v[u] = *reinterpret_cast<const Pack<T, kPack>*>(row + head + (p + u * stride) * kPack);
      }
      g(head + p * kPack, stride * kPack, v, unroll);
    }
  };
  unrolled(Count<4>());
  unrolled(Count<2>());
  for (; p < packs; p += stride) {
    const Pack<T, kPack> v = *reinterpret_cast<const Pack<T, kPack>*>(row + head + p * kPack);
    g(head + p * kPack, stride * kPack, &v, Count<1>());
  }
  for (int64_t c = head + packs * kPack + threadIdx.x; c < cols; c += blockDim.x) {
    f(c, &row[c], Count<1>());
  }
}

// Calls f(col, raw values, Count<n>) over a row as ForEachPackGroupInRow walks it: n = 1 for
// the head and tail, n = kPack for each pack of the body, whatever the row length or start.
template <int kPack, typename T, typename F>
__device__ __forceinline__ void ForEachInRow(const T* row, int64_t cols, F f) {
  ForEachPackGroupInRow<kPack>(
      row, cols, f, [&](int64_t col, int64_t col_stride, const Pack<T, kPack>* v, auto unroll) {
#pragma unroll
        for (int u = 0; u < decltype(unroll)::value; ++u) {
          f(col + u * col_stride, v[u].elem, Count<kPack>());
        }
      });
}

// Writes a row: g(col, out, Count<n>) fills n values starting at col; packs as above.
template <int kPack, typename C, typename T, typename G>
__device__ __forceinline__ void WriteRow(T* row, int64_t cols, G g) {
  const int64_t head = AlignedHead(row, cols);
  const int64_t packs = (cols - head) / kPack;
  for (int64_t c = threadIdx.x; c < head; c += blockDim.x) {
    C v;
    g(c, &v, Count<1>());
    row[c] = FromCompute<T>(v);
  }
  for (int64_t p = threadIdx.x; p < packs; p += blockDim.x) {
    C v[kPack];
    const int64_t c0 = head + p * kPack;
    g(c0, v, Count<kPack>());
    StorePack<kPack>(v, row + c0);
  }
  for (int64_t c = head + packs * kPack + threadIdx.x; c < cols; c += blockDim.x) {
    C v;
    g(c, &v, Count<1>());
    row[c] = FromCompute<T>(v);
  }
}

// A row cached in shared memory as it is stored (16-bit types stay 16-bit: twice the rows fit).
// Element c lives at data[c + shift], the shift chosen so that the global row's 16-byte packs
// land on 16-byte shared-memory boundaries: packs then move as 16-byte shared accesses, free of
// the bank conflicts that a thread's run of scalar stores would cause.
template <typename C>
struct SmemRow {
  static constexpr int kAlign = static_cast<int>(16 / sizeof(C));  // elements per 16 bytes
  C* data;
  int64_t head;  // the global row's unaligned head, in elements
  int shift;

  template <typename T>
  __device__ __forceinline__ SmemRow(C* buffer, const T* global_row, int64_t cols)
      : data(buffer),
        head(AlignedHead(global_row, cols)),
        shift(static_cast<int>((kAlign - head % kAlign) % kAlign)) {}

  __device__ __forceinline__ C& operator[](int64_t c) const { return data[c + shift]; }

  // n values from column c; 16-byte moves when c is a pack start of the global row.
  template <int N>
  __device__ __forceinline__ void Store(int64_t c, const C* v) const {
    if constexpr (N * sizeof(C) % 16 == 0) {
#pragma unroll
      for (int i = 0; i < N; i += kAlign) {
        *reinterpret_cast<Pack<C, kAlign>*>(&data[c + shift + i]) =
            *reinterpret_cast<const Pack<C, kAlign>*>(&v[i]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i) {
        data[c + shift + i] = v[i];
      }
    }
  }

  template <int N>
  __device__ __forceinline__ void Load(int64_t c, C* v) const {
    if constexpr (N * sizeof(C) % 16 == 0) {
#pragma unroll
      for (int i = 0; i < N; i += kAlign) {
        *reinterpret_cast<Pack<C, kAlign>*>(&v[i]) =
            *reinterpret_cast<const Pack<C, kAlign>*>(&data[c + shift + i]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i) {
        v[i] = data[c + shift + i];
      }
    }
  }

  // f(col, values, Count<n>) over the cached row in the global row's pack layout, so the body
  // is read in 16-byte shared accesses.
  template <int kPack, typename F>
  __device__ __forceinline__ void ForEach(int64_t cols, F f) const {
    const int64_t packs = (cols - head) / kPack;
    for (int64_t c = threadIdx.x; c < head; c += blockDim.x) {
      f(c, &(*this)[c], Count<1>());
    }
    for (int64_t p = threadIdx.x; p < packs; p += blockDim.x) {
      C v[kPack];
      Load<kPack>(head + p * kPack, v);
      f(head + p * kPack, v, Count<kPack>());
    }
    for (int64_t c = head + packs * kPack + threadIdx.x; c < cols; c += blockDim.x) {
      f(c, &(*this)[c], Count<1>());
    }
  }
};

// Elements of shared memory one cached row takes: room for the shift, and a whole number of
// 16-byte units so that a second row placed after it starts 16-byte aligned.
template <typename C>
__host__ __device__ constexpr int64_t SmemRowStride(int64_t cols) {
  constexpr int64_t kAlign = SmemRow<C>::kAlign;
  return (cols + kAlign - 1) / kAlign * kAlign + kAlign;
}
template <typename C>
constexpr size_t SmemRowBytes(int64_t cols) {
  return static_cast<size_t>(SmemRowStride<C>(cols)) * sizeof(C);
}

template <typename T>
constexpr int kBlockPack = 16 / sizeof(T) > 0 ? static_cast<int>(16 / sizeof(T)) : 1;

// ---- block shared-memory implementation ---------------------------------------------------

template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, int kBlockSize>
__global__ void __launch_bounds__(kBlockSize)
    BlockSmemSoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t cols) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  constexpr int kPack = kBlockPack<T>;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* row_x = x + row * cols;
    T* row_y = y + row * cols;
    const SmemRow<T> buf(reinterpret_cast<T*>(smem_bytes), row_x, cols);
    // y's packs line up with x's in shared memory when both rows start equally misaligned
    // (the usual case); otherwise the writes read shared memory element by element.
    const bool same_alignment = AlignedHead(row_y, cols) == AlignedHead(row_x, cols);
    C max = NegativeInfinity<C>();  // of the unaligned head and tail; packs fold into pack_max
    PackMax<T, kPack> pack_max;
    ForEachInRow<kPack>(row_x, cols, [&](int64_t c, const T* v, auto n) {
      constexpr int N = decltype(n)::value;
      buf.template Store<N>(c, v);
      if constexpr (N == kPack) {
        pack_max.Add(*reinterpret_cast<const Pack<T, kPack>*>(v));
      } else {
#pragma unroll
        for (int i = 0; i < N; ++i) {
          max = Max(max, ToCompute(v[i]));
        }
      }
    });
    max = Max(max, static_cast<C>(pack_max.Value()));
    max = BlockAllReduce<kBlockSize>(max, MaxOp());  // also orders the stores above
    SumType<T, C, kAlgorithm> sum = 0;
    buf.template ForEach<kPack>(cols, [&](int64_t, const T* v, auto n) {
#pragma unroll
      for (int i = 0; i < decltype(n)::value; ++i) {
        sum += ExpFor<T, kAlgorithm>(ToCompute(v[i]) - max);
      }
    });
    sum = BlockAllReduce<kBlockSize>(sum, SumOp());
    const C scale = RowScale<kAlgorithm, C>(sum);
    // exp is computed again here rather than kept: shared memory holds the input's bits only.
    WriteRow<kPack, C>(row_y, cols, [&](int64_t c, C* v, auto n) {
      constexpr int N = decltype(n)::value;
      T raw[N];
      if (same_alignment) {
        buf.template Load<N>(c, raw);
      } else {
#pragma unroll
        for (int i = 0; i < N; ++i) {
          raw[i] = buf[c + i];
        }
      }
#pragma unroll
      for (int i = 0; i < N; ++i) {
        const C d = ToCompute(raw[i]) - max;
        v[i] =
            kAlgorithm == SoftmaxAlgorithm::kSoftmax ? ExpFor<T, kAlgorithm>(d) * scale : d - scale;
      }
    });
    __syncthreads();  // the next row overwrites buf
  }
}

template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, int kBlockSize>
__global__ void __launch_bounds__(kBlockSize)
    BlockSmemSoftmaxBackwardKernel(const T* __restrict__ y, const T* __restrict__ dy,
                                   T* __restrict__ dx, int64_t rows, int64_t cols) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  constexpr int kPack = kBlockPack<T>;
  T* const base = reinterpret_cast<T*>(smem_bytes);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* row_y = y + row * cols;
    const T* row_dy = dy + row * cols;
    const SmemRow<T> y_buf(base, row_y, cols);
    const SmemRow<T> dy_buf(base + SmemRowStride<T>(cols), row_dy, cols);
    ForEachInRow<kPack>(row_y, cols, [&](int64_t c, const T* v, auto n) {
      y_buf.template Store<decltype(n)::value>(c, v);
    });
    ForEachInRow<kPack>(row_dy, cols, [&](int64_t c, const T* v, auto n) {
      dy_buf.template Store<decltype(n)::value>(c, v);
    });
    __syncthreads();  // the sum pairs elements loaded by different threads
    C sum = 0;
    for (int64_t c = threadIdx.x; c < cols; c += kBlockSize) {
      const C dyv = ToCompute(dy_buf[c]);
      sum += kAlgorithm == SoftmaxAlgorithm::kSoftmax ? ToCompute(y_buf[c]) * dyv : dyv;
    }
    sum = BlockAllReduce<kBlockSize>(sum, SumOp());
    WriteRow<kPack, C>(dx + row * cols, cols, [&](int64_t c, C* v, auto n) {
#pragma unroll
      for (int i = 0; i < decltype(n)::value; ++i) {
        const C yv = ToCompute(y_buf[c + i]), dyv = ToCompute(dy_buf[c + i]);
        v[i] = kAlgorithm == SoftmaxAlgorithm::kSoftmax ? yv * (dyv - sum)
                                                        : dyv - ExpFor<T, kAlgorithm>(yv) * sum;
      }
    });
    __syncthreads();
  }
}

// ---- block uncached implementation ------------------------------------------------------

// Running (max, sum of exp(v - max)) over a stream of values, merged across threads. Written
// so that the specials match the two-pass formula: a NaN or +inf makes the sum NaN; -inf
// values add nothing (a row of only -inf ends with sum 0, and its outputs NaN). Rescaling
// skips a zero sum (0 * exp(-inf - -inf) would be NaN) but never a NaN one: the max a NaN
// leaves behind is arbitrary, so the NaN sum must survive the merge.
template <typename C, typename S>
struct MaxSum {
  C max;
  S sum;
};

// Folds n values into acc: the pack's max first, then one rescale of the running sum and one
// exp per value (a branch and up to two exps per value when folded one by one).
template <typename T, SoftmaxAlgorithm kAlgorithm, typename C, typename S, int N>
__device__ __forceinline__ void AccumulatePack(MaxSum<C, S>& acc, const T* v) {
  C x[N];
  C max = acc.max;
  bool only_neg_inf = acc.max == NegativeInfinity<C>();
#pragma unroll
  for (int i = 0; i < N; ++i) {
    x[i] = ToCompute(v[i]);
    max = Max(max, x[i]);
    only_neg_inf = only_neg_inf && x[i] == NegativeInfinity<C>();
  }
  // Only -inf so far: nothing to add. Tested per value: Max may step over a NaN (-inf, NaN,
  // -inf has the max -inf), which must reach the sum.
  if (only_neg_inf) {
    return;
  }
  // exp(v - max) with max = +inf is NaN for v = +inf, as in two passes
  S sum = acc.sum == S(0) ? S(0) : acc.sum * Exp(acc.max - max);
#pragma unroll
  for (int i = 0; i < N; ++i) {
    sum += ExpFor<T, kAlgorithm>(x[i] - max);
  }
  acc = {max, sum};
}

// Folds kUnroll packs into acc at once (float sums): their max in four independent chains
// (16-bit pairs two at a time), one rescale of the running sum, and four partial sums, where
// AccumulatePack's chain per pack was about twice the instructions. Every loop has a constant
// trip count: a max tree whose inner bound was the outer loop's variable was left rolled by
// nvcc, which put the values in local memory. A max of -inf (every value so far -inf, or NaN
// among them, which Max steps over) subtracts 0 instead, so -inf adds 0 and NaN reaches the sum;
// a zero sum rescaled from -inf stays 0, a NaN one NaN, and +inf makes the sum NaN, as in
// AccumulatePack.
template <typename T, SoftmaxAlgorithm kAlgorithm, typename C, int kPack, int kUnroll>
__device__ __forceinline__ void AccumulatePackGroup(MaxSum<C, C>& acc, const Pack<T, kPack>* v) {
  constexpr int kValues = kPack * kUnroll;
  constexpr int kChains = 4;
  C max;
  if constexpr (sizeof(T) == 2) {
    using Pair = std::conditional_t<std::is_same_v<T, __half>, __half2, __nv_bfloat162>;
    static_assert(kValues % (2 * kChains) == 0, "whole pairs in every chain");
    const Pair* pairs = reinterpret_cast<const Pair*>(v);
    Pair m[kChains];
#pragma unroll
    for (int i = 0; i < kValues / 2; ++i) {
      m[i % kChains] = i < kChains ? pairs[i] : __hmax2(m[i % kChains], pairs[i]);
    }
    const Pair top = __hmax2(__hmax2(m[0], m[1]), __hmax2(m[2], m[3]));
    max = Max(ToCompute(top.x), ToCompute(top.y));
  } else {
    static_assert(kValues % kChains == 0, "whole chains");
    C m[kChains];
#pragma unroll
    for (int i = 0; i < kValues; ++i) {
      const C x = ToCompute(v[i / kPack].elem[i % kPack]);
      m[i % kChains] = i < kChains ? x : Max(m[i % kChains], x);
    }
    max = Max(Max(m[0], m[1]), Max(m[2], m[3]));
  }
  max = Max(acc.max, max);
  const C base = max == NegativeInfinity<C>() ? C(0) : max;
  C part[kChains] = {acc.sum * Exp(acc.max - base), C(0), C(0), C(0)};
#pragma unroll
  for (int i = 0; i < kValues; ++i) {
    part[i % kChains] += ExpFor<T, kAlgorithm>(ToCompute(v[i / kPack].elem[i % kPack]) - base);
  }
  acc = {max, (part[0] + part[1]) + (part[2] + part[3])};
}

// A running sum rescaled to `max`: a zero sum stays zero (its max may be -inf), a NaN one stays
// NaN.
template <typename C, typename S>
__device__ __forceinline__ S Rescaled(const MaxSum<C, S>& p, C max) {
  return p.sum == S(0) ? S(0) : p.sum * Exp(p.max - max);
}

struct MaxSumOp {
  template <typename C, typename S>
  __device__ __forceinline__ MaxSum<C, S> operator()(const MaxSum<C, S>& a,
                                                     const MaxSum<C, S>& b) const {
    const C max = Max(a.max, b.max);
    return {max, Rescaled(a, max) + Rescaled(b, max)};
  }
};

template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, int kBlockSize>
__global__ void __launch_bounds__(kBlockSize)
    BlockUncachedSoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows,
                               int64_t cols) {
  using S = SumType<T, C, kAlgorithm>;
  constexpr int kPack = kBlockPack<T>;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* row_x = x + row * cols;
    MaxSum<C, S> acc{NegativeInfinity<C>(), S(0)};
    ForEachInRow<kPack>(row_x, cols, [&](int64_t, const T* v, auto n) {
      AccumulatePack<T, kAlgorithm, C, S, decltype(n)::value>(acc, v);
    });
    acc = BlockAllReduce<kBlockSize>(acc, MaxSumOp());
    const C max = acc.max;
    const C scale = RowScale<kAlgorithm, C>(acc.sum);
    // The row's second read: it was just read, so it often still sits in L2.
    WriteRow<kPack, C>(y + row * cols, cols, [&](int64_t c, C* v, auto n) {
#pragma unroll
      for (int i = 0; i < decltype(n)::value; ++i) {
        const C d = ToCompute(row_x[c + i]) - max;
        v[i] =
            kAlgorithm == SoftmaxAlgorithm::kSoftmax ? ExpFor<T, kAlgorithm>(d) * scale : d - scale;
      }
    });
  }
}

template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, int kBlockSize>
__global__ void __launch_bounds__(kBlockSize)
    BlockUncachedSoftmaxBackwardKernel(const T* __restrict__ y, const T* __restrict__ dy,
                                       T* __restrict__ dx, int64_t rows, int64_t cols) {
  constexpr int kPack = kBlockPack<T>;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* row_y = y + row * cols;
    const T* row_dy = dy + row * cols;
    C sum = 0;
    if (kAlgorithm == SoftmaxAlgorithm::kSoftmax) {
      for (int64_t c = threadIdx.x; c < cols; c += kBlockSize) {
        sum += ToCompute(row_y[c]) * ToCompute(row_dy[c]);
      }
    } else {
      ForEachInRow<kPack>(row_dy, cols, [&](int64_t, const T* v, auto n) {
#pragma unroll
        for (int i = 0; i < decltype(n)::value; ++i) {
          sum += ToCompute(v[i]);
        }
      });
    }
    sum = BlockAllReduce<kBlockSize>(sum, SumOp());
    WriteRow<kPack, C>(dx + row * cols, cols, [&](int64_t c, C* v, auto n) {
#pragma unroll
      for (int i = 0; i < decltype(n)::value; ++i) {
        const C yv = ToCompute(row_y[c + i]), dyv = ToCompute(row_dy[c + i]);
        v[i] = kAlgorithm == SoftmaxAlgorithm::kSoftmax ? yv * (dyv - sum)
                                                        : dyv - ExpFor<T, kAlgorithm>(yv) * sum;
      }
    });
  }
}

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_KERNELS_CUH_
