// Batched transpose with a short side: src (batch, rows, cols) -> dst (batch, cols, rows) where
// one side S = min(rows, cols) is short (at most 128 elements, 512 bytes). A block's tile
// holds the whole short side and a run of the long one, so that one side of the tile is a
// contiguous block of memory and the other S runs of contiguous elements: both move in 16-byte
// words where sizes and alignment allow, coalesced. The 32 x 32 tiles of permute.cuh waste most
// of a tile on such a side, and their rows of S elements write partial sectors.
//
// The tile is tile[s][l]: s along the short side, l along the long side's run [l0, l0 + w).
//   rows short (S = rows):  src segments  src + s * cols + l0 + l  (S runs of w)
//                           dst linear    dst + l0 * rows + (l * S + s)
//   cols short (S = cols):  src linear    src + l0 * cols + (l * S + s)
//                           dst segments  dst + s * rows + l0 + l
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_PERMUTE_SHORT_SIDE_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_PERMUTE_SHORT_SIDE_CUH_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace oflite {
namespace ep {
namespace permute_kernels {

// A short side moves here when it has at most kMaxShortSide elements of at most
// kMaxShortSideBytes; a tile is about kShortTileBytes, so that the long side's runs in it stay
// 128 bytes or longer.
constexpr int64_t kMaxShortSide = 128;
constexpr int64_t kMaxShortSideBytes = 512;
constexpr int64_t kShortTileBytes = 16384;
constexpr int kShortBlockSize = 256;

inline bool TakesShortSide(int64_t rows, int64_t cols, int elem_bytes) {
  const int64_t side = std::min(rows, cols);
  return side <= kMaxShortSide && side * elem_bytes <= kMaxShortSideBytes;
}

// Whether both sides move in 16-byte words: both pointers 16-byte aligned and the long side a
// multiple of a word's elements (then every segment, batch and tile start is one too).
inline bool ShortSideVectors(int64_t rows, int64_t cols, int elem_bytes, const void* src,
                             const void* dst) {
  const auto address_bits = reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst);
  return address_bits % 16 == 0 && std::max(rows, cols) % (16 / elem_bytes) == 0;
}

// Elements a tile takes along the long side: a multiple of 32 filling about kShortTileBytes.
inline int64_t ShortSideRun(int64_t short_side, int elem_bytes) {
  return std::max<int64_t>(32, kShortTileBytes / (short_side * elem_bytes) / 32 * 32);
}

// Words of 4 bytes between tile rows made odd, for 1-, 2- and 4-byte elements (8-byte ones take
// one element), so that thread-consecutive reads down a column (the scalar tails) do not
// conflict; the vector loops still meet 2- to 4-way conflicts on their scalar tile accesses.
template <typename T>
constexpr int kShortPad = sizeof(T) >= 4 ? 1 : 4 / static_cast<int>(sizeof(T));

template <typename T, int V>
struct alignas(sizeof(T) * V) Vector {
  T v[V];
};

// Moves the block's contiguous run of `n` elements between `global` and the tile, element k
// being (l, s) = (k / S, k % S) at tile[s * pitch + l], in vectors of V where whole and
// `aligned` (in-tile indices are ints: a tile holds at most about kShortTileBytes). A vector's
// first element takes the one division; the rest step s and carry into l. kLoad: global -> tile.
template <bool kLoad, typename T, int V>
__device__ __forceinline__ void MoveLinear(T* global, int n, bool aligned, T* tile, int S,
                                           int pitch) {
  const int vectors = aligned ? n / V : 0;
  for (int q = threadIdx.x; q < vectors; q += blockDim.x) {
    Vector<T, V>* word = reinterpret_cast<Vector<T, V>*>(global) + q;
    int l = q * V / S;
    int s = q * V - l * S;
    Vector<T, V> data;
    if (kLoad) {
      data = *word;
    }
#pragma unroll
    for (int k = 0; k < V; ++k) {
      if (kLoad) {
        tile[s * pitch + l] = data.v[k];
      } else {
        data.v[k] = tile[s * pitch + l];
      }
      if (++s == S) {
        s = 0;
        ++l;
      }
    }
    if (!kLoad) {
      *word = data;
    }
  }
  for (int k = vectors * V + threadIdx.x; k < n; k += blockDim.x) {  // the tail, one at a time
    const int l = k / S;
    const int at = (k - l * S) * pitch + l;
    if (kLoad) {
      tile[at] = global[k];
    } else {
      global[k] = tile[at];
    }
  }
}

// Moves `segments` runs of `w` elements, run s at global + s * stride, to or from tile row s
// (tile + s * pitch), the block's threads spread over all of them at once.
template <bool kLoad, typename T, int V>
__device__ __forceinline__ void MoveSegments(T* global, int64_t stride, int segments, int w,
                                             bool aligned, T* tile, int pitch) {
  const int per_segment = aligned ? w / V : 0;
  for (int u = threadIdx.x; u < segments * per_segment; u += blockDim.x) {
    const int s = u / per_segment;
    const int q = u - s * per_segment;
    Vector<T, V>* word = reinterpret_cast<Vector<T, V>*>(global + s * stride) + q;
    T* row = tile + s * pitch + q * V;
    if (kLoad) {
      const Vector<T, V> loaded = *word;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        row[k] = loaded.v[k];
      }
    } else {
      Vector<T, V> stored;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        stored.v[k] = row[k];
      }
      *word = stored;
    }
  }
  const int done = per_segment * V;
  const int tail = w - done;
  for (int u = threadIdx.x; u < segments * tail; u += blockDim.x) {  // tails, one at a time
    const int s = u / tail;
    const int l = done + u - s * tail;
    if (kLoad) {
      tile[s * pitch + l] = global[s * stride + l];
    } else {
      global[s * stride + l] = tile[s * pitch + l];
    }
  }
}

// One block a tile, blocks striding over the batch's tiles. `run` is the tile's long extent
// (ShortSideRun), `vector_ok` whether every segment and block start is V-aligned.
template <typename T, int V, bool kRowsShort>
__global__ void __launch_bounds__(kShortBlockSize)
    ShortSideTransposeKernel(const T* __restrict__ src, T* __restrict__ dst, int64_t rows,
                             int64_t cols, int64_t run, int64_t tiles_per_matrix, int64_t num_tiles,
                             bool vector_ok) {
  extern __shared__ __align__(16) unsigned char short_side_smem[];
  T* tile = reinterpret_cast<T*>(short_side_smem);
  const int short_side = static_cast<int>(kRowsShort ? rows : cols);
  const int64_t long_side = kRowsShort ? cols : rows;
  const int pitch = static_cast<int>(run) + kShortPad<T>;  // elements between tile rows
  const int64_t matrix = rows * cols;
  for (int64_t t = blockIdx.x; t < num_tiles; t += gridDim.x) {
    const int64_t batch = t / tiles_per_matrix;
    const int64_t l0 = (t - batch * tiles_per_matrix) * run;
    const int w = static_cast<int>(min(run, long_side - l0));
    T* from = const_cast<T*>(src) + batch * matrix;  // only read
    T* to = dst + batch * matrix;
    if (kRowsShort) {
      MoveSegments<true, T, V>(from + l0, long_side, short_side, w, vector_ok, tile, pitch);
      __syncthreads();
      MoveLinear<false, T, V>(to + l0 * short_side, w * short_side, vector_ok, tile, short_side,
                              pitch);
    } else {
      MoveLinear<true, T, V>(from + l0 * short_side, w * short_side, vector_ok, tile, short_side,
                             pitch);
      __syncthreads();
      MoveSegments<false, T, V>(to + l0, long_side, short_side, w, vector_ok, tile, pitch);
    }
    __syncthreads();  // the tile is refilled by the next iteration
  }
}

template <typename T, int V, bool kRowsShort>
cudaError_t LaunchShortSideKernel(cudaStream_t stream, int64_t batch, int64_t rows, int64_t cols,
                                  const void* src, void* dst, int sm_count,
                                  int max_threads_per_sm) {
  const int64_t short_side = kRowsShort ? rows : cols;
  const int64_t long_side = kRowsShort ? cols : rows;
  const int64_t run = ShortSideRun(short_side, sizeof(T));
  const int64_t tiles_per_matrix = (long_side + run - 1) / run;
  const int64_t num_tiles = batch * tiles_per_matrix;
  const size_t smem = static_cast<size_t>(short_side * (run + kShortPad<T>)) * sizeof(T);
  static_assert(32 % V == 0, "a run (a multiple of 32) is whole vectors");
  const bool vector_ok = V > 1;  // the caller checked ShortSideVectors
  const int blocks_per_sm = std::max(1, max_threads_per_sm / kShortBlockSize);
  const int grid = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(num_tiles, int64_t{sm_count} * blocks_per_sm)));
  ShortSideTransposeKernel<T, V, kRowsShort><<<grid, kShortBlockSize, smem, stream>>>(
      static_cast<const T*>(src), static_cast<T*>(dst), rows, cols, run, tiles_per_matrix,
      num_tiles, vector_ok);
  return cudaGetLastError();
}

// Elements moved as words of their size, in 16-byte vectors where `vectors`
// (ShortSideVectors).
template <typename T>
cudaError_t LaunchShortSideOf(cudaStream_t stream, int64_t batch, int64_t rows, int64_t cols,
                              const void* src, void* dst, bool vectors, int sm_count,
                              int max_threads_per_sm) {
  constexpr int V = 16 / sizeof(T);
  if (rows <= cols) {
    return vectors ? LaunchShortSideKernel<T, V, true>(stream, batch, rows, cols, src, dst,
                                                       sm_count, max_threads_per_sm)
                   : LaunchShortSideKernel<T, 1, true>(stream, batch, rows, cols, src, dst,
                                                       sm_count, max_threads_per_sm);
  }
  return vectors ? LaunchShortSideKernel<T, V, false>(stream, batch, rows, cols, src, dst, sm_count,
                                                      max_threads_per_sm)
                 : LaunchShortSideKernel<T, 1, false>(stream, batch, rows, cols, src, dst, sm_count,
                                                      max_threads_per_sm);
}

}  // namespace permute_kernels
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_PERMUTE_SHORT_SIDE_CUH_
