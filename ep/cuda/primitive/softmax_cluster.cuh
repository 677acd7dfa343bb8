// Softmax forward over rows too long for one block's registers: a row per thread-block cluster
// (Hopper), each CTA holding a slice of the row in its threads' registers, the row's max and sum
// combined across the cluster through distributed shared memory. The row is read once and
// written once, as the block-register kernel does for shorter rows, where the shared-memory
// and uncached kernels keep one block per row and, for the longest rows, read it twice.
// Forced only (PlanCluster, softmax_plan.h): the cluster-smem kernel measured faster on every
// row it takes by default (softmax_cluster_smem.cuh).
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_CLUSTER_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_CLUSTER_CUH_

#include <cooperative_groups.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>

#include "ep/cuda/primitive/softmax_block_register.cuh"
#include "ep/cuda/primitive/softmax_kernels.cuh"
#include "ep/cuda/primitive/softmax_plan.h"

namespace oflite {
namespace ep {
namespace softmax {

// The row as `head` elements before its first 16-byte boundary, whole packs, and a tail of
// less than a pack. CTA rank r's thread t holds the packs r * blockDim.x * kPacks + t +
// p * blockDim.x; CTA 0's first head + tail threads hold one edge element each.
template <typename T>
struct ClusterRow {
  static constexpr int kPack = kBlockPack<T>;
  int head;
  int64_t packs;
  int64_t edge_col;  // this thread's head or tail element, or -1

  __device__ __forceinline__ ClusterRow(const T* row, int64_t cols, unsigned rank) {
    const int lead = static_cast<int>(reinterpret_cast<uintptr_t>(row) % 16 / sizeof(T));
    head = static_cast<int>(min(static_cast<int64_t>((kPack - lead) % kPack), cols));
    packs = (cols - head) / kPack;
    const int tail = static_cast<int>(cols - head - packs * kPack);
    const int t = static_cast<int>(threadIdx.x);
    edge_col = rank != 0         ? -1
               : t < head        ? t
               : t < head + tail ? head + packs * kPack + t - head
                                 : -1;
  }
};

// The cluster's total of each CTA's `value` (a shared variable), read through distributed
// shared memory after the cluster barrier that follows its writes.
template <typename V, typename Op>
__device__ __forceinline__ V ClusterAllReduce(cooperative_groups::cluster_group& cluster, V* value,
                                              Op op) {
  V all = *cluster.map_shared_rank(value, 0);
  for (unsigned r = 1; r < cluster.num_blocks(); ++r) {
    all = op(all, *cluster.map_shared_rank(value, r));
  }
  return all;
}

// Element i of a held pack in float, converted in volatile asm for 16-bit types: with the plain
// conversion the compiler converted every held value once for both passes and kept the floats,
// which spilled 8 packs a thread under the 64-register cap (bfloat16 softmax, both log_softmax
// types).
template <typename T, int kPack>
__device__ __forceinline__ float OpaqueValue(const Pack<T, kPack>& pack, int i) {
  if constexpr (std::is_same_v<T, __half>) {
    float r;
    asm volatile("cvt.f32.f16 %0, %1;"
                 : "=f"(r)
                 : "h"(*reinterpret_cast<const unsigned short*>(&pack.elem[i])));
    return r;
  } else {
    return HeldValue<true>(pack, i);
  }
}

// x and y start 16-byte aligned (the launcher checks), so y's rows lie as x's do.
// kHoldExp: float32 softmax keeps exp(x - max) between its passes in place, computing exp once;
// otherwise the output pass computes it again from the held input.
template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, int kPacks>
__global__ void __launch_bounds__(kRegisterMaxBlockThreads)
    ClusterSoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t cols) {
  namespace cg = cooperative_groups;
  constexpr int kPack = kBlockPack<T>;
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  constexpr bool kHoldExp = kSoftmax && sizeof(T) == 4;
  using S = SumType<T, C, kAlgorithm>;
  using P = Pack<T, kPack>;
  __shared__ C max_partials[32];
  __shared__ S sum_partials[32];
  __shared__ C cta_max;
  __shared__ S cta_sum;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int64_t row = blockIdx.x / cluster.num_blocks();
  const T* row_x = x + row * cols;
  T* row_y = y + row * cols;
  const ClusterRow<T> layout(row_x, cols, rank);
  const P* body_x = reinterpret_cast<const P*>(row_x + layout.head);
  P* body_y = reinterpret_cast<P*>(row_y + layout.head);
  const int64_t first = static_cast<int64_t>(rank) * blockDim.x * kPacks + threadIdx.x;

  P buf[kPacks];
#pragma unroll
  for (int p = 0; p < kPacks; ++p) {
    const int64_t pack = first + static_cast<int64_t>(p) * blockDim.x;
    if (pack < layout.packs) {
      buf[p] = body_x[pack];
    } else {
#pragma unroll
      for (int i = 0; i < kPack; ++i) {
        buf[p].elem[i] = static_cast<T>(NegativeInfinity<C>());
      }
    }
  }
  const C edge = layout.edge_col >= 0 ? ToCompute(row_x[layout.edge_col]) : NegativeInfinity<C>();
  PackMax<T, kPack> thread_max;
#pragma unroll
  for (int p = 0; p < kPacks; ++p) {
    thread_max.Add(buf[p]);
  }
  const C block_max =
      BlockAllReduceAnySize(Max(C(thread_max.Value()), edge), MaxOp(), max_partials);
  if (threadIdx.x == 0) {
    cta_max = block_max;
  }
  cluster.sync();
  const C max = ClusterAllReduce(cluster, &cta_max, MaxOp());

  S sum = 0;
#pragma unroll
  for (int p = 0; p < kPacks; ++p) {
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      const C d = OpaqueValue(buf[p], i) - max;
      if constexpr (kHoldExp) {
        buf[p].elem[i] = HoldAndSum<T, kAlgorithm>(d, &sum);
      } else {
        sum += ExpFor<T, kAlgorithm>(d);
      }
    }
  }
  sum += ExpFor<T, kAlgorithm>(edge - max);  // exp(-inf) = 0 for threads without one
  const S block_sum = BlockAllReduceAnySize(sum, SumOp(), sum_partials);
  if (threadIdx.x == 0) {
    cta_sum = block_sum;
  }
  cluster.sync();
  const C scale = RowScale<kAlgorithm, C>(ClusterAllReduce(cluster, &cta_sum, SumOp()));

#pragma unroll
  for (int p = 0; p < kPacks; ++p) {
    const int64_t pack = first + static_cast<int64_t>(p) * blockDim.x;
    if (pack < layout.packs) {
      C out[kPack];
#pragma unroll
      for (int i = 0; i < kPack; ++i) {
        if constexpr (kHoldExp) {
          out[i] = buf[p].elem[i] * scale;
        } else {
          const C d = OpaqueValue(buf[p], i) - max;
          out[i] = kSoftmax ? ExpFor<T, kAlgorithm>(d) * scale : d - scale;
        }
      }
      StorePack<kPack>(out, body_y[pack].elem);
    }
  }
  if (layout.edge_col >= 0) {
    const C d = edge - max;
    row_y[layout.edge_col] =
        FromCompute<T>(kSoftmax ? ExpFor<T, kAlgorithm>(d) * scale : d - scale);
  }
  cluster.sync();  // no CTA leaves while another may still read its cta_max or cta_sum
}

template <typename T, SoftmaxAlgorithm kAlgorithm, int kPacks>
const void* ClusterKernel() {
  return reinterpret_cast<const void*>(
      &ClusterSoftmaxKernel<T, CudaComputeType<T>, kAlgorithm, kPacks>);
}

// A launch of `blocks` CTAs of `threads` threads in clusters of `ctas`, with `smem` bytes of
// dynamic shared memory each. The cluster attribute sits beside the configuration that points at
// it: neither is copied.
struct ClusterLaunchConfig {
  cudaLaunchAttribute attr = {};
  cudaLaunchConfig_t config = {};

  ClusterLaunchConfig(int ctas, int threads, int64_t blocks, size_t smem, cudaStream_t stream) {
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = static_cast<unsigned>(ctas);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    config.gridDim = dim3(static_cast<unsigned>(blocks));
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
  ClusterLaunchConfig(const ClusterLaunchConfig&) = delete;
  ClusterLaunchConfig& operator=(const ClusterLaunchConfig&) = delete;
};

// How many clusters of `ctas` CTAs of this shape the device holds at once (a cluster's CTAs
// must share a GPC), asked once per device, kernel and shape. A device that cannot say holds
// none (its error is cleared; the other paths take the row).
inline int ActiveClusters(const CudaDeviceProperties& props, const void* kernel, int ctas,
                          int threads, size_t smem) {
  static std::mutex mutex;
  static std::map<std::tuple<int, const void*, int, int, size_t>, int> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(props.device_index, kernel, ctas, threads, smem);
  const auto it = cache.find(key);
  if (it != cache.end()) {
    return it->second;
  }
  const ClusterLaunchConfig launch(ctas, threads, ctas, smem, nullptr);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return cache[key] = clusters;
}

inline bool ClusterFits(const CudaDeviceProperties& props, const void* kernel, int ctas,
                        int threads, size_t smem) {
  return ActiveClusters(props, kernel, ctas, threads, smem) > 0;
}

template <typename T, SoftmaxAlgorithm kAlgorithm, int kPacks>
cudaError_t LaunchClusterWithPacks(cudaStream_t stream, int64_t rows, int64_t cols, const T* x,
                                   T* y, ClusterPlan plan) {
  const ClusterLaunchConfig launch(plan.ctas, plan.threads, rows * plan.ctas, 0, stream);
  return cudaLaunchKernelEx(
      &launch.config, ClusterSoftmaxKernel<T, CudaComputeType<T>, kAlgorithm, kPacks>, x, y, cols);
}

// Launches the cluster path if the device can hold the plan's clusters; *launched says whether
// it did. x and y start 16-byte aligned (the caller checks).
template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t TryClusterPath(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                           int64_t cols, const T* x, T* y, LaunchInfo* info, bool* launched) {
  *launched = false;
  const ClusterPlan plan = PlanCluster(cols, sizeof(T));
  // Clusters need compute capability 9.0; rows * ctas blocks must fit the grid's x dimension.
  if (props.compute_capability_major < 9 || plan.ctas == 0 || rows * plan.ctas > INT32_MAX) {
    return cudaSuccess;
  }
  const void* kernel =
      plan.packs == 4 ? ClusterKernel<T, kAlgorithm, 4>() : ClusterKernel<T, kAlgorithm, 8>();
  if (!ClusterFits(props, kernel, plan.ctas, plan.threads, 0)) {
    return cudaSuccess;  // the block kernels take the row
  }
  *launched = true;
  *info = LaunchInfo();
  info->path = "cluster";
  info->pack = kBlockPack<T>;
  info->block_size = plan.threads;
  info->cols_per_thread = plan.packs * kBlockPack<T>;
  info->splits = plan.ctas;
  return plan.packs == 4 ? LaunchClusterWithPacks<T, kAlgorithm, 4>(stream, rows, cols, x, y, plan)
                         : LaunchClusterWithPacks<T, kAlgorithm, 8>(stream, rows, cols, x, y, plan);
}

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_CLUSTER_CUH_
