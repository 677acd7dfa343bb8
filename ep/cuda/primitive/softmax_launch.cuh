// Host-side launchers for the softmax kernels: choose warp / block-smem / block-uncached, the
// pack width, the warp group shape or the block size, and launch. Framework-free (returns
// cudaError_t); instantiated once per dtype in softmax_<dtype>.cu so builds parallelize.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_LAUNCH_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_LAUNCH_CUH_

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ep/cuda/cuda_data_type.h"
#include "ep/cuda/cuda_device_properties.h"
#include "ep/cuda/grid_size.h"
#include "ep/cuda/primitive/softmax_block_register.cuh"
#include "ep/cuda/primitive/softmax_cluster.cuh"
#include "ep/cuda/primitive/softmax_cluster_smem.cuh"
#include "ep/cuda/primitive/softmax_kernels.cuh"
#include "ep/cuda/primitive/softmax_launch.h"
#include "ep/cuda/primitive/softmax_plan.h"
#include "ep/cuda/primitive/softmax_split_rows.cuh"
#include "ep/softmax_impl.h"

namespace oflite {
namespace ep {
namespace softmax {

constexpr int kMaxWarpCols = 1024;
inline int64_t GridSize(const CudaDeviceProperties& props, int block_threads, int64_t work) {
  return ep::GridSize(props.sm_count, props.max_threads_per_sm, block_threads, work);
}

// A path's grid, lowered to the tests' grid limit where one is set (SetSoftmaxGridLimitOverride).
inline int64_t LimitedGrid(int64_t blocks) {
  const int64_t limit = GetSoftmaxGridLimitOverride();
  return limit > 0 ? std::min(blocks, limit) : blocks;
}

// ---- warp path --------------------------------------------------------------------------

// Threads a warp-kernel block: 128, but two warps for float32 rows of 16 values a lane or more,
// the faster block there in the sweep (docs/BENCHMARKS.md). The launch bound stays 128.
template <typename T, int kColsPerThread>
constexpr int kWarpBlockThreadsFor = sizeof(T) == 4 && kColsPerThread >= 16 ? kWarpBlockThreads / 2
                                                                            : kWarpBlockThreads;

// Launches one instantiation of the warp kernel (forward, or backward when dy != nullptr).
template <typename T, SoftmaxAlgorithm kAlgorithm, int kPack, int kColsPerThread, int kWidth,
          int kRowsPerAccess>
cudaError_t LaunchWarp(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                       int64_t cols, const T* a, const T* dy, T* out, LaunchInfo* info) {
  using C = CudaComputeType<T>;
  constexpr int kThreads = kWarpBlockThreadsFor<T, kColsPerThread>;
  static_assert(kThreads % 32 == 0, "whole warps a block: WarpRows interleaves a warp's groups");
  constexpr int kGroupsPerBlock = kThreads / kWidth;
  const dim3 block(kWidth, kGroupsPerBlock);
  const int64_t rows_per_block = static_cast<int64_t>(kGroupsPerBlock) * kRowsPerAccess;
  const int64_t grid =
      LimitedGrid(GridSize(props, kThreads, (rows + rows_per_block - 1) / rows_per_block));
  if (dy == nullptr) {
    WarpSoftmaxKernel<T, C, kAlgorithm, kPack, kColsPerThread, kWidth, kRowsPerAccess>
        <<<static_cast<unsigned>(grid), block, 0, stream>>>(a, out, rows, cols);
  } else {
    WarpSoftmaxBackwardKernel<T, C, kAlgorithm, kPack, kColsPerThread, kWidth, kRowsPerAccess>
        <<<static_cast<unsigned>(grid), block, 0, stream>>>(a, dy, out, rows, cols);
  }
  *info = {"warp", kPack, kThreads, kWidth, kColsPerThread, kRowsPerAccess};
  return cudaGetLastError();
}

// Rows of at most 32 packs: one pack per lane, the group as narrow as the row, two rows each.
template <typename T, SoftmaxAlgorithm kAlgorithm, int kPack, int kWidth = 1>
cudaError_t LaunchWarpNarrow(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                             int64_t cols, const T* a, const T* dy, T* out, LaunchInfo* info) {
  if constexpr (kWidth < 32) {
    if (cols > static_cast<int64_t>(kWidth) * kPack) {
      return LaunchWarpNarrow<T, kAlgorithm, kPack, kWidth * 2>(props, stream, rows, cols, a, dy,
                                                                out, info);
    }
  }
  return LaunchWarp<T, kAlgorithm, kPack, kPack, kWidth, 2>(props, stream, rows, cols, a, dy, out,
                                                            info);
}

// Longer rows: 32 lanes, the first cols-per-thread in the list that covers the row.
template <typename T, SoftmaxAlgorithm kAlgorithm, int kPack, int kColsPerThread, int... kMore>
cudaError_t LaunchWarpWide(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                           int64_t cols, const T* a, const T* dy, T* out, LaunchInfo* info) {
  if constexpr (sizeof...(kMore) > 0) {
    if (cols > 32 * kColsPerThread) {
      return LaunchWarpWide<T, kAlgorithm, kPack, kMore...>(props, stream, rows, cols, a, dy, out,
                                                            info);
    }
  }
  return LaunchWarp<T, kAlgorithm, kPack, kColsPerThread, 32, 1>(props, stream, rows, cols, a, dy,
                                                                 out, info);
}

template <typename T, SoftmaxAlgorithm kAlgorithm, int kPack>
cudaError_t LaunchWarpWithPack(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                               int64_t cols, const T* a, const T* dy, T* out, LaunchInfo* info) {
  if (cols <= 32 * kPack) {
    return LaunchWarpNarrow<T, kAlgorithm, kPack>(props, stream, rows, cols, a, dy, out, info);
  }
  if constexpr (kPack == 1) {
    return LaunchWarpWide<T, kAlgorithm, 1, 2, 4, 8, 16, 32>(props, stream, rows, cols, a, dy, out,
                                                             info);
  } else if constexpr (kPack == 4) {
    return LaunchWarpWide<T, kAlgorithm, 4, 8, 12, 16, 20, 24, 28, 32>(props, stream, rows, cols, a,
                                                                       dy, out, info);
  } else {
    return LaunchWarpWide<T, kAlgorithm, 8, 16, 24, 32>(props, stream, rows, cols, a, dy, out,
                                                        info);
  }
}

template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t LaunchWarpPath(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                           int64_t cols, const T* a, const T* dy, T* out, LaunchInfo* info) {
  constexpr int kWidePack = static_cast<int>(16 / sizeof(T));  // 4 for float, 8 for 16-bit
  // Every row starts 16-byte aligned only when the row length is a whole number of packs.
  const bool wide =
      cols % kWidePack == 0 && Aligned16(a) && Aligned16(out) && (dy == nullptr || Aligned16(dy));
  if (wide) {
    return LaunchWarpWithPack<T, kAlgorithm, kWidePack>(props, stream, rows, cols, a, dy, out,
                                                        info);
  }
  return LaunchWarpWithPack<T, kAlgorithm, 1>(props, stream, rows, cols, a, dy, out, info);
}

// ---- block paths ------------------------------------------------------------------------

template <typename T, SoftmaxAlgorithm kAlgorithm, int kBlockSize>
void* BlockSmemKernel(bool backward) {
  using C = CudaComputeType<T>;
  return backward ? reinterpret_cast<void*>(
                        &BlockSmemSoftmaxBackwardKernel<T, C, kAlgorithm, kBlockSize>)
                  : reinterpret_cast<void*>(&BlockSmemSoftmaxKernel<T, C, kAlgorithm, kBlockSize>);
}

// The block size with the most resident blocks per SM for this much dynamic shared memory
// (ties to the larger block), or 0 when the row does not fit. Decided once per device and size.
template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t ChooseSmemBlockSize(const CudaDeviceProperties& props, bool backward, size_t smem,
                                int* block_size) {
  static std::mutex mutex;
  static std::map<std::tuple<int, bool, size_t>, int> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(props.device_index, backward, smem);
  auto it = cache.find(key);
  if (it != cache.end()) {
    *block_size = it->second;
    return cudaSuccess;
  }
  // 64 threads give short rows twice the rows in flight of 128, and each thread enough packs
  // to unroll its loads.
  void* kernels[] = {
      BlockSmemKernel<T, kAlgorithm, 64>(backward), BlockSmemKernel<T, kAlgorithm, 128>(backward),
      BlockSmemKernel<T, kAlgorithm, 256>(backward), BlockSmemKernel<T, kAlgorithm, 512>(backward),
      BlockSmemKernel<T, kAlgorithm, 1024>(backward)};
  const int sizes[] = {64, 128, 256, 512, 1024};
  int best = 0, best_blocks = 0;
  for (int i = 0; i < 5; ++i) {
    cudaFuncAttributes attr;
    cudaError_t err = cudaFuncGetAttributes(&attr, kernels[i]);
    if (err != cudaSuccess) {
      return err;
    }
    const size_t dynamic_limit = props.shared_memory_per_block_optin - attr.sharedSizeBytes;
    if (smem > dynamic_limit) {
      continue;
    }
    // The limit is one value per kernel: raise it once to the most the device allows, never
    // to this size (a later, smaller size would lower it under an earlier, cached choice).
    if (smem + attr.sharedSizeBytes > props.shared_memory_per_block &&
        attr.maxDynamicSharedSizeBytes < static_cast<int>(dynamic_limit)) {
      err = cudaFuncSetAttribute(kernels[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(dynamic_limit));
      if (err != cudaSuccess) {
        return err;
      }
    }
    int blocks = 0;
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernels[i], sizes[i], smem);
    if (err != cudaSuccess) {
      return err;
    }
    if (blocks > 0 && blocks >= best_blocks) {  // >= : ties go to the larger block
      best = sizes[i];
      best_blocks = blocks;
    }
  }
  cache[key] = best;
  *block_size = best;
  return cudaSuccess;
}

template <typename T, SoftmaxAlgorithm kAlgorithm, int kBlockSize>
cudaError_t LaunchBlockSmem(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                            int64_t cols, const T* a, const T* dy, T* out, size_t smem,
                            LaunchInfo* info) {
  using C = CudaComputeType<T>;
  const auto grid = static_cast<unsigned>(GridSize(props, kBlockSize, rows));
  if (dy == nullptr) {
    BlockSmemSoftmaxKernel<T, C, kAlgorithm, kBlockSize>
        <<<grid, kBlockSize, smem, stream>>>(a, out, rows, cols);
  } else {
    BlockSmemSoftmaxBackwardKernel<T, C, kAlgorithm, kBlockSize>
        <<<grid, kBlockSize, smem, stream>>>(a, dy, out, rows, cols);
  }
  *info = {"smem", kBlockPack<T>, kBlockSize, 0, 0, 0};
  return cudaGetLastError();
}

// Launches the smem path if the row fits; *launched says whether it did.
template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t TryBlockSmemPath(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                             int64_t cols, const T* a, const T* dy, T* out, LaunchInfo* info,
                             bool* launched) {
  const size_t smem = SmemRowBytes<T>(cols) * (dy == nullptr ? 1 : 2);
  *launched = false;
  if (smem > props.shared_memory_per_block_optin) {
    return cudaSuccess;
  }
  int block_size = 0;
  cudaError_t err = ChooseSmemBlockSize<T, kAlgorithm>(props, dy != nullptr, smem, &block_size);
  if (err != cudaSuccess || block_size == 0) {
    return err;
  }
  *launched = true;
  switch (block_size) {
    case 64:
      return LaunchBlockSmem<T, kAlgorithm, 64>(props, stream, rows, cols, a, dy, out, smem, info);
    case 128:
      return LaunchBlockSmem<T, kAlgorithm, 128>(props, stream, rows, cols, a, dy, out, smem, info);
    case 256:
      return LaunchBlockSmem<T, kAlgorithm, 256>(props, stream, rows, cols, a, dy, out, smem, info);
    case 512:
      return LaunchBlockSmem<T, kAlgorithm, 512>(props, stream, rows, cols, a, dy, out, smem, info);
    default:
      return LaunchBlockSmem<T, kAlgorithm, 1024>(props, stream, rows, cols, a, dy, out, smem,
                                                  info);
  }
}

template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t LaunchBlockUncached(const CudaDeviceProperties& props, cudaStream_t stream,
                                int64_t rows, int64_t cols, const T* a, const T* dy, T* out,
                                LaunchInfo* info) {
  using C = CudaComputeType<T>;
  constexpr int kBlockSize = 1024;
  const auto grid = static_cast<unsigned>(GridSize(props, kBlockSize, rows));
  if (dy == nullptr) {
    BlockUncachedSoftmaxKernel<T, C, kAlgorithm, kBlockSize>
        <<<grid, kBlockSize, 0, stream>>>(a, out, rows, cols);
  } else {
    BlockUncachedSoftmaxBackwardKernel<T, C, kAlgorithm, kBlockSize>
        <<<grid, kBlockSize, 0, stream>>>(a, dy, out, rows, cols);
  }
  *info = {"uncached", kBlockPack<T>, kBlockSize, 0, 0, 0};
  return cudaGetLastError();
}

// ---- block-register path (forward; both tensors 16-byte aligned) -----------------------

// Raises a kernel's dynamic shared-memory limit to the most the device allows. The limit is one
// value per kernel and device, the same from every call, so it is set once per device: launches
// after the first make no runtime calls for it.
inline cudaError_t RaiseDynamicSmemLimit(const CudaDeviceProperties& props, const void* kernel) {
  static std::mutex mutex;
  static std::set<std::pair<int, const void*>> raised;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(props.device_index, kernel);
  if (raised.count(key) != 0) {
    return cudaSuccess;
  }
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, kernel);
  if (err != cudaSuccess) {
    return err;
  }
  const int limit = static_cast<int>(props.shared_memory_per_block_optin) -
                    static_cast<int>(attr.sharedSizeBytes);
  if (attr.maxDynamicSharedSizeBytes < limit) {
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
    if (err != cudaSuccess) {
      return err;
    }
  }
  raised.insert(key);
  return cudaSuccess;
}

template <typename T, SoftmaxAlgorithm kAlgorithm, int kPacks, bool kSpill, bool kAligned,
          bool kWholeSm = false, bool kOpaque = (kPacks * kBlockPack<T> > 32),
          bool kOneWarp = false, bool kTwoBlocks = false>
cudaError_t LaunchBlockRegister(const CudaDeviceProperties& props, cudaStream_t stream,
                                int64_t rows, int64_t cols, const T* x, T* y, int block,
                                int smem_packs, LaunchInfo* info) {
  using C = CudaComputeType<T>;
  const auto kernel = BlockRegisterSoftmaxKernel<T, C, kAlgorithm, kPacks, kSpill, kAligned,
                                                 kWholeSm, kOpaque, kOneWarp, kTwoBlocks>;
  const size_t smem = kSpill ? static_cast<size_t>(smem_packs) * block * 16 : 0;
  if (smem > 0) {
    const cudaError_t err = RaiseDynamicSmemLimit(props, reinterpret_cast<const void*>(kernel));
    if (err != cudaSuccess) {
      return err;
    }
  }
  // A block a row, not the default grid of 32 waves that loop over rows (kept by the other
  // paths): it measured faster wherever that grid has fewer blocks than rows.
  const auto grid = static_cast<unsigned>(LimitedGrid(std::min<int64_t>(rows, INT32_MAX)));
  kernel<<<grid, block, smem, stream>>>(x, y, rows, cols, smem_packs);
  *info = {"register",
           kBlockPack<T>,
           block,
           0,
           (kPacks + smem_packs) * kBlockPack<T>,
           0,
           kWholeSm,
           std::is_same_v<T, __nv_bfloat16> && !kOpaque && !kOneWarp,
           kOneWarp,
           0,
           false,
           kTwoBlocks};
  return cudaGetLastError();
}

// Most values a thread holds, which bounds the rows the path takes and is what a forced run
// on a row without a plan gets: 32 floats, or 64 16-bit values (held as loaded, two a
// register; plans may give 16-bit rows 40).
template <typename T>
constexpr int kRegisterMaxValues = sizeof(T) == 2 ? 64 : 32;

// The most columns a row's packs span (softmax_plan.h).
template <typename T>
constexpr int64_t CoveredCols(int64_t cols) {
  return softmax::CoveredCols(static_cast<int>(sizeof(T)), cols);
}

// Rows the register path can hold: both tensors start 16-byte aligned, and a row's packs fit
// 1024 threads of kRegisterMaxValues values. A float32 row that starts mid-pack must be at
// least a pack less one long, so that its last pack ends inside the next row: only the
// tensor's last row then has a pack past the tensor's end (see CoveringPacks).
template <typename T>
bool RegisterPathFits(int64_t cols, const T* x, const T* y) {
  if (sizeof(T) == 4 && cols % kBlockPack<T> != 0 && cols < kBlockPack<T> - 1) {
    return false;
  }
  return CoveredCols<T>(cols) <= int64_t{kRegisterMaxBlockThreads} * kRegisterMaxValues<T> &&
         Aligned16(x) && Aligned16(y);
}

// The register path's default plan for these rows (softmax_plan.h).
template <typename T, SoftmaxAlgorithm kAlgorithm>
RegisterPlan RegisterAutoPlan(int64_t cols, bool packed) {
  return softmax::RegisterAutoPlan(static_cast<int>(sizeof(T)),
                                   kAlgorithm == SoftmaxAlgorithm::kSoftmax, cols, packed);
}

// Whether a bfloat16 block of 32 values a thread keeps floats between the passes (more
// registers, fewer instructions) rather than converting in each pass: only blocks of 64 or 128
// threads whose packs the row (nearly) fills gained in the sweep (docs/BENCHMARKS.md). Blocks
// of 32 threads take the one-warp kernel, which keeps floats anyway.
template <typename T>
bool KeepsFloats(int64_t cols, int block) {
  constexpr int64_t kPacksPerThread = 32 / kBlockPack<T>;  // the blocks of 32 values it decides
  const int64_t empty_slots = kPacksPerThread * block - CoveredCols<T>(cols) / kBlockPack<T>;
  return (block == 64 || block == 128) && empty_slots < 32;
}

// Launches the register kernel holding `values` per thread in registers (8 or 16 for float32,
// 32, 40 or 64 for 16-bit types) and none in shared memory; 16-bit blocks of 32 threads of 32
// values take its one-warp variant, 16-bit blocks of 32 values past kTwoBlocksAfterThreads
// threads its two-block variant (kTwoBlocks).
template <typename T, SoftmaxAlgorithm kAlgorithm, bool kAligned>
cudaError_t LaunchBlockRegisterValues(const CudaDeviceProperties& props, cudaStream_t stream,
                                      int64_t rows, int64_t cols, const T* x, T* y, int values,
                                      LaunchInfo* info) {
  constexpr int kPack = kBlockPack<T>;
  const int block = RegisterBlockFor(CoveredCols<T>(cols), values);
  if constexpr (std::is_same_v<T, float>) {
    if constexpr (kAligned) {  // plans give 8 values to rows of whole packs only
      if (values == 8) {
        return LaunchBlockRegister<T, kAlgorithm, 8 / kPack, false, true>(props, stream, rows, cols,
                                                                          x, y, block, 0, info);
      }
    }
    if (values == 16) {
      return LaunchBlockRegister<T, kAlgorithm, 16 / kPack, false, kAligned>(
          props, stream, rows, cols, x, y, block, 0, info);
    }
  }
  if constexpr (sizeof(T) == 2) {
    if (values == 40) {
      return LaunchBlockRegister<T, kAlgorithm, 5, false, kAligned>(props, stream, rows, cols, x, y,
                                                                    block, 0, info);
    }
  }
  if constexpr (kRegisterMaxValues<T> == 64) {
    if (values == 64) {
      return LaunchBlockRegister<T, kAlgorithm, 64 / kPack, false, kAligned>(
          props, stream, rows, cols, x, y, block, 0, info);
    }
  }
  if constexpr (std::is_same_v<T, float> && kAligned) {
    if (cols > kFloatWholeSmAfterCols) {
      return LaunchBlockRegister<T, kAlgorithm, 32 / kPack, false, true, true>(
          props, stream, rows, cols, x, y, block, 0, info);
    }
  }
  if constexpr (sizeof(T) == 2 && kAligned) {
    if (block > kTwoBlocksAfterThreads) {  // 32 values: see kTwoBlocks
      return LaunchBlockRegister<T, kAlgorithm, 32 / kPack, false, kAligned, false, true, false,
                                 true>(props, stream, rows, cols, x, y, block, 0, info);
    }
  }
  if constexpr (sizeof(T) == 2) {
    if (block == 32) {  // one warp a row: see kOneWarp
      return LaunchBlockRegister<T, kAlgorithm, 32 / kPack, false, kAligned, false, false, true>(
          props, stream, rows, cols, x, y, block, 0, info);
    }
  }
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    if (!KeepsFloats<T>(cols, block)) {
      return LaunchBlockRegister<T, kAlgorithm, 32 / kPack, false, kAligned, false, true>(
          props, stream, rows, cols, x, y, block, 0, info);
    }
  }
  return LaunchBlockRegister<T, kAlgorithm, 32 / kPack, false, kAligned>(props, stream, rows, cols,
                                                                         x, y, block, 0, info);
}

template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t LaunchBlockRegisterPath(const CudaDeviceProperties& props, cudaStream_t stream,
                                    int64_t rows, int64_t cols, const T* x, T* y,
                                    LaunchInfo* info) {
  constexpr int kPack = kBlockPack<T>;
  const bool packed = cols % kPack == 0;  // every row starts on a pack (the bases are aligned)
  RegisterPlan plan = RegisterAutoPlan<T, kAlgorithm>(cols, packed);
  if (plan.values == 0 || RegisterBlockFor(CoveredCols<T>(cols), plan.values + plan.smem_values) >
                              kRegisterMaxBlockThreads) {
    plan = {kRegisterMaxValues<T>, 0};  // forced onto a row the default leaves elsewhere
  }
  if (!packed) {
    return LaunchBlockRegisterValues<T, kAlgorithm, false>(props, stream, rows, cols, x, y,
                                                           plan.values, info);
  }
  // Plans that spill hold the most values in registers: one more kernel per dtype.
  if (plan.smem_values > 0 && plan.values == kRegisterMaxValues<T>) {
    const int block = RegisterBlockFor(cols, plan.values + plan.smem_values);
    return LaunchBlockRegister<T, kAlgorithm, kRegisterMaxValues<T> / kPack, true, true>(
        props, stream, rows, cols, x, y, block, plan.smem_values / kPack, info);
  }
  return LaunchBlockRegisterValues<T, kAlgorithm, true>(props, stream, rows, cols, x, y,
                                                        plan.values, info);
}

// ---- the dispatch ---------------------------------------------------------------------------

// Forward when dy is null (a = x, out = y); backward otherwise (a = y, out = dx).
template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t Launch(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                   int64_t cols, const T* a, const T* dy, T* out, SoftmaxImpl forced,
                   void* workspace, size_t workspace_bytes, LaunchInfo* info) {
  *info = LaunchInfo();
  if (rows == 0 || cols == 0) {
    return cudaSuccess;
  }
  const bool aligned = Aligned16(a) && Aligned16(out) && (dy == nullptr || Aligned16(dy));
  const bool aligned_forward = aligned && dy == nullptr;
  if constexpr (!std::is_same_v<T, double>) {
    if (aligned_forward && forced == SoftmaxImpl::kCluster) {
      bool launched = false;
      const cudaError_t err =
          TryClusterPath<T, kAlgorithm>(props, stream, rows, cols, a, out, info, &launched);
      if (err != cudaSuccess || launched) {
        return err;
      }
    }
  }
  if (forced == SoftmaxImpl::kCluster) {
    forced = SoftmaxImpl::kAuto;  // the shape or device cannot take it
  }
  const bool cluster_smem =
      aligned && (forced == SoftmaxImpl::kClusterSmem ||
                  (forced == SoftmaxImpl::kAuto &&
                   TakesClusterSmemOn(props, rows, cols, sizeof(T),
                                      ClusterSmemPassOf(kAlgorithm, dy != nullptr))));
  if constexpr (!std::is_same_v<T, double>) {
    if (cluster_smem) {
      bool launched = false;
      const cudaError_t err =
          TryClusterSmemPath<T, kAlgorithm>(props, stream, rows, cols, a, dy, out, info, &launched);
      if (err != cudaSuccess || launched) {
        return err;
      }
    }
  }
  if (forced == SoftmaxImpl::kClusterSmem) {
    forced = SoftmaxImpl::kAuto;  // the shape or device cannot take it
  }
  // Never float64 (UsesWorkspace), whose split kernels are not even instantiated.
  if constexpr (!std::is_same_v<T, double>) {
    if (UsesWorkspace(props, rows, cols, sizeof(T), forced)) {
      return LaunchSplitRows<T, kAlgorithm>(props, stream, rows, cols, a, dy, out, workspace,
                                            workspace_bytes, info);
    }
  }
  // double computes in double on the uncached path only: its speed is not a target and this
  // keeps its template fan-out to one kernel per direction.
  if constexpr (std::is_same_v<T, double>) {
    return LaunchBlockUncached<T, kAlgorithm>(props, stream, rows, cols, a, dy, out, info);
  } else {
    const bool register_fits = dy == nullptr && RegisterPathFits(cols, a, out);
    if (forced == SoftmaxImpl::kBlockRegister) {
      if (register_fits) {
        return LaunchBlockRegisterPath<T, kAlgorithm>(props, stream, rows, cols, a, out, info);
      }
      forced = SoftmaxImpl::kAuto;  // the shape cannot take it
    }
    if (forced == SoftmaxImpl::kBlockUncached) {
      return LaunchBlockUncached<T, kAlgorithm>(props, stream, rows, cols, a, dy, out, info);
    }
    if (forced == SoftmaxImpl::kAuto && register_fits &&
        RegisterAutoPlan<T, kAlgorithm>(cols, cols % kBlockPack<T> == 0).values > 0) {
      return LaunchBlockRegisterPath<T, kAlgorithm>(props, stream, rows, cols, a, out, info);
    }
    if (cols <= kMaxWarpCols && forced != SoftmaxImpl::kBlockSmem) {
      return LaunchWarpPath<T, kAlgorithm>(props, stream, rows, cols, a, dy, out, info);
    }
    bool launched = false;
    const cudaError_t err =
        TryBlockSmemPath<T, kAlgorithm>(props, stream, rows, cols, a, dy, out, info, &launched);
    if (err != cudaSuccess || launched) {
      return err;
    }
    return LaunchBlockUncached<T, kAlgorithm>(props, stream, rows, cols, a, dy, out, info);
  }
}

// softmax_<dtype>.cu instantiates the launchers for its dtype with this one line.
#define OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(T)                                               \
  template cudaError_t Launch<T, SoftmaxAlgorithm::kSoftmax>(                              \
      const CudaDeviceProperties&, cudaStream_t, int64_t, int64_t, const T*, const T*, T*, \
      SoftmaxImpl, void*, size_t, LaunchInfo*);                                            \
  template cudaError_t Launch<T, SoftmaxAlgorithm::kLogSoftmax>(                           \
      const CudaDeviceProperties&, cudaStream_t, int64_t, int64_t, const T*, const T*, T*, \
      SoftmaxImpl, void*, size_t, LaunchInfo*);

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_LAUNCH_CUH_
