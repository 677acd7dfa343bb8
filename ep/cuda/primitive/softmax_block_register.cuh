// The block-register softmax forward: a row per block, held in the threads' registers as the
// warp kernel holds one, for aligned rows too long for a warp (and 16-bit rows of 769-1024
// columns, which it serves faster than the warp kernel). Against the
// shared-memory kernel it reads the row once into registers (no shared memory round trip) and
// computes exp once, and every thread issues all its loads before the first reduction, so more
// bytes are in flight per thread.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_BLOCK_REGISTER_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_BLOCK_REGISTER_CUH_

#include <type_traits>

#include "ep/cuda/primitive/softmax_kernels.cuh"

namespace oflite {
namespace ep {
namespace softmax {

constexpr int kRegisterMaxBlockThreads = 1024;

// Reduces over a block of any multiple of 32 threads and hands every thread the result.
// `partials` (32 slots) must not be written again until every thread has read it: callers
// alternate two arrays, and a block's next write to one comes after a barrier that every
// thread reaches only after its read.
template <typename C, typename Op>
__device__ __forceinline__ C BlockAllReduceAnySize(C v, Op op, C* partials) {
#pragma unroll
  for (int mask = 16; mask > 0; mask /= 2) {
    v = op(v, __shfl_xor_sync(0xffffffff, v, mask));
  }
  if (threadIdx.x % 32 == 0) {
    partials[threadIdx.x / 32] = v;
  }
  __syncthreads();
  C all = partials[0];
  const int warps = static_cast<int>(blockDim.x / 32);
  for (int w = 1; w < warps; ++w) {  // every lane reads the same word: a broadcast
    all = op(all, partials[w]);
  }
  return all;
}

// Thread t holds packs t, t + blockDim.x, ... of the row (coalesced per step); packs past the
// row's end hold -inf, which adds exp(-inf) = 0 to the sum. 16-bit rows stay in registers as
// loaded (kRaw), two values a register, and exp is computed again for the output: a thread
// then keeps twice the bytes in flight for its registers, which is what limits 16-bit rows
// (the extra exp is one multiply and the hardware exp2). float32 rows hold exp(x - max)
// between the passes.
template <typename T, typename C, Algorithm kAlgorithm, int kPacks>
__global__ void __launch_bounds__(kRegisterMaxBlockThreads)
    BlockRegisterSoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows,
                               int64_t cols) {
  constexpr int kPack = kBlockPack<T>;
  constexpr bool kRaw = sizeof(T) == 2;
  using H = std::conditional_t<kRaw, T, C>;  // what the registers hold between passes
  using S = SumType<T, C, kAlgorithm>;
  __shared__ C max_partials[32];
  __shared__ S sum_partials[32];
  const int64_t packs = cols / kPack;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* row_x = x + row * cols;
    Pack<H, kPack> buf[kPacks];
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
      const int64_t pack = threadIdx.x + static_cast<int64_t>(p) * blockDim.x;
      if (pack >= packs) {
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
          buf[p].elem[i] = static_cast<H>(NegativeInfinity<C>());
        }
      } else if constexpr (kRaw) {
        buf[p] = *reinterpret_cast<const Pack<T, kPack>*>(row_x + pack * kPack);
      } else {
        LoadPack<C, kPack>(row_x + pack * kPack, buf[p].elem);
      }
    }
    C max = NegativeInfinity<C>();
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
#pragma unroll
      for (int i = 0; i < kPack; ++i) {
        max = Max(max, ToCompute(buf[p].elem[i]));
      }
    }
    max = BlockAllReduceAnySize(max, MaxOp(), max_partials);
    S sum = 0;
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
#pragma unroll
      for (int i = 0; i < kPack; ++i) {
        H& v = buf[p].elem[i];
        if constexpr (kRaw) {
          sum += ExpFor<T>(ToCompute(v) - max);
        } else if (kAlgorithm == Algorithm::kSoftmax) {
          v = ExpFor<T>(v - max);
          sum += v;
        } else {
          v -= max;
          sum += ExpFor<T>(v);
        }
      }
    }
    sum = BlockAllReduceAnySize(sum, SumOp(), sum_partials);
    const C scale = static_cast<C>(kAlgorithm == Algorithm::kSoftmax ? 1 / sum : Log(sum));
    T* row_y = y + row * cols;
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
      const int64_t pack = threadIdx.x + static_cast<int64_t>(p) * blockDim.x;
      if (pack < packs) {
        C out[kPack];
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
          // v: exp(x - max) for float32 softmax, x - max otherwise
          C v = ToCompute(buf[p].elem[i]);
          if constexpr (kRaw) {
            v -= max;
            v = kAlgorithm == Algorithm::kSoftmax ? ExpFor<T>(v) : v;
          }
          out[i] = kAlgorithm == Algorithm::kSoftmax ? v * scale : v - scale;
        }
        StorePack<kPack>(out, row_y + pack * kPack);
      }
    }
  }
}

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_BLOCK_REGISTER_CUH_
