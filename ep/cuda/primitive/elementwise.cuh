// One launcher for the CUDA provider's elementwise kernels (OneFlow's elementwise.cuh idea):
// dst[i] = f(src0[i][, src1[i]]) over n contiguous elements, for any functor that maps compute
// values (primitive/elementwise_functors.h), so unary ops, binary ops and casts share one
// kernel body instead of a copy per op or dtype. Framework-free: launchers return cudaError_t.
//
// Threads stride over packs of kPack = 16 / (the widest in/out element) elements, one aligned
// access per operand, when every pointer is aligned to its pack's size (pack 1 otherwise); the
// n % kPack elements after the last whole pack go one each to the grid's first threads. Index
// math is 32-bit, unsigned so that `i + stride` cannot overflow: launches of more than 2^30
// elements are split on the host into chunks of 2^30 (a multiple of every pack, so alignment
// holds), and one kernel covers any size.
//
// 16-bit floats load as float; results are stored with one rounding from whatever type the
// functor returns (__double2half from double, not two roundings through float; integers and
// bool through double, exact for every integer the destination can tell apart below 2^53).
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_ELEMENTWISE_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_ELEMENTWISE_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ep/cuda/cuda_data_type.h"
#include "ep/cuda/grid_size.h"
#include "primitive/elementwise_functors.h"

namespace oflite {
namespace ep {
namespace elementwise_kernels {

constexpr int kBlockSize = 256;
constexpr int kMaxAccessBytes = 16;
// Elements per launch: below 2^31, so 32-bit index math holds, and a multiple of every pack.
constexpr int64_t kChunkElements = int64_t{1} << 30;

// ---- compute types and conversions --------------------------------------------------------

template <typename T>
using ComputeType = CudaComputeType<T>;

template <typename T>
constexpr bool kIsHalf16 = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <typename T>
__device__ __forceinline__ ComputeType<T> ToCompute(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return v;
  }
}

// A non-float value as the double a 16-bit store rounds from once (int64 rounded to odd).
template <typename V>
__device__ __forceinline__ double AsDoubleForHalf(V v) {
  if constexpr (std::is_same_v<V, int64_t>) {
    return primitive::elementwise::Int64ToDoubleRoundToOdd(v);
  } else {
    return static_cast<double>(v);
  }
}

// v (the functor's result: a compute type, or the destination type itself) as Dst, rounding
// once into 16-bit types.
template <typename Dst, typename V>
__device__ __forceinline__ Dst FromCompute(V v) {
  if constexpr (std::is_same_v<Dst, __half>) {
    if constexpr (std::is_same_v<V, float>) {
      return __float2half_rn(v);
    } else {
      return __double2half(AsDoubleForHalf(v));
    }
  } else if constexpr (std::is_same_v<Dst, __nv_bfloat16>) {
    if constexpr (std::is_same_v<V, float>) {
      return __float2bfloat16_rn(v);
    } else {
      return __double2bfloat16(AsDoubleForHalf(v));
    }
  } else {
    return static_cast<Dst>(v);
  }
}

// ---- packs --------------------------------------------------------------------------------

template <typename T, int kPack>
struct alignas(sizeof(T) * kPack) Pack {
  T elem[kPack];
};

// The pack of a kernel over these element types: 16 bytes of the widest.
template <typename... T>
constexpr int kPackOf = kMaxAccessBytes / static_cast<int>(std::max({sizeof(T)...}));

template <int kPack, typename T>
__device__ __forceinline__ void LoadPack(const T* src, ComputeType<T>* out) {
  const Pack<T, kPack> pack = *reinterpret_cast<const Pack<T, kPack>*>(src);
#pragma unroll
  for (int i = 0; i < kPack; ++i) {
    out[i] = ToCompute(pack.elem[i]);
  }
}

template <int kPack, typename Dst, typename V>
__device__ __forceinline__ void StorePack(const V* in, Dst* dst) {
  Pack<Dst, kPack> pack;
  if constexpr (std::is_same_v<V, float> && kIsHalf16<Dst> && kPack % 2 == 0) {
    // Two floats into two 16-bit values with one paired conversion instruction.
#pragma unroll
    for (int i = 0; i < kPack; i += 2) {
      if constexpr (std::is_same_v<Dst, __half>) {
        *reinterpret_cast<__half2*>(&pack.elem[i]) = __floats2half2_rn(in[i], in[i + 1]);
      } else {
        *reinterpret_cast<__nv_bfloat162*>(&pack.elem[i]) = __floats2bfloat162_rn(in[i], in[i + 1]);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      pack.elem[i] = FromCompute<Dst>(in[i]);
    }
  }
  *reinterpret_cast<Pack<Dst, kPack>*>(dst) = pack;
}

inline bool IsAligned(const void* ptr, size_t bytes) {
  return reinterpret_cast<uintptr_t>(ptr) % bytes == 0;
}

// Whether ptr may be accessed in packs of kPack elements of T.
template <int kPack, typename T>
bool PackAligned(const T* ptr) {
  return IsAligned(ptr, sizeof(T) * kPack);
}

// ---- launch configuration -----------------------------------------------------------------

struct LaunchParams {
  cudaStream_t stream = nullptr;
  int sm_count = 0;
  int max_threads_per_sm = 0;
};

// Blocks for `threads` threads of work (at least one block), capped by GridSize.
inline unsigned GridBlocks(const LaunchParams& params, int64_t threads) {
  return static_cast<unsigned>(
      GridSize(params.sm_count, params.max_threads_per_sm, kBlockSize,
               (std::max<int64_t>(threads, 1) + kBlockSize - 1) / kBlockSize));
}

__device__ __forceinline__ uint32_t GlobalThread() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ uint32_t GridThreads() { return gridDim.x * blockDim.x; }

// ---- kernels ------------------------------------------------------------------------------

// dst[i] = f(src[i]) for i < n (n < 2^31).
template <int kPack, typename F, typename Dst, typename Src>
__global__ void __launch_bounds__(kBlockSize)
    UnaryElementwiseKernel(F f, uint32_t n, Dst* dst, const Src* src) {
  using R = decltype(f(ComputeType<Src>()));
  const uint32_t num_packs = n / kPack;
  for (uint32_t p = GlobalThread(); p < num_packs; p += GridThreads()) {
    ComputeType<Src> x[kPack];
    LoadPack<kPack>(src + p * kPack, x);
    R y[kPack];
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      y[i] = f(x[i]);
    }
    StorePack<kPack>(y, dst + p * kPack);
  }
  if constexpr (kPack > 1) {
    const uint32_t i = num_packs * kPack + GlobalThread();
    if (i < n) {
      dst[i] = FromCompute<Dst>(f(ToCompute(src[i])));
    }
  }
}

// Which operand of a binary launch is one element broadcast to all n (read once per thread).
enum class ScalarSide : int { kNone = 0, kSrc0 = 1, kSrc1 = 2 };

// A scalar side's value when it comes from the host rather than from element 0 of a tensor.
template <typename C0, typename C1>
struct ScalarValue {
  bool given = false;
  C0 value0 = C0();
  C1 value1 = C1();
};

// dst[i] = f(src0[i], src1[i]) for i < n (n < 2^31); the scalar side, if any, is element 0
// everywhere, or the given value. The side is a kernel argument rather than a template
// parameter: the branch is uniform across the grid, costs next to nothing in a memory-bound
// loop, and saves two more instantiations per (op, dtype).
template <int kPack, typename F, typename Dst, typename Src0, typename Src1>
__global__ void __launch_bounds__(kBlockSize)
    BinaryElementwiseKernel(F f, uint32_t n, Dst* dst, const Src0* src0, const Src1* src1,
                            ScalarSide scalar_side,
                            ScalarValue<ComputeType<Src0>, ComputeType<Src1>> value) {
  using C0 = ComputeType<Src0>;
  using C1 = ComputeType<Src1>;
  using R = decltype(f(C0(), C1()));
  C0 scalar0 = value.value0;
  C1 scalar1 = value.value1;
  if (scalar_side == ScalarSide::kSrc0 && !value.given) {
    scalar0 = ToCompute(*src0);
  } else if (scalar_side == ScalarSide::kSrc1 && !value.given) {
    scalar1 = ToCompute(*src1);
  }
  const uint32_t num_packs = n / kPack;
  for (uint32_t p = GlobalThread(); p < num_packs; p += GridThreads()) {
    C0 a[kPack];
    C1 b[kPack];
    if (scalar_side == ScalarSide::kSrc0) {
#pragma unroll
      for (int i = 0; i < kPack; ++i) {
        a[i] = scalar0;
      }
    } else {
      LoadPack<kPack>(src0 + p * kPack, a);
    }
    if (scalar_side == ScalarSide::kSrc1) {
#pragma unroll
      for (int i = 0; i < kPack; ++i) {
        b[i] = scalar1;
      }
    } else {
      LoadPack<kPack>(src1 + p * kPack, b);
    }
    R y[kPack];
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      y[i] = f(a[i], b[i]);
    }
    StorePack<kPack>(y, dst + p * kPack);
  }
  if constexpr (kPack > 1) {
    const uint32_t i = num_packs * kPack + GlobalThread();
    if (i < n) {
      const C0 a = scalar_side == ScalarSide::kSrc0 ? scalar0 : ToCompute(src0[i]);
      const C1 b = scalar_side == ScalarSide::kSrc1 ? scalar1 : ToCompute(src1[i]);
      dst[i] = FromCompute<Dst>(f(a, b));
    }
  }
}

// ---- launchers ----------------------------------------------------------------------------

// dst[i] = f(src[i]) for i < n with packs of kPack (the caller checked the alignment).
template <int kPack, typename F, typename Dst, typename Src>
cudaError_t LaunchUnaryPacked(const LaunchParams& params, int64_t n, F f, Dst* dst,
                              const Src* src) {
  for (int64_t start = 0; start < n; start += kChunkElements) {
    const int64_t count = std::min(kChunkElements, n - start);
    UnaryElementwiseKernel<kPack>
        <<<GridBlocks(params, count / kPack), kBlockSize, 0, params.stream>>>(
            f, static_cast<uint32_t>(count), dst + start, src + start);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) {
      return status;
    }
  }
  return cudaSuccess;
}

// dst[i] = f(src0[i], src1[i]) for i < n with packs of kPack (the caller checked the alignment
// of the operands that are not the scalar side).
template <int kPack, typename F, typename Dst, typename Src0, typename Src1>
cudaError_t LaunchBinaryPacked(const LaunchParams& params, int64_t n, F f, Dst* dst,
                               const Src0* src0, const Src1* src1, ScalarSide scalar_side,
                               ScalarValue<ComputeType<Src0>, ComputeType<Src1>> value =
                                   ScalarValue<ComputeType<Src0>, ComputeType<Src1>>()) {
  for (int64_t start = 0; start < n; start += kChunkElements) {
    const int64_t count = std::min(kChunkElements, n - start);
    const int64_t start0 = scalar_side == ScalarSide::kSrc0 ? 0 : start;
    const int64_t start1 = scalar_side == ScalarSide::kSrc1 ? 0 : start;
    BinaryElementwiseKernel<kPack>
        <<<GridBlocks(params, count / kPack), kBlockSize, 0, params.stream>>>(
            f, static_cast<uint32_t>(count), dst + start, src0 + start0, src1 + start1, scalar_side,
            value);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) {
      return status;
    }
  }
  return cudaSuccess;
}

// dst[i] = f(src[i]) for i < n: 16-byte packs when dst and src allow, else pack 1. *pack_used
// (optional) says which.
template <typename F, typename Dst, typename Src>
cudaError_t LaunchElementwise(const LaunchParams& params, int64_t n, F f, Dst* dst, const Src* src,
                              int* pack_used = nullptr) {
  constexpr int kPack = kPackOf<Dst, Src>;
  const bool packed = PackAligned<kPack>(dst) && PackAligned<kPack>(src);
  if (pack_used != nullptr) {
    *pack_used = packed ? kPack : 1;
  }
  if (n <= 0) {
    return cudaSuccess;
  }
  return packed ? LaunchUnaryPacked<kPack>(params, n, f, dst, src)
                : LaunchUnaryPacked<1>(params, n, f, dst, src);
}

// dst[i] = f(src0[i], src1[i]), or with one operand a single element (scalar_side): 16-byte
// packs when the pointers that are read as tensors allow, else pack 1.
template <typename F, typename Dst, typename Src0, typename Src1>
cudaError_t LaunchElementwiseScalar(const LaunchParams& params, int64_t n, F f, Dst* dst,
                                    const Src0* src0, const Src1* src1, ScalarSide scalar_side,
                                    int* pack_used = nullptr) {
  constexpr int kPack = kPackOf<Dst, Src0, Src1>;
  const bool packed = PackAligned<kPack>(dst) &&
                      (scalar_side == ScalarSide::kSrc0 || PackAligned<kPack>(src0)) &&
                      (scalar_side == ScalarSide::kSrc1 || PackAligned<kPack>(src1));
  if (pack_used != nullptr) {
    *pack_used = packed ? kPack : 1;
  }
  if (n <= 0) {
    return cudaSuccess;
  }
  return packed ? LaunchBinaryPacked<kPack>(params, n, f, dst, src0, src1, scalar_side)
                : LaunchBinaryPacked<1>(params, n, f, dst, src0, src1, scalar_side);
}

// dst[i] = f(value, src[i]) (value_first) or f(src[i], value): the binary kernel with a scalar
// side whose value comes from the host, so no kernel is instantiated for it.
template <typename F, typename Dst, typename Src>
cudaError_t LaunchElementwiseWithValue(const LaunchParams& params, int64_t n, F f, Dst* dst,
                                       const Src* src, ComputeType<Src> value, bool value_first,
                                       int* pack_used) {
  constexpr int kPack = kPackOf<Dst, Src, Src>;
  const bool packed = PackAligned<kPack>(dst) && PackAligned<kPack>(src);
  *pack_used = packed ? kPack : 1;
  if (n <= 0) {
    return cudaSuccess;
  }
  const ScalarSide side = value_first ? ScalarSide::kSrc0 : ScalarSide::kSrc1;
  const Src* src0 = value_first ? nullptr : src;
  const Src* src1 = value_first ? src : nullptr;
  const ScalarValue<ComputeType<Src>, ComputeType<Src>> given{true, value, value};
  return packed ? LaunchBinaryPacked<kPack>(params, n, f, dst, src0, src1, side, given)
                : LaunchBinaryPacked<1>(params, n, f, dst, src0, src1, side, given);
}

template <typename F, typename Dst, typename Src0, typename Src1>
cudaError_t LaunchElementwise(const LaunchParams& params, int64_t n, F f, Dst* dst,
                              const Src0* src0, const Src1* src1, int* pack_used = nullptr) {
  return LaunchElementwiseScalar(params, n, f, dst, src0, src1, ScalarSide::kNone, pack_used);
}

}  // namespace elementwise_kernels
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_ELEMENTWISE_CUH_
