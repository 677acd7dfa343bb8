// Softmax forward over long rows: a row per thread-block cluster (Hopper), each CTA's slice of the
// row copied into its shared memory with cp.async, so the row is read once and written once with
// all of a slice's bytes in flight at once and no registers held for them. Each CTA reduces its
// slice to a (max, sum of exp(x - max)) pair; a cluster barrier shares the pairs through
// distributed shared memory, and every CTA rescales them to the row's (a second, split barrier
// keeps each CTA alive until the others have read its pair). Slices are small enough
// for several CTAs an SM, whose loads overlap the others' reductions and stores. Which rows:
// TakesClusterSmem and PlanClusterSmem (softmax_plan.h).
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_CLUSTER_SMEM_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_CLUSTER_SMEM_CUH_

#include <cooperative_groups.h>

#include <cstdint>
#include <map>
#include <mutex>

#include "ep/cuda/cp_async.cuh"
#include "ep/cuda/primitive/softmax_block_register.cuh"
#include "ep/cuda/primitive/softmax_cluster.cuh"
#include "ep/cuda/primitive/softmax_kernels.cuh"
#include "ep/cuda/primitive/softmax_plan.h"

namespace oflite {
namespace ep {
namespace softmax {

// The two halves of a cluster barrier: every thread of every CTA arrives, and waits later, so
// that the work between them does not wait for the cluster's slowest CTA.
__device__ __forceinline__ void ClusterArrive() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void ClusterWait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

// A CTA's part of the row: its max and its sum of exp(x - max), read by the cluster's CTAs.
template <typename C, typename S>
struct SlicePartial {
  C max;
  S sum;
};

// x and y start 16-byte aligned (the launcher checks). The dynamic shared memory holds
// slice_packs 16-byte packs (at most 227 KB, so an int indexes them). The row's edge elements
// (before its first 16-byte boundary and after its last whole pack) are CTA 0's, one a thread
// (ClusterRow).
template <typename T, typename C, SoftmaxAlgorithm kAlgorithm>
__global__ void __launch_bounds__(kClusterSmemMaxThreads)
    ClusterSmemSoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t cols,
                             int64_t slice_packs) {
  namespace cg = cooperative_groups;
  constexpr int kPack = kBlockPack<T>;
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  // float32 softmax keeps exp(x - its slice's max) in place of x: exp is computed once.
  constexpr bool kHoldExp = kSoftmax && sizeof(T) == 4;
  using S = SumType<T, C, kAlgorithm>;
  using P = Pack<T, kPack>;
  extern __shared__ __align__(16) unsigned char slice_bytes[];
  P* slice = reinterpret_cast<P*>(slice_bytes);
  __shared__ C max_partials[32];
  __shared__ S sum_partials[32];
  __shared__ SlicePartial<C, S> partial;
  static_assert(
      sizeof(max_partials) + sizeof(sum_partials) + sizeof(partial) <= kClusterSmemStaticBytes,
      "the plan's bound on static shared memory holds");
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned ctas = cluster.num_blocks();
  const int64_t row = blockIdx.x / ctas;
  const T* row_x = x + row * cols;
  T* row_y = y + row * cols;
  const ClusterRow<T> layout(row_x, cols, rank);
  const int64_t first = static_cast<int64_t>(rank) * slice_packs;
  const int count = static_cast<int>(max(int64_t{0}, min(slice_packs, layout.packs - first)));
  const P* body_x = reinterpret_cast<const P*>(row_x + layout.head) + first;
  P* body_y = reinterpret_cast<P*>(row_y + layout.head) + first;
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);

  for (int p = tid; p < count; p += threads) {
    CpAsync<16>(slice + p, body_x + p);
  }
  CpAsyncCommit();
  const C edge = layout.edge_col >= 0 ? ToCompute(row_x[layout.edge_col]) : NegativeInfinity<C>();
  CpAsyncWait<0>();  // each thread reads back only the packs it copied

  PackMax<T, kPack> pack_max;
#pragma unroll 4
  for (int p = tid; p < count; p += threads) {
    pack_max.Add(slice[p]);
  }
  const C slice_max = BlockAllReduceAnySize(Max(C(pack_max.Value()), edge), MaxOp(), max_partials);
  // A slice of only -inf (or none) sums against 0, so that its terms are 0 rather than NaN.
  const C ref = slice_max == NegativeInfinity<C>() ? C(0) : slice_max;
  S sum = 0;
#pragma unroll 4
  for (int p = tid; p < count; p += threads) {
    P v = slice[p];
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      const C d = ToCompute(v.elem[i]) - ref;
      if constexpr (kHoldExp) {
        v.elem[i] = HoldAndSum<T, kAlgorithm>(d, &sum);
      } else {
        sum += ExpFor<T, kAlgorithm>(d);
      }
    }
    if constexpr (kHoldExp) {
      slice[p] = v;
    }
  }
  sum += ExpFor<T, kAlgorithm>(edge - ref);  // exp(-inf) = 0 for threads without an edge
  const S slice_sum = BlockAllReduceAnySize(sum, SumOp(), sum_partials);
  if (tid == 0) {
    partial.max = slice_max;
    partial.sum = slice_sum;
  }
  cluster.sync();

  // The row's max, then its sum: each slice's sum rescaled from its own max to the row's. A
  // slice without a finite max adds 0 (times its sum, which carries a NaN).
  C row_max = NegativeInfinity<C>();
  for (unsigned r = 0; r < ctas; ++r) {
    row_max = Max(row_max, cluster.map_shared_rank(&partial, r)->max);
  }
  S row_sum = 0;
  for (unsigned r = 0; r < ctas; ++r) {
    const SlicePartial<C, S> part = *cluster.map_shared_rank(&partial, r);
    const C factor = part.max == NegativeInfinity<C>() ? C(0) : Exp(part.max - row_max);
    row_sum = row_sum + part.sum * factor;
  }
  ClusterArrive();  // this CTA has read the others' partials
  const C scale = RowScale<kAlgorithm, C>(row_sum);
  // What a held exp(x - ref) is multiplied by: exp(ref - row max) / row sum.
  const C held_scale =
      (slice_max == NegativeInfinity<C>() ? C(0) : Exp(slice_max - row_max)) * scale;

#pragma unroll 4
  for (int p = tid; p < count; p += threads) {
    const P v = slice[p];
    C out[kPack];
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      if constexpr (kHoldExp) {
        out[i] = ToCompute(v.elem[i]) * held_scale;
      } else {
        const C d = ToCompute(v.elem[i]) - row_max;
        out[i] = kSoftmax ? ExpFor<T, kAlgorithm>(d) * scale : d - scale;
      }
    }
    StorePack<kPack>(out, body_y[p].elem);
  }
  if (layout.edge_col >= 0) {
    const C d = edge - row_max;
    row_y[layout.edge_col] =
        FromCompute<T>(kSoftmax ? ExpFor<T, kAlgorithm>(d) * scale : d - scale);
  }
  ClusterWait();  // no CTA leaves while another may still read its partial
}

template <typename T, SoftmaxAlgorithm kAlgorithm>
const void* ClusterSmemKernel() {
  return reinterpret_cast<const void*>(
      &ClusterSmemSoftmaxKernel<T, CudaComputeType<T>, kAlgorithm>);
}

// Lets the kernel take clusters past the portable 8 CTAs and the device's most shared memory,
// once per device.
inline cudaError_t PrepareClusterSmemKernel(const CudaDeviceProperties& props, const void* kernel) {
  static std::mutex mutex;
  static std::map<std::pair<int, const void*>, cudaError_t> prepared;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(props.device_index, kernel);
  const auto it = prepared.find(key);
  if (it != prepared.end()) {
    return it->second;
  }
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, kernel);
  if (err == cudaSuccess) {
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(props.shared_memory_per_block_optin) -
                                   static_cast<int>(attr.sharedSizeBytes));
  }
  if (err == cudaSuccess) {
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  }
  prepared[key] = err;
  return err;
}

// Launches the cluster-smem path if the device can hold the plan's clusters; *launched says
// whether it did. x and y start 16-byte aligned (the caller checks).
template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t TryClusterSmemPath(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                               int64_t cols, const T* x, T* y, LaunchInfo* info, bool* launched) {
  *launched = false;
  const ClusterSmemPlan plan = PlanClusterSmem(cols, sizeof(T));
  if (props.compute_capability_major < 9 || plan.ctas == 0 || rows * plan.ctas > INT32_MAX ||
      plan.slice_packs * 16 >
          static_cast<int64_t>(props.shared_memory_per_block_optin) - kClusterSmemStaticBytes) {
    return cudaSuccess;
  }
  const void* kernel = ClusterSmemKernel<T, kAlgorithm>();
  const auto smem = static_cast<size_t>(plan.slice_packs) * 16;
  bool fits = false;
  if (PrepareClusterSmemKernel(props, kernel) != cudaSuccess ||
      ClusterFits(props, kernel, plan.ctas, plan.threads, smem, &fits) != cudaSuccess) {
    cudaGetLastError();  // the device cannot take it: the block kernels take the row
    return cudaSuccess;
  }
  if (!fits) {
    return cudaSuccess;
  }
  *launched = true;
  *info = LaunchInfo();
  info->path = "cluster-smem";
  info->pack = kBlockPack<T>;
  info->block_size = plan.threads;
  info->cols_per_thread = 0;
  info->splits = plan.ctas;
  const ClusterLaunchConfig launch(plan.ctas, plan.threads, rows * plan.ctas, smem, stream);
  return cudaLaunchKernelEx(&launch.config,
                            ClusterSmemSoftmaxKernel<T, CudaComputeType<T>, kAlgorithm>, x, y, cols,
                            plan.slice_packs);
}

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_CLUSTER_SMEM_CUH_
