// Softmax over long rows, forward and backward: a row at a time per thread-block cluster
// (Hopper), each CTA's slice of the row (and of dy) copied into its shared memory with cp.async,
// so each tensor is read once and written once with all of a slice's bytes in flight at once and
// no registers held for them. Forward, each CTA reduces its slice to a (max, sum of exp(x -
// max)) pair; backward, to its sum of y * dy (or of dy). A cluster barrier shares them through
// distributed shared memory, and every CTA combines them into the row's (a second, split barrier
// keeps each CTA alive until the others have read its part). Slices are small enough for several
// CTAs an SM, whose loads overlap the others' reductions and stores. Clusters also loop over
// rows (backward, and forward 16-bit), loading the next row while they write this one. Which
// rows: TakesClusterSmem and PlanClusterSmem (softmax_plan.h).
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_CLUSTER_SMEM_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_CLUSTER_SMEM_CUH_

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#include "ep/cuda/cp_async.cuh"
#include "ep/cuda/primitive/softmax_block_register.cuh"
#include "ep/cuda/primitive/softmax_cluster.cuh"
#include "ep/cuda/primitive/softmax_kernels.cuh"
#include "ep/cuda/primitive/softmax_plan.h"
#include "ep/softmax_impl.h"

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

// Waits until at most `pending` (0-3) of this thread's cp.async groups are in flight.
__device__ __forceinline__ void CpAsyncWaitPending(int pending) {
  switch (pending) {
    case 0:
      CpAsyncWait<0>();
      break;
    case 1:
      CpAsyncWait<1>();
      break;
    case 2:
      CpAsyncWait<2>();
      break;
    default:
      CpAsyncWait<3>();
      break;
  }
}

// Four groups measured about 1% faster than one (at most 3.3%) on the forward's long rows.
constexpr int kClusterSmemLoadGroups = 4;

// A CTA's slice of count packs, thread t's packs t, t + threads, ... in kLoadGroups groups of
// consecutive steps (the same in every thread; empty groups are committed too). Each thread
// reads back only the packs it copied, so no barrier orders a slot's copy and its use.
template <int kLoadGroups>
struct SliceGroups {
  static_assert(kLoadGroups >= 1 && kLoadGroups <= 4, "CpAsyncWaitPending waits for 0-3 groups");
  int count, tid, threads, steps, per_group;

  __device__ __forceinline__ explicit SliceGroups(int packs)
      : count(packs),
        tid(static_cast<int>(threadIdx.x)),
        threads(static_cast<int>(blockDim.x)),
        steps((packs + threads - 1) / threads),
        per_group((steps + kLoadGroups - 1) / kLoadGroups) {}
  __device__ __forceinline__ int Begin(int g) const { return tid + g * per_group * threads; }
  __device__ __forceinline__ int End(int g) const {
    return min(count, min(steps, (g + 1) * per_group) * threads);
  }
  // load(p) over each group's packs, each group one cp.async group.
  template <typename Load>
  __device__ __forceinline__ void Issue(Load load) const {
#pragma unroll
    for (int g = 0; g < kLoadGroups; ++g) {
      for (int p = Begin(g); p < End(g); p += threads) {
        load(p);
      }
      CpAsyncCommit();
    }
  }
  // use(p) over each group as soon as it has landed, while the later groups are in flight.
  template <typename Use>
  __device__ __forceinline__ void ForEachLanded(Use use) const {
#pragma unroll
    for (int g = 0; g < kLoadGroups; ++g) {
      CpAsyncWaitPending(kLoadGroups - 1 - g);
#pragma unroll 4
      for (int p = Begin(g); p < End(g); p += threads) {
        use(p);
      }
    }
  }
};

// write(p) over this thread's `count` packs of the slice and, in the same pass, load(p) over
// its packs of the next row's slice in `next`'s groups: each slot's copy is issued after the
// slot was read for its output, so the next row's loads overlap this row's stores.
template <int kLoadGroups, typename Write, typename Load>
__device__ __forceinline__ void WriteAndIssueNext(int count, const SliceGroups<kLoadGroups>& next,
                                                  Write write, Load load) {
#pragma unroll
  for (int g = 0; g < kLoadGroups; ++g) {
#pragma unroll 4
    for (int p = next.Begin(g); p < next.End(g); p += next.threads) {
      if (p < count) {
        write(p);
      }
      load(p);
    }
    CpAsyncCommit();
  }
  // This row's packs past the next row's (rows' heads differ, so counts differ by up to one).
  const int past = max(0, next.count - next.tid);
  for (int p = next.tid + (past + next.threads - 1) / next.threads * next.threads; p < count;
       p += next.threads) {
    write(p);
  }
}

// A row's place in a CTA's slice: the pack layout, this CTA's packs and the first of them.
template <typename T>
struct SliceOfRow {
  using P = Pack<T, kBlockPack<T>>;
  ClusterRow<T> layout;
  int64_t first;
  int count;

  __device__ __forceinline__ SliceOfRow(const T* row, int64_t cols, unsigned rank,
                                        int64_t slice_packs)
      : layout(row, cols, rank), first(static_cast<int64_t>(rank) * slice_packs) {
    count = static_cast<int>(max(int64_t{0}, min(slice_packs, layout.packs - first)));
  }
  // This CTA's packs of a row of a tensor that lies like this one (the same offset from a
  // 16-byte boundary).
  __device__ __forceinline__ const P* Packs(const T* row) const {
    return reinterpret_cast<const P*>(row + layout.head) + first;
  }
  __device__ __forceinline__ P* Packs(T* row) const {
    return reinterpret_cast<P*>(row + layout.head) + first;
  }
};

// Cluster c's rows c, c + clusters, ...: issues the first row's copies into the slices, then
// calls row_pass(row, slice, write_and_issue_next) for each. load(slice, row) gives the copy of
// pack p of a row's slices; write_and_issue_next(count, write) runs write(p) over this row's
// count packs while it issues the next row's copies (none after the last row).
template <typename T, typename Load, typename RowPass>
__device__ __forceinline__ void ForEachClusterRow(const T* a, int64_t rows, int64_t cols,
                                                  int64_t slice_packs, Load load,
                                                  RowPass row_pass) {
  using Groups = SliceGroups<kClusterSmemLoadGroups>;
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned ctas = cluster.num_blocks();
  const int64_t clusters = gridDim.x / ctas;
  const auto slice_of = [&](int64_t row) {
    return SliceOfRow<T>(a + row * cols, cols, rank, slice_packs);
  };
  int64_t row = blockIdx.x / ctas;
  if (row < rows) {
    const SliceOfRow<T> first = slice_of(row);
    Groups(first.count).Issue(load(first, row));
  }
  for (; row < rows; row += clusters) {
    const int64_t next_row = row + clusters < rows ? row + clusters : -1;
    const auto write_and_issue_next = [&](int count, auto write) {
      // Built here rather than with the row's so that it is not held through the reductions.
      const SliceOfRow<T> next = slice_of(next_row >= 0 ? next_row : row);
      WriteAndIssueNext(count, Groups(next_row >= 0 ? next.count : 0), write,
                        load(next, next_row >= 0 ? next_row : row));
    };
    row_pass(row, slice_of(row), write_and_issue_next);
  }
}

// x and y start 16-byte aligned (the launcher checks). The dynamic shared memory holds
// slice_packs 16-byte packs (at most 227 KB, so an int indexes them). The row's edge elements
// (before its first 16-byte boundary and after its last whole pack) are CTA 0's, one a thread
// (ClusterRow). Cluster c takes rows c, c + clusters, ...: while it writes a row's outputs it
// already loads its slices of the next one.
template <typename T, typename C, SoftmaxAlgorithm kAlgorithm>
__global__ void __launch_bounds__(kClusterSmemMaxThreads)
    ClusterSmemSoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t cols,
                             int64_t slice_packs) {
  namespace cg = cooperative_groups;
  constexpr int kPack = kBlockPack<T>;
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  // float32 softmax keeps exp(x - its slice's max) in place of x: exp is computed once.
  constexpr bool kHoldExp = kSoftmax && sizeof(T) == 4;
  using S = SumType<T, C, kAlgorithm>;
  using P = Pack<T, kPack>;
  using Groups = SliceGroups<kClusterSmemLoadGroups>;
  extern __shared__ __align__(16) unsigned char slice_bytes[];
  P* slice = reinterpret_cast<P*>(slice_bytes);
  __shared__ C max_partials[32];
  __shared__ S sum_partials[32];
  __shared__ SlicePartial<C, S> partial;
  static_assert(
      sizeof(max_partials) + sizeof(sum_partials) + sizeof(partial) <= kClusterSmemStaticBytes,
      "the plan's bound on static shared memory holds");
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned ctas = cluster.num_blocks();
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  const auto load = [&](const SliceOfRow<T>& of, int64_t row) {
    const P* row_x = of.Packs(x + row * cols);
    return [=](int p) { CpAsync<16>(slice + p, row_x + p); };
  };
  ForEachClusterRow<T>(
      x, rows, cols, slice_packs, load,
      [&](int64_t row, const SliceOfRow<T>& cur, const auto& write_and_issue_next) {
        const ClusterRow<T>& layout = cur.layout;
        const C edge = layout.edge_col >= 0 ? ToCompute(x[row * cols + layout.edge_col])
                                            : NegativeInfinity<C>();
        PackMax<T, kPack> pack_max;
        Groups(cur.count).ForEachLanded([&](int p) { pack_max.Add(slice[p]); });
        const C slice_max =
            BlockAllReduceAnySize(Max(C(pack_max.Value()), edge), MaxOp(), max_partials);
        // A slice of only -inf (or none) sums against 0, so that its terms are 0 rather than NaN.
        const C ref = slice_max == NegativeInfinity<C>() ? C(0) : slice_max;
        S sum = 0;
#pragma unroll 4
        for (int p = tid; p < cur.count; p += threads) {
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

        P* body_y = cur.Packs(y + row * cols);
        write_and_issue_next(cur.count, [&](int p) {
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
        });
        if (layout.edge_col >= 0) {
          const C d = edge - row_max;
          y[row * cols + layout.edge_col] =
              FromCompute<T>(kSoftmax ? ExpFor<T, kAlgorithm>(d) * scale : d - scale);
        }
        ClusterWait();  // no CTA writes its next partial, or leaves, while another may read this
                        // one
      });
}

// dx of softmax, y * (dy - sum(y * dy)), or of log_softmax, dy - exp(y) * sum(dy): each CTA's
// slices of y and dy (slice_packs packs each, one after the other in the dynamic shared memory)
// reduce to the slice's sum, the cluster barrier shares the sums. y, dy and dx start 16-byte
// aligned, so their rows lie alike. Clusters loop over rows as the forward's do.
template <typename T, typename C, SoftmaxAlgorithm kAlgorithm>
__global__ void __launch_bounds__(kClusterSmemMaxThreads)
    ClusterSmemSoftmaxBackwardKernel(const T* __restrict__ y, const T* __restrict__ dy,
                                     T* __restrict__ dx, int64_t rows, int64_t cols,
                                     int64_t slice_packs) {
  namespace cg = cooperative_groups;
  constexpr int kPack = kBlockPack<T>;
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  using P = Pack<T, kPack>;
  using Groups = SliceGroups<kClusterSmemLoadGroups>;
  extern __shared__ __align__(16) unsigned char slice_bytes[];
  P* y_slice = reinterpret_cast<P*>(slice_bytes);
  P* dy_slice = y_slice + slice_packs;
  __shared__ C sum_partials[32];
  __shared__ C partial;
  static_assert(sizeof(sum_partials) + sizeof(partial) <= kClusterSmemStaticBytes,
                "the plan's bound on static shared memory holds");
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned ctas = cluster.num_blocks();
  // A copy of pack p of y's and dy's row into the slices.
  const auto load = [&](const SliceOfRow<T>& of, int64_t row) {
    const P* row_y = of.Packs(y + row * cols);
    const P* row_dy = of.Packs(dy + row * cols);
    return [=](int p) {
      CpAsync<16>(y_slice + p, row_y + p);
      CpAsync<16>(dy_slice + p, row_dy + p);
    };
  };
  ForEachClusterRow<T>(
      y, rows, cols, slice_packs, load,
      [&](int64_t row, const SliceOfRow<T>& cur, const auto& write_and_issue_next) {
        const int64_t row_start = row * cols;
        const int64_t edge_col = cur.layout.edge_col;
        const bool has_edge = edge_col >= 0;
        const C edge_y = has_edge ? ToCompute(y[row_start + edge_col]) : C(0);
        const C edge_dy = has_edge ? ToCompute(dy[row_start + edge_col]) : C(0);
        C sum = kSoftmax ? edge_y * edge_dy : edge_dy;
        Groups(cur.count).ForEachLanded([&](int p) {
          const P yv = y_slice[p];
          const P dv = dy_slice[p];
#pragma unroll
          for (int i = 0; i < kPack; ++i) {
            sum += kSoftmax ? ToCompute(yv.elem[i]) * ToCompute(dv.elem[i]) : ToCompute(dv.elem[i]);
          }
        });
        const C slice_sum = BlockAllReduceAnySize(sum, SumOp(), sum_partials);
        if (threadIdx.x == 0) {
          partial = slice_sum;
        }
        cluster.sync();
        C row_sum = 0;
        for (unsigned r = 0; r < ctas; ++r) {
          row_sum += *cluster.map_shared_rank(&partial, r);
        }
        ClusterArrive();  // this CTA has read the others' partials

        const auto grad = [&](C yv, C dyv) {
          return kSoftmax ? yv * (dyv - row_sum) : dyv - ExpFor<T, kAlgorithm>(yv) * row_sum;
        };
        P* row_dx = cur.Packs(dx + row_start);
        write_and_issue_next(cur.count, [&](int p) {
          const P yv = y_slice[p];
          const P dv = dy_slice[p];
          C out[kPack];
#pragma unroll
          for (int i = 0; i < kPack; ++i) {
            out[i] = grad(ToCompute(yv.elem[i]), ToCompute(dv.elem[i]));
          }
          StorePack<kPack>(out, row_dx[p].elem);
        });
        if (has_edge) {
          dx[row_start + edge_col] = FromCompute<T>(grad(edge_y, edge_dy));
        }
        ClusterWait();  // no CTA writes its next partial, or leaves, while another may read this
                        // one
      });
}

template <typename T, SoftmaxAlgorithm kAlgorithm>
const void* ClusterSmemKernel(bool backward) {
  using C = CudaComputeType<T>;
  return backward
             ? reinterpret_cast<const void*>(&ClusterSmemSoftmaxBackwardKernel<T, C, kAlgorithm>)
             : reinterpret_cast<const void*>(&ClusterSmemSoftmaxKernel<T, C, kAlgorithm>);
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

// Clusters of a launch: where `loop`, as many as the device holds at once, each looping over
// rows; else one a row. Fewer under the tests' grid limit (in CTAs, at least one cluster).
inline int64_t ClusterSmemClusters(int64_t rows, int ctas, int active, bool loop) {
  int64_t clusters = loop ? std::min<int64_t>(rows, active) : rows;
  const int64_t limit = GetSoftmaxGridLimitOverride();
  if (limit > 0) {
    clusters = std::min(clusters, std::max<int64_t>(1, limit / ctas));
  }
  return clusters;
}

// Whether a call's clusters loop over rows: the backward's (0.86-1.00 of the time of a cluster a
// row at every shape timed past 32768 columns) and the forward's of 16-bit rows (0.91-0.98;
// float32 measured 0.97-1.04).
inline bool ClusterSmemLoops(bool backward, int elem_size) { return backward || elem_size == 2; }

// Launches the cluster-smem path, forward (dy null: a = x, out = y) or backward (a = y, out =
// dx), if the device can hold the plan's clusters; *launched says whether it did. The tensors
// start 16-byte aligned (the caller checks).
template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t TryClusterSmemPath(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                               int64_t cols, const T* a, const T* dy, T* out, LaunchInfo* info,
                               bool* launched) {
  *launched = false;
  const int tensors = dy == nullptr ? 1 : 2;
  const ClusterSmemPlan plan = PlanClusterSmemOf(cols, sizeof(T), tensors, rows, props.sm_count);
  const int64_t smem = plan.SmemBytes(tensors);
  if (props.compute_capability_major < 9 || rows * plan.ctas > INT32_MAX ||
      smem > static_cast<int64_t>(props.shared_memory_per_block_optin) - kClusterSmemStaticBytes) {
    return cudaSuccess;
  }
  const void* kernel = ClusterSmemKernel<T, kAlgorithm>(dy != nullptr);
  if (PrepareClusterSmemKernel(props, kernel) != cudaSuccess) {
    cudaGetLastError();  // the device cannot take it: the other paths take the row
    return cudaSuccess;
  }
  const int active =
      ActiveClusters(props, kernel, plan.ctas, plan.threads, static_cast<size_t>(smem));
  if (active == 0) {
    return cudaSuccess;
  }
  *launched = true;
  *info = LaunchInfo();
  info->path = "cluster-smem";
  info->pack = kBlockPack<T>;
  info->block_size = plan.threads;
  info->splits = plan.ctas;
  const int64_t clusters =
      ClusterSmemClusters(rows, plan.ctas, active, ClusterSmemLoops(dy != nullptr, sizeof(T)));
  info->looped = clusters < rows;
  const ClusterLaunchConfig launch(plan.ctas, plan.threads, clusters * plan.ctas,
                                   static_cast<size_t>(smem), stream);
  using C = CudaComputeType<T>;
  if (dy == nullptr) {
    return cudaLaunchKernelEx(&launch.config, ClusterSmemSoftmaxKernel<T, C, kAlgorithm>, a, out,
                              rows, cols, plan.slice_packs);
  }
  return cudaLaunchKernelEx(&launch.config, ClusterSmemSoftmaxBackwardKernel<T, C, kAlgorithm>, a,
                            dy, out, rows, cols, plan.slice_packs);
}

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_CLUSTER_SMEM_CUH_
