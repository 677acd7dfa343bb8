// The block-register softmax forward: a row per block, held in the threads' registers as the
// warp kernel holds one, for tensors that start 16-byte aligned (which rows: RegisterAutoPlan).
// Against the shared-memory kernel it reads the row once into registers and computes exp once,
// and every thread issues all its loads before the first reduction, so more bytes are in flight.
// Rows too long for registers alone keep part of each thread's values in shared memory (kSpill),
// so that blocks stay small enough for two or more to share an SM; the longest float32 rows
// take one block an SM after all, kept short between its loads and stores (kWholeSm,
// WholePacks). 16-bit rows that one warp holds take a one-warp variant (kOneWarp) that holds
// floats and computes exp once, as float32 rows do: such blocks are capped at 32 an SM, 1024
// threads, so up to 64 registers a thread cost them nothing.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_BLOCK_REGISTER_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_BLOCK_REGISTER_CUH_

#include <type_traits>

#include "ep/cuda/cp_async.cuh"
#include "ep/cuda/primitive/softmax_kernels.cuh"

namespace oflite {
namespace ep {
namespace softmax {

constexpr int kRegisterMaxBlockThreads = 1024;

template <typename C>
__device__ __forceinline__ C Identity(MaxOp) {
  return NegativeInfinity<C>();
}
template <typename C>
__device__ __forceinline__ C Identity(SumOp) {
  return C(0);
}

// Reduces over a block of any multiple of 32 threads and hands every thread the result.
// `partials` (32 slots) must not be written again until every thread has read it: callers
// alternate two arrays, and a block's next write to one comes after a barrier that every
// thread reaches only after its read.
// The warps' totals are combined by every thread reading all of them in turn, or with
// kButterfly by lane w reading warp w's and five shuffles. At 32 warps the reads in turn are
// the longest chain between a row's loads and its stores, which a block that is its SM's only
// one cannot hide (see WholePacks); for other blocks the butterfly gained nothing and made
// 16-bit log_softmax of 64 values much slower. With a NaN among the totals
// lanes may end with different maxes (Max is not symmetric in a NaN); the row still ends NaN
// through its sum, as with the first stage's butterfly.
template <bool kButterfly = false, typename C, typename Op>
__device__ __forceinline__ C BlockAllReduceAnySize(C v, Op op, C* partials) {
#pragma unroll
  for (int mask = 16; mask > 0; mask /= 2) {
    v = op(v, ShflXor<32>(v, mask));
  }
  if (blockDim.x == 32) {
    return v;  // one warp: the butterfly has left every lane the total
  }
  if (threadIdx.x % 32 == 0) {
    partials[threadIdx.x / 32] = v;
  }
  __syncthreads();
  if constexpr (kButterfly) {
    const int lane = static_cast<int>(threadIdx.x % 32);
    C all = lane < static_cast<int>(blockDim.x / 32) ? partials[lane] : Identity<C>(op);
#pragma unroll
    for (int mask = 16; mask > 0; mask /= 2) {
      all = op(all, ShflXor<32>(all, mask));
    }
    return all;
  }
  C all = partials[0];
  const int warps = static_cast<int>(blockDim.x / 32);
  for (int w = 1; w < warps; ++w) {  // every lane reads the same word: a broadcast
    all = op(all, partials[w]);
  }
  return all;
}

// Element i of a pack as held, in float. With kOpaque, bfloat16 converts from the 32-bit word
// that holds two elements (a shift or a mask) in volatile asm, which the compiler neither merges
// nor hoists: with the plain conversion it converted each held value once for both passes and
// kept the floats, so 64 values spilled and 40 took 58-63 registers instead of 44-48 (rows of
// whole packs). At 32 values the plain conversion takes 60-62 registers against 44-46; the
// launcher picks which (see KeepsFloats).
template <bool kOpaque, typename T, int kPack>
__device__ __forceinline__ float HeldValue(const Pack<T, kPack>& pack, int i) {
  if constexpr (kOpaque && std::is_same_v<T, __nv_bfloat16>) {
    const uint32_t w = reinterpret_cast<const uint32_t*>(pack.elem)[i / 2];
    uint32_t r;
    if (i % 2 == 0) {
      asm volatile("shl.b32 %0, %1, 16;" : "=r"(r) : "r"(w));
    } else {
      asm volatile("and.b32 %0, %1, 0xffff0000;" : "=r"(r) : "r"(w));
    }
    return __uint_as_float(r);
  } else {
    return ToCompute(pack.elem[i]);
  }
}

// -inf in every element of a 32-bit word of 16-bit values.
template <typename T>
constexpr uint32_t kNegativeInfinityPair = std::is_same_v<T, __half> ? 0xfc00fc00u : 0xff80ff80u;

// The 16-byte pack at address() if `in`, else -inf in every element, built and loaded as 32-bit
// words. Set element by element, 16-bit padding made the compiler merge loaded and padding packs
// 16 bits at a time: about 50 byte permutes a row in one-warp blocks of 32 values.
template <typename T, int kPack, typename Address>
__device__ __forceinline__ Pack<T, kPack> LoadPackOrNegativeInfinity(Address address, bool in) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "16-bit values");
  static_assert(sizeof(Pack<T, kPack>) == sizeof(uint4), "16-byte packs");
  constexpr uint32_t kW = kNegativeInfinityPair<T>;
  uint4 words = make_uint4(kW, kW, kW, kW);
  if (in) {
    words = *reinterpret_cast<const uint4*>(address());
  }
  Pack<T, kPack> pack;
  memcpy(&pack, &words, sizeof(words));
  return pack;
}

// f(q, pack) over this thread's spilled packs that lie inside the row (slot q holds the row's
// pack first_spilled + threadIdx.x + q * blockDim.x).
template <typename P, typename F>
__device__ __forceinline__ void ForEachSpilled(const P* spill, int smem_packs, int first_spilled,
                                               int packs, F f) {
  for (int q = 0; q < smem_packs; ++q) {
    if (first_spilled + static_cast<int>(threadIdx.x + q * blockDim.x) < packs) {
      f(q, spill[q * blockDim.x]);
    }
  }
}

// How the register kernel lays a row out in packs (two layouts with one interface: packs,
// PackAt, Load, Mask, Store, and kEdgeElements). Register-path rows are short enough (at most 1024
// threads' values) for int columns.
//
// A row as the 16-byte packs that cover it, for rows of whole packs and float32 rows that start
// mid-pack: pack p holds the row's elements from p * kPack - lead on, lead being how far into
// its pack the row starts. Rows of whole packs (kAligned: the row starts on a pack and its
// length is a multiple of kPack) have lead 0 and only whole packs; otherwise the first and last
// packs are edges, shared with the neighbouring rows. Edges load whole (their other rows' elements
// are read, then masked to -inf), except a pack past the tensor's end (the last row's last one),
// which loads element by element; edges store element by element, writing only this row's elements.
template <typename T, bool kAligned>
struct CoveringPacks {
  static constexpr int kPack = kBlockPack<T>;
  static constexpr bool kEdgeElements = false;
  int cols;
  int lead;
  int packs;
  // The last pack reaches past the tensor's end. Only the tensor's last row can have such a
  // pack: the launcher takes rows that start mid-pack only when they are at least kPack - 1
  // long, so any other row's last pack ends inside the next row.
  bool overrun;

  __device__ __forceinline__ CoveringPacks(const T* row, int64_t row_cols, bool last_row)
      : cols(static_cast<int>(row_cols)),
        lead(kAligned ? 0 : static_cast<int>(reinterpret_cast<uintptr_t>(row) % 16 / sizeof(T))),
        packs(kAligned ? cols / kPack : (lead + cols + kPack - 1) / kPack),
        overrun(!kAligned && last_row && (lead + cols) % kPack != 0) {}

  __device__ __forceinline__ bool Edge(int pack) const {
    return !kAligned &&
           ((pack == 0 && lead != 0) || (pack == packs - 1 && (lead + cols) % kPack != 0));
  }
  template <typename P>
  __device__ __forceinline__ P* PackStart(P* row, int pack) const {
    return row - lead + pack * kPack;
  }
  // Where pack `pack` of the row is stored, for packs that do not overrun.
  __device__ __forceinline__ const Pack<T, kPack>* PackAt(const T* row, int pack) const {
    return reinterpret_cast<const Pack<T, kPack>*>(PackStart(row, pack));
  }
  // Pack `pack` of the row as stored, whole: an edge still holds its other rows' elements (see
  // Mask). A pack past the tensor's end loads element by element, repeating the row's last
  // element where the tensor has ended (Mask then sets those to -inf), which takes float32's
  // kernels fewer registers than a branch per element (32 instead of 52 at 16 values).
  template <typename C>
  __device__ __forceinline__ void Load(const T* row, int pack, T* v) const {
    if (overrun && pack == packs - 1) {
#pragma unroll
      for (int i = 0; i < kPack; ++i) {
        const int c = pack * kPack - lead + i;
        v[i] = row[c < cols ? c : cols - 1];
      }
    } else {
      *reinterpret_cast<Pack<T, kPack>*>(v) = *PackAt(row, pack);
    }
  }
  // Sets an edge's elements of other rows to -inf. Called once all of a thread's loads are
  // issued: it waits for the pack's data, and a warp that waited for its first pack before
  // issuing the rest (the row's first pack is thread 0's) would hold the whole block back.
  template <typename C>
  __device__ __forceinline__ void Mask(int pack, T* v) const {
    if (Edge(pack)) {
#pragma unroll
      for (int i = 0; i < kPack; ++i) {
        const int c = pack * kPack - lead + i;
        v[i] = c >= 0 && c < cols ? v[i] : static_cast<T>(NegativeInfinity<C>());
      }
    }
  }
  template <typename C>
  __device__ __forceinline__ void Store(const C* v, int pack, T* row) const {
    if (!Edge(pack)) {
      StorePack<kPack>(v, PackStart(row, pack));
      return;
    }
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      const int c = pack * kPack - lead + i;
      if (c >= 0 && c < cols) {
        row[c] = FromCompute<T>(v[i]);
      }
    }
  }
};

// Whole packs from the row's first 16-byte boundary, `head` elements into the row, each
// addressed as a pack from there: one wide multiply-add an address. With the address computed
// in elements (row + head + pack * kPack) the compiler split every 16-bit pack store into
// element stores, a quarter of the bandwidth.
template <typename T>
struct PacksFromBoundary {
  static constexpr int kPack = kBlockPack<T>;
  using P = Pack<T, kPack>;
  int head = 0;
  int packs = 0;

  __device__ __forceinline__ const P* PackAt(const T* row, int pack) const {
    return reinterpret_cast<const P*>(row + head) + pack;
  }
  template <typename C>
  __device__ __forceinline__ void Load(const T* row, int pack, T* v) const {
    *reinterpret_cast<P*>(v) = *PackAt(row, pack);
  }
  template <typename C>
  __device__ __forceinline__ void Mask(int, T*) const {}
  template <typename C>
  __device__ __forceinline__ void Store(const C* v, int pack, T* row) const {
    StorePack<kPack>(v, reinterpret_cast<P*>(row + head)[pack].elem);
  }
};

// A 16-bit row that starts or ends mid-pack as whole packs and the elements around them: `head`
// elements before the row's first 16-byte boundary, `packs` whole packs, then the tail (less
// than a pack). The head and tail elements, fewer than two packs' worth, go one to a thread
// (`edge_col`), so every pack loads and stores whole and inside the row. A 1025-column row is
// then 128 packs and one element, one warp of 32 values, where the 130 packs covering it took
// a warp of 40 whose two edge lanes stored element by element, a slower kernel. float32 rows
// keep CoveringPacks: laid out this way, its kernel of 32 values held its last two loads back
// behind a wait for the first (ptxas, under the 64-register cap), and lost on long rows.
template <typename T>
struct PacksAndEdgeElements : PacksFromBoundary<T> {
  static constexpr bool kEdgeElements = true;
  int edge_col;  // this thread's head or tail element, or -1 for none

  __device__ __forceinline__ PacksAndEdgeElements(const T* row, int64_t row_cols, bool) {
    constexpr int kPack = PacksFromBoundary<T>::kPack;
    const int cols = static_cast<int>(row_cols);
    const int lead = static_cast<int>(reinterpret_cast<uintptr_t>(row) % 16 / sizeof(T));
    const int head = min((kPack - lead) % kPack, cols);
    const int packs = (cols - head) / kPack;
    const int tail = cols - head - packs * kPack;
    const int t = static_cast<int>(threadIdx.x);
    this->head = head;
    this->packs = packs;
    edge_col = t < head ? t : (t < head + tail ? t + packs * kPack : -1);
  }
};

// A row of whole packs, addressed as PacksFromBoundary addresses them (from the row's start),
// for blocks that are their SM's only one (float32 rows past 26624 columns: 864-1024 threads
// of 32 values at 52-58 registers): nothing overlaps such a block's own instructions between
// its loads and its stores. With CoveringPacks' element arithmetic ptxas rebuilt every pack's
// address from the kernel's parameters (twelve instructions a pack), and a thread's last load
// issued a hundred instructions after its first. Other blocks keep CoveringPacks, which is
// slightly faster for them. This layout pays only together with BlockAllReduceAnySize's
// butterfly: either alone slowed softmax or log_softmax.
template <typename T>
struct WholePacks : PacksFromBoundary<T> {
  static constexpr bool kEdgeElements = false;

  __device__ __forceinline__ WholePacks(const T*, int64_t row_cols, bool) {
    this->packs = static_cast<int>(row_cols) / PacksFromBoundary<T>::kPack;
  }
};

template <typename T, bool kAligned>
using RegisterRowLayout = std::conditional_t<sizeof(T) == 2 && !kAligned, PacksAndEdgeElements<T>,
                                             CoveringPacks<T, kAligned>>;

// Thread t holds the row's packs t, t + blockDim.x, ... (coalesced per step), and in
// PacksAndEdgeElements at most one head or tail element; packs past the row's end, and an edge
// pack's elements of other rows, hold -inf, which adds exp(-inf) = 0 to the sum. y's rows start as
// x's do: the launcher takes this path only when both tensors start 16-byte aligned. 16-bit rows
// stay in registers as loaded (kRaw), two values a register, and exp is computed again for the
// output: a thread then keeps twice the bytes in flight for its registers, which is what limits
// 16-bit rows (the extra exp is one multiply and the hardware exp2); one-warp blocks excepted
// (kOneWarp). float32 rows hold exp(x - max) between the passes.
// With kSpill, packs from kPacks * blockDim.x on wait in the thread's own shared-memory slots
// (smem_packs of them, 16 bytes each): copied with cp.async before the register loads are
// issued, read back only by the thread that copied them (so no barrier guards them), and
// stored from their raw values with exp computed again.
// kWholeSm: the block is its SM's only one (see WholePacks). kOpaque: see HeldValue.
// kTwoBlocks: 16-bit blocks of 32 values and more than 256 threads, bounded to 32 registers (at
// most 10 bytes of spills) so that three blocks of 640 threads share an SM where 44-48 registers
// fit two. float16's output pass converts its values from words xored with a zero that ptxas
// cannot see (rows >> 62, rows being a positive int64): otherwise ptxas kept each value's
// conversion from the sum pass for the output pass, 32 floats across the block reduction, and
// spilled 12-44 bytes.
// kOneWarp: a 16-bit block of 32 threads (see the top of this file). Its threads' stride is a
// constant, its reductions are one warp's, its packs load as words (LoadPackOrNegativeInfinity),
// and it holds ExpFor(x - max) (softmax: exp scaled by 2^kExpBias, which RowScale's 1 / sum
// cancels) or x - max (log_softmax) as floats between the passes; it beats the 16-bit kernel on
// such rows, though Triton's one-warp kernel stays ahead at 1024 (docs/BENCHMARKS.md).
template <typename T, typename C, SoftmaxAlgorithm kAlgorithm, int kPacks, bool kSpill,
          bool kAligned, bool kWholeSm, bool kOpaque, bool kOneWarp, bool kTwoBlocks>
__global__ void __launch_bounds__(kOneWarp ? 32 : kRegisterMaxBlockThreads,
                                  kOneWarp ? 32 : (kTwoBlocks ? 2 : 0))
    BlockRegisterSoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows,
                               int64_t cols, int smem_packs) {
  static_assert(kAligned || !kSpill, "only rows of whole packs spill");
  static_assert(!kWholeSm || (kAligned && !kSpill), "whole-SM blocks hold whole packs");
  static_assert(!kOneWarp || (sizeof(T) == 2 && !kSpill && !kWholeSm),
                "one-warp blocks hold 16-bit rows in registers");
  static_assert(!kTwoBlocks || (sizeof(T) == 2 && kPacks == 4 && kOpaque && !kSpill && !kOneWarp),
                "two-block kernels hold 32 16-bit values (bfloat16 ones opaquely)");
  constexpr int kPack = kBlockPack<T>;
  constexpr bool kRaw = sizeof(T) == 2 && !kOneWarp;
  // Registers hold rows as stored (16-bit values as loaded), float32 exp(x - max) between the
  // passes, and one-warp blocks floats in `held`.
  static_assert(kRaw || kOneWarp || std::is_same_v<T, C>, "rows load as stored");
  const int threads = kOneWarp ? 32 : static_cast<int>(blockDim.x);
  using S = SumType<T, C, kAlgorithm>;
  using P = Pack<T, kPack>;
  __shared__ C max_partials[32];
  __shared__ S sum_partials[32];
  extern __shared__ __align__(16) unsigned char spill_bytes[];
  // This thread's q-th shared slot is spill[q * blockDim.x]: only its owner reads or writes it.
  P* const spill = reinterpret_cast<P*>(spill_bytes) + threadIdx.x;
  const int first_spilled = kPacks * threads;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* row_x = x + row * cols;
    using Layout = std::conditional_t<kWholeSm, WholePacks<T>, RegisterRowLayout<T, kAligned>>;
    const Layout cover(row_x, cols, row == rows - 1);
    const int packs = cover.packs;
    // The shared part first, asynchronously: nothing waits for it before the register part is
    // loaded and scanned.
    if constexpr (kSpill) {
      for (int q = 0; q < smem_packs; ++q) {
        const int pack = first_spilled + static_cast<int>(threadIdx.x + q * blockDim.x);
        if (pack < packs) {
          CpAsync<16>(&spill[q * blockDim.x], row_x + static_cast<int64_t>(pack) * kPack);
        }
      }
      CpAsyncCommit();
    }
    Pack<T, kPack> buf[kPacks];
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
      const int pack = static_cast<int>(threadIdx.x) + p * threads;
      if constexpr (kOneWarp) {  // 16-bit layouts load whole packs inside the tensor
        buf[p] = LoadPackOrNegativeInfinity<T, kPack>([&] { return cover.PackAt(row_x, pack); },
                                                      pack < packs);
      } else if (pack < packs) {
        cover.template Load<C>(row_x, pack, buf[p].elem);
      } else {
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
          buf[p].elem[i] = static_cast<T>(NegativeInfinity<C>());
        }
      }
    }
    if constexpr (!kAligned) {
#pragma unroll
      for (int p = 0; p < kPacks; ++p) {
        cover.template Mask<C>(static_cast<int>(threadIdx.x) + p * threads, buf[p].elem);
      }
    }
    C edge = NegativeInfinity<C>();  // this thread's head or tail element, if it has one
    if constexpr (Layout::kEdgeElements) {
      if (cover.edge_col >= 0) {
        edge = ToCompute(row_x[cover.edge_col]);
      }
    }
    PackMax<T, kPack> thread_max;
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
      thread_max.Add(buf[p]);
    }
    if constexpr (kSpill) {
      CpAsyncWait<0>();
      ForEachSpilled(spill, smem_packs, first_spilled, packs,
                     [&](int, const P& v) { thread_max.Add(v); });
    }
    C local_max = C(thread_max.Value());
    if constexpr (Layout::kEdgeElements) {
      local_max = Max(local_max, edge);
    }
    C max;
    if constexpr (kOneWarp) {
      max = GroupMax<32>(local_max);
    } else {
      max = BlockAllReduceAnySize<kWholeSm>(local_max, MaxOp(), max_partials);
    }
    S sum = 0;
    C held[kOneWarp ? kPacks : 1][kPack];
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
#pragma unroll
      for (int i = 0; i < kPack; ++i) {
        T& v = buf[p].elem[i];
        if constexpr (kOneWarp) {
          held[p][i] = HoldAndSum<T, kAlgorithm>(HeldValue<false>(buf[p], i) - max, &sum);
        } else if constexpr (kRaw) {
          sum += ExpFor<T, kAlgorithm>(HeldValue<kOpaque>(buf[p], i) - max);
        } else {
          v = HoldAndSum<T, kAlgorithm>(v - max, &sum);
        }
      }
    }
    if constexpr (kSpill) {
      ForEachSpilled(spill, smem_packs, first_spilled, packs, [&](int, const P& v) {
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
          sum += ExpFor<T, kAlgorithm>(HeldValue<kOpaque>(v, i) - max);
        }
      });
    }
    if constexpr (Layout::kEdgeElements) {
      sum += ExpFor<T, kAlgorithm>(edge - max);
    }
    if constexpr (kOneWarp) {
      sum = GroupSum<32>(sum);
    } else {
      sum = BlockAllReduceAnySize<kWholeSm>(sum, SumOp(), sum_partials);
    }
    const C scale = RowScale<kAlgorithm, C>(sum);
    T* row_y = y + row * cols;
    if constexpr (kTwoBlocks && std::is_same_v<T, __half>) {
      const auto zero = static_cast<uint32_t>(rows >> 62);  // 0 (see kTwoBlocks)
#pragma unroll
      for (int p = 0; p < kPacks; ++p) {
        uint32_t words[4];
        memcpy(words, &buf[p], sizeof(words));
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          words[w] ^= zero;
        }
        memcpy(&buf[p], words, sizeof(words));
      }
    }
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
      const int pack = static_cast<int>(threadIdx.x) + p * threads;
      if (pack < packs) {
        C out[kPack];
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
          // v: ExpFor(x - max) for float32 and one-warp softmax, x - max otherwise
          C v;
          if constexpr (kOneWarp) {
            v = held[p][i];
          } else {
            v = HeldValue<kOpaque>(buf[p], i);
          }
          if constexpr (kRaw) {
            v -= max;
            v = kAlgorithm == SoftmaxAlgorithm::kSoftmax ? ExpFor<T, kAlgorithm>(v) : v;
          }
          out[i] = kAlgorithm == SoftmaxAlgorithm::kSoftmax ? v * scale : v - scale;
        }
        cover.Store(out, pack, row_y);
      }
    }
    if constexpr (Layout::kEdgeElements) {
      if (cover.edge_col >= 0) {
        const C d = edge - max;
        row_y[cover.edge_col] = FromCompute<T>(kAlgorithm == SoftmaxAlgorithm::kSoftmax
                                                   ? ExpFor<T, kAlgorithm>(d) * scale
                                                   : d - scale);
      }
    }
    // The spilled packs are stored from their raw values, exp computed again. Their next row's
    // copies are issued after these stores, which consume what the slots held.
    if constexpr (kSpill) {
      ForEachSpilled(spill, smem_packs, first_spilled, packs, [&](int q, const P& v) {
        C out[kPack];
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
          const C d = HeldValue<kOpaque>(v, i) - max;
          out[i] = kAlgorithm == SoftmaxAlgorithm::kSoftmax ? ExpFor<T, kAlgorithm>(d) * scale
                                                            : d - scale;
        }
        const int pack = first_spilled + static_cast<int>(threadIdx.x + q * blockDim.x);
        StorePack<kPack>(out, row_y + static_cast<int64_t>(pack) * kPack);
      });
    }
  }
}

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_BLOCK_REGISTER_CUH_
