// Softmax rows split over several blocks, for tensors with a few long rows (at most a quarter as
// many as the GPU has SMs), where a block a row would leave most SMs idle (which tensors:
// TakesSplitRows). Each block
// folds its chunk of a row into a partial in the stream's workspace (the running max and sum
// for the forward, the gradient's dot product for the backward); after a grid-wide barrier each
// combines its row's partials and writes its chunk, reading it again (from L2 when the tensor
// fits there). Where TakesFlatSplit holds, the blocks take the tensor as one flat range instead,
// a chunk possibly ending in the next row, so that the grid need not be a whole number of chunks
// a row. Any row length: chunks and columns index with int64_t.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_SPLIT_ROWS_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_SPLIT_ROWS_CUH_

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

#include "ep/cuda/primitive/softmax_kernels.cuh"
#include "ep/cuda/primitive/softmax_plan.h"

namespace oflite {
namespace ep {
namespace softmax {

// A chunk's partial: forward (max, sum of exp(x - max)); backward the sum of y * dy (softmax)
// or of dy (log_softmax).
template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, bool kBackward>
using SplitPartial = std::conditional_t<kBackward, C, MaxSum<C, SumType<T, C, kAlgorithm>>>;

template <typename P>
__device__ __forceinline__ P SplitIdentity() {
  if constexpr (std::is_arithmetic_v<P>) {
    return P(0);
  } else {
    return P{NegativeInfinity<decltype(P::max)>(), decltype(P::sum)(0)};
  }
}

// The block's (max, sum) from its threads': the max first, then the sums rescaled to it. Two
// scalar reductions cost less than one over pairs, which takes two exps a step.
template <typename C, typename S>
__device__ __forceinline__ MaxSum<C, S> BlockMaxSum(const MaxSum<C, S>& acc) {
  const C max = BlockAllReduce<kSplitBlockThreads>(acc.max, MaxOp());
  return {max, BlockAllReduce<kSplitBlockThreads>(Rescaled(acc, max), SumOp())};
}

// A chunk's n outputs at dst: whole packs (n = kPack > 1, dst 16-byte aligned, see the kernel's
// kPack) as one 16-byte store, the head and tail elements one by one.
template <int kPack, int N, typename T, typename C>
__device__ __forceinline__ void StoreChunkPack(const C* v, T* dst) {
  if constexpr (N == kPack && kPack > 1) {
    StorePack16<N>(v, dst);
  } else {
    StorePack<N>(v, dst);
  }
}

// Each warp combines its row's partials on its own (lanes stride over them, then shuffles): no
// block barrier between the grid barrier and the output pass, and every warp gets the same result
// in the same order.
template <typename P>
__device__ __forceinline__ P CombineRowPartials(const P* parts, int n) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  if constexpr (std::is_arithmetic_v<P>) {
    P sum = 0;
    for (int s = lane; s < n; s += 32) {
      sum += parts[s];
    }
    return GroupSum<32>(sum);
  } else {
    using C = decltype(P::max);
    using S = decltype(P::sum);
    C max = NegativeInfinity<C>();
    for (int s = lane; s < n; s += 32) {
      max = Max(max, parts[s].max);
    }
    max = GroupMax<32>(max);
    S sum = S(0);
    for (int s = lane; s < n; s += 32) {
      sum = sum + Rescaled(parts[s], max);
    }
    return {max, GroupSum<32>(sum)};
  }
}

template <int N, typename T>
__device__ __forceinline__ Pack<T, N> LoadN(const T* p) {
  return *reinterpret_cast<const Pack<T, N>*>(p);
}

// A forward chunk's whole packs held in registers across the grid barrier, kHeld a thread, so
// that the chunk is read once; its head and tail elements (less than a pack each) are read
// again. The launcher takes this only where the chunk's packs fit.
template <typename T, int kHeld>
struct HeldChunk {
  static constexpr int kPack = kBlockPack<T>;
  Pack<T, kPack> packs[kHeld];
  int64_t head = 0;   // elements before the chunk's first 16-byte boundary
  int64_t count = 0;  // whole packs

  __device__ __forceinline__ void Load(const T* seg, int64_t len) {
    head = AlignedHead(seg, len);
    count = (len - head) / kPack;
#pragma unroll
    for (int p = 0; p < kHeld; ++p) {
      const int64_t idx = threadIdx.x + static_cast<int64_t>(p) * blockDim.x;
      if (idx < count) {
        packs[p] = *reinterpret_cast<const Pack<T, kPack>*>(seg + head + idx * kPack);
      }
    }
  }
  // The thread's (max, sum of exp(x - max)) over its values in two passes, as MaxSum folds
  // them: a NaN or +inf makes the sum NaN, values of only -inf leave it 0. Only -inf is tested
  // per value: Max may step over a NaN (-inf, NaN, -inf has the max -inf).
  template <SoftmaxAlgorithm kAlgorithm, typename C>
  __device__ __forceinline__ softmax::MaxSum<C, C> MaxAndSum(const T* seg, int64_t len) const {
    C max = NegativeInfinity<C>();
    bool only_neg_inf = true;
    ForEach(seg, len, [&](int64_t, const T* v, auto n) {
#pragma unroll
      for (int i = 0; i < decltype(n)::value; ++i) {
        const C x = ToCompute(v[i]);
        max = Max(max, x);
        only_neg_inf = only_neg_inf && x == NegativeInfinity<C>();
      }
    });
    C sum = 0;
    if (!only_neg_inf) {
      ForEach(seg, len, [&](int64_t, const T* v, auto n) {
#pragma unroll
        for (int i = 0; i < decltype(n)::value; ++i) {
          sum += ExpFor<T, kAlgorithm>(ToCompute(v[i]) - max);
        }
      });
    }
    return {max, sum};
  }
  // f(col, values, Count<n>) over the chunk, as ForEachInRow calls it.
  template <typename F>
  __device__ __forceinline__ void ForEach(const T* seg, int64_t len, F f) const {
    for (int64_t c = threadIdx.x; c < head; c += blockDim.x) {
      f(c, &seg[c], Count<1>());
    }
#pragma unroll
    for (int p = 0; p < kHeld; ++p) {
      const int64_t idx = threadIdx.x + static_cast<int64_t>(p) * blockDim.x;
      if (idx < count) {
        f(head + idx * kPack, packs[p].elem, Count<kPack>());
      }
    }
    for (int64_t c = head + count * kPack + threadIdx.x; c < len; c += blockDim.x) {
      f(c, &seg[c], Count<1>());
    }
  }
};

// One cooperative kernel: block (blockIdx.x, blockIdx.y) takes chunk blockIdx.x of rows
// blockIdx.y, + gridDim.y, ...: it folds its chunk into a partial, the grid synchronizes, and it
// combines its row's partials and writes its chunk, read again (from L2 where it still sits).
// Every block runs every round (and every grid barrier); rounds alternate two halves of
// `partials`, so a round's writes never meet the previous round's reads. kPack > 1 only when a,
// dy and out share their offset from a 16-byte boundary, so that one tensor's pack starts are
// the others'. kHeld > 0 (forward, kPack wide): the chunk waits in registers (HeldChunk). Two
// blocks an SM: unbounded, the held kernel took 108 registers and one. With kFlat (chunks not
// held, a one-dimensional grid) block b takes elements [b * chunk, (b + 1) * chunk) of the
// tensor in one round.
template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, bool kBackward, int kPack, int kHeld,
          bool kFlat>
__global__ void __launch_bounds__(kSplitBlockThreads, 2)
    SplitRowsKernel(const T* __restrict__ a, const T* __restrict__ dy, T* __restrict__ out,
                    int64_t rows, int64_t cols, int64_t chunk,
                    SplitPartial<T, C, kAlgorithm, kBackward>* __restrict__ partials) {
  using P = SplitPartial<T, C, kAlgorithm, kBackward>;
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  HeldChunk<T, kHeld == 0 ? 1 : kHeld> held;
  // The block's partial of the `len` elements from `offset` (all in one row).
  const auto fold = [&](int64_t offset, int64_t len) {
    P acc = SplitIdentity<P>();
    if constexpr (kBackward) {
      const T* seg_y = a + offset;
      ForEachInRow<kPack>(dy + offset, len, [&](int64_t c, const T* v, auto n) {
        constexpr int N = decltype(n)::value;
        if constexpr (kAlgorithm == SoftmaxAlgorithm::kSoftmax) {
          const Pack<T, N> y = LoadN<N>(seg_y + c);
#pragma unroll
          for (int i = 0; i < N; ++i) {
            acc += ToCompute(y.elem[i]) * ToCompute(v[i]);
          }
        } else {
#pragma unroll
          for (int i = 0; i < N; ++i) {
            acc += ToCompute(v[i]);
          }
        }
      });
      return BlockAllReduce<kSplitBlockThreads>(acc, SumOp());
    } else {
      if constexpr (kHeld > 0) {
        held.Load(a + offset, len);
        acc = held.template MaxAndSum<kAlgorithm, C>(a + offset, len);
      } else if constexpr (kPack > 1 && std::is_same_v<decltype(acc.sum), C>) {
        ForEachPackGroupInRow<kPack>(
            a + offset, len,
            [&](int64_t, const T* v, auto n) {
              AccumulatePack<T, kAlgorithm, C, C, decltype(n)::value>(acc, v);
            },
            [&](int64_t, int64_t, const Pack<T, kPack>* v, auto unroll) {
              AccumulatePackGroup<T, kAlgorithm, C, kPack, decltype(unroll)::value>(acc, v);
            });
      } else {
        ForEachInRow<kPack>(a + offset, len, [&](int64_t, const T* v, auto n) {
          AccumulatePack<T, kAlgorithm, C, decltype(acc.sum), decltype(n)::value>(acc, v);
        });
      }
      return BlockMaxSum(acc);
    }
  };
  // Writes the `len` outputs from `offset`, given the row's combined partial.
  const auto write = [&](int64_t offset, int64_t len, const P& acc) {
    T* seg_out = out + offset;
    if constexpr (kBackward) {
      const C sum = acc;  // of y * dy (softmax) or of dy (log_softmax)
      const T* seg_dy = dy + offset;
      ForEachInRow<kPack>(a + offset, len, [&](int64_t c, const T* y, auto n) {
        constexpr int N = decltype(n)::value;
        const Pack<T, N> d = LoadN<N>(seg_dy + c);
        C v[N];
#pragma unroll
        for (int i = 0; i < N; ++i) {
          const C yv = ToCompute(y[i]), dyv = ToCompute(d.elem[i]);
          v[i] = kAlgorithm == SoftmaxAlgorithm::kSoftmax ? yv * (dyv - sum)
                                                          : dyv - ExpFor<T, kAlgorithm>(yv) * sum;
        }
        StoreChunkPack<kPack, N>(v, seg_out + c);
      });
    } else {
      const C max = acc.max;
      const C scale = RowScale<kAlgorithm, C>(acc.sum);
      const auto store = [&](int64_t c, const T* x, auto n) {
        constexpr int N = decltype(n)::value;
        C v[N];
#pragma unroll
        for (int i = 0; i < N; ++i) {
          const C d = ToCompute(x[i]) - max;
          v[i] = kAlgorithm == SoftmaxAlgorithm::kSoftmax ? ExpFor<T, kAlgorithm>(d) * scale
                                                          : d - scale;
        }
        StoreChunkPack<kPack, N>(v, seg_out + c);
      };
      if constexpr (kHeld > 0) {
        held.ForEach(a + offset, len, store);
      } else {
        ForEachInRow<kPack>(a + offset, len, store);
      }
    }
  };
  static_assert(!kFlat || kHeld == 0, "flat chunks are not held");
  if constexpr (kFlat) {
    // Block b takes elements [b * chunk, (b + 1) * chunk) of the whole tensor: the pieces of
    // at most two rows (chunk <= cols). Its partial for row r sits at b + r, so that row r's
    // partials, from blocks b0(r) to b1(r), are contiguous from b0(r) + r.
    const int64_t begin = blockIdx.x * chunk;
    const int64_t end = min(begin + chunk, rows * cols);
    const int64_t first_row = begin / cols;
    const int64_t last_row = begin < end ? (end - 1) / cols : first_row - 1;
    for (int64_t r = first_row; r <= last_row; ++r) {
      const int64_t from = max(begin, r * cols);
      const P acc = fold(from, min(end, (r + 1) * cols) - from);
      if (threadIdx.x == 0) {
        partials[blockIdx.x + r] = acc;
      }
    }
    grid.sync();
    for (int64_t r = first_row; r <= last_row; ++r) {
      const int64_t b0 = r * cols / chunk;
      const int64_t b1 = ((r + 1) * cols - 1) / chunk;
      const P acc = CombineRowPartials(partials + b0 + r, static_cast<int>(b1 - b0 + 1));
      const int64_t from = max(begin, r * cols);
      write(from, min(end, (r + 1) * cols) - from, acc);
    }
  } else {
    const int64_t begin = blockIdx.x * chunk;
    const int64_t len = min(chunk, cols - begin);
    const int64_t per_round = static_cast<int64_t>(gridDim.x) * gridDim.y;
    const int64_t rounds = (rows + gridDim.y - 1) / gridDim.y;
    for (int64_t round = 0; round < rounds; ++round) {
      const int64_t row = round * gridDim.y + blockIdx.y;
      const bool active = row < rows;
      const int64_t offset = row * cols + begin;
      P* round_partials = partials + (round % 2) * per_round;
      P* row_partials = round_partials + static_cast<int64_t>(blockIdx.y) * gridDim.x;
      if (active) {
        const P acc = fold(offset, len);
        if (threadIdx.x == 0) {
          row_partials[blockIdx.x] = acc;
        }
      }
      grid.sync();
      if (active) {
        write(offset, len, CombineRowPartials(row_partials, static_cast<int>(gridDim.x)));
      }
    }
  }
}

// Blocks of the kernel that one SM holds at once, asked once per device and kernel.
inline cudaError_t ResidentBlocksPerSm(const CudaDeviceProperties& props, const void* kernel,
                                       int* blocks) {
  static std::mutex mutex;
  static std::map<std::pair<int, const void*>, int> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(props.device_index, kernel);
  const auto it = cache.find(key);
  if (it != cache.end()) {
    *blocks = it->second;
    return cudaSuccess;
  }
  const cudaError_t err =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, kSplitBlockThreads, 0);
  if (err == cudaSuccess) {
    cache[key] = *blocks;
  }
  return err;
}

// The split kernel with kHeld packs a thread held (0: none) and its plan: every block of a
// cooperative grid is resident at once, and two rounds of partials fit the workspace.
template <typename T, SoftmaxAlgorithm kAlgorithm, bool kBackward, int kPack, int kHeld>
cudaError_t PlanSplitKernel(const CudaDeviceProperties& props, int64_t rows, int64_t cols,
                            size_t workspace_bytes, SplitRowsPlan* plan, int64_t* resident) {
  using C = CudaComputeType<T>;
  using P = SplitPartial<T, C, kAlgorithm, kBackward>;
  const auto kernel = SplitRowsKernel<T, C, kAlgorithm, kBackward, kPack, kHeld, false>;
  int per_sm = 0;
  const cudaError_t err =
      ResidentBlocksPerSm(props, reinterpret_cast<const void*>(kernel), &per_sm);
  *resident = std::min<int64_t>(int64_t{per_sm} * props.sm_count,
                                static_cast<int64_t>(workspace_bytes / (2 * sizeof(P))));
  *plan = PlanSplitRows(*resident, rows, cols, sizeof(T));
  return err;
}

// Packs a thread holds where a forward chunk fits them.
constexpr int kSplitHeldPacks = 8;

template <typename T, SoftmaxAlgorithm kAlgorithm, bool kBackward, int kPack>
cudaError_t LaunchSplitRowsWithPack(const CudaDeviceProperties& props, cudaStream_t stream,
                                    int64_t rows, int64_t cols, const T* a, const T* dy, T* out,
                                    void* workspace, size_t workspace_bytes, LaunchInfo* info) {
  using C = CudaComputeType<T>;
  using P = SplitPartial<T, C, kAlgorithm, kBackward>;
  // Only float32 softmax holds its chunks: the others took 74-126 registers holding them (half
  // the blocks an SM), measured before the kernel's launch bound.
  constexpr bool kCanHold = !kBackward && kPack > 1 && std::is_same_v<T, float> &&
                            kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  constexpr int kHeldPacks = kCanHold ? kSplitHeldPacks : 0;
  SplitRowsPlan plan, held_plan;
  int64_t resident = 0, held_resident = 0;
  cudaError_t err = PlanSplitKernel<T, kAlgorithm, kBackward, kPack, 0>(
      props, rows, cols, workspace_bytes, &plan, &resident);
  if (err == cudaSuccess && kCanHold) {
    err = PlanSplitKernel<T, kAlgorithm, kBackward, kPack, kHeldPacks>(
        props, rows, cols, workspace_bytes, &held_plan, &held_resident);
  }
  if (err != cudaSuccess) {
    return err;
  }
  // Held where the chunk's packs (after a head of less than one) fit the threads' held packs,
  // and where the held kernel leaves the grid no fewer blocks (the launch bound makes it so on
  // the devices this build targets).
  const bool held = kCanHold && held_plan.splits > 0 && held_resident >= resident &&
                    held_plan.chunk <= int64_t{kSplitBlockThreads} * kSplitHeldPacks * kPack;
  if (held) {
    plan = held_plan;
    resident = held_resident;
  }
  if (plan.splits == 0) {
    return cudaErrorInvalidValue;  // no block fits an SM: not on a device this build targets
  }
  // Chunks not held, of tensors read in 16-byte packs, may take the tensor as one flat range
  // (TakesFlatSplit; its own kernel, as many blocks as both kernels keep resident): its blocks +
  // rows partials fit the workspace, as blocks <= resident and rows <= blocks.
  const int64_t grid_rows = std::min<int64_t>({rows, resident / plan.splits, 65535});
  FlatSplitPlan flat_plan;
  if constexpr (kPack != 1) {
    if (!held) {
      const auto flat_kernel = SplitRowsKernel<T, C, kAlgorithm, kBackward, kPack, 0, true>;
      int flat_per_sm = 0;
      err = ResidentBlocksPerSm(props, reinterpret_cast<const void*>(flat_kernel), &flat_per_sm);
      if (err != cudaSuccess) {
        return err;
      }
      const int64_t flat_resident =
          std::min<int64_t>(resident, int64_t{flat_per_sm} * props.sm_count);
      flat_plan = PlanFlatSplit(flat_resident, rows, cols, sizeof(T));
    }
  }
  const bool flat = TakesFlatSplit(flat_plan.blocks, plan.splits * grid_rows, sizeof(T));
  const void* kernel =
      held ? reinterpret_cast<const void*>(
                 SplitRowsKernel<T, C, kAlgorithm, kBackward, kPack, kHeldPacks, false>)
      : flat ? reinterpret_cast<const void*>(
                   SplitRowsKernel<T, C, kAlgorithm, kBackward, kPack, 0, (kPack > 1)>)
             : reinterpret_cast<const void*>(
                   SplitRowsKernel<T, C, kAlgorithm, kBackward, kPack, 0, false>);
  const dim3 grid =
      flat ? dim3(static_cast<unsigned>(flat_plan.blocks))
           : dim3(static_cast<unsigned>(plan.splits), static_cast<unsigned>(grid_rows));
  auto* partials = static_cast<P*>(workspace);
  int64_t chunk = flat ? flat_plan.chunk : plan.chunk;
  void* args[] = {&a, &dy, &out, &rows, &cols, &chunk, &partials};
  *info = LaunchInfo();
  info->path = "split";
  info->pack = kPack;
  info->block_size = kSplitBlockThreads;
  info->splits = flat ? static_cast<int>(flat_plan.blocks) : plan.splits;
  info->cols_per_thread = held ? kSplitHeldPacks * kPack : 0;
  info->flat = flat;
  return cudaLaunchCooperativeKernel(kernel, grid, dim3(kSplitBlockThreads), args, 0, stream);
}

// Forward when dy is null (a = x), backward otherwise (a = y, out = dx).
template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t LaunchSplitRows(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                            int64_t cols, const T* a, const T* dy, T* out, void* workspace,
                            size_t workspace_bytes, LaunchInfo* info) {
  constexpr int kPack = kBlockPack<T>;
  const auto offset = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16; };
  const bool wide = offset(a) == offset(out) && (dy == nullptr || offset(dy) == offset(a));
  if (dy == nullptr) {
    return wide ? LaunchSplitRowsWithPack<T, kAlgorithm, false, kPack>(
                      props, stream, rows, cols, a, dy, out, workspace, workspace_bytes, info)
                : LaunchSplitRowsWithPack<T, kAlgorithm, false, 1>(
                      props, stream, rows, cols, a, dy, out, workspace, workspace_bytes, info);
  }
  return wide ? LaunchSplitRowsWithPack<T, kAlgorithm, true, kPack>(
                    props, stream, rows, cols, a, dy, out, workspace, workspace_bytes, info)
              : LaunchSplitRowsWithPack<T, kAlgorithm, true, 1>(
                    props, stream, rows, cols, a, dy, out, workspace, workspace_bytes, info);
}

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_SPLIT_ROWS_CUH_
