// CUDA permute kernels, framework-free: plain C++ and the CUDA runtime, errors as cudaError_t.
//
// A permutation is first simplified on the host (size-1 axes dropped, input axes that stay
// neighbours in order merged), then one of three paths runs:
//   kCopy   the simplified permutation is the identity: one device-to-device cudaMemcpyAsync;
//   kTiled  the last two dims swap behind in-order batch dims, (B, R, C) -> (B, C, R): a 32x32
//           shared-memory tile per block, padded by one word against bank conflicts, so that
//           both the loads and the stores are coalesced (16-bit elements: a 64x64 tile moved in
//           16-byte words where R and C are multiples of 8 and the pointers 16-byte aligned,
//           else two elements a word where R and C are even and the pointers 4-byte aligned);
//   kShortSide the same swap where R or C is short (permute_short_side.cuh): a tile holds the
//           whole short side; both sides move in 16-byte words where the pointers are 16-byte
//           aligned and the long side is a multiple of a word's elements;
//   kGeneral any other permutation: one thread per output element (grid-stride), the output
//           index decomposed by fixed-size stride arrays into the input offset. When the last
//           axis stays last, its elements move as wider words (up to 16 bytes) where the row
//           length and the pointers' alignment allow.
// Elements move as opaque words of their size, so one instantiation per size serves every
// dtype. Offsets are 64-bit; the general kernel uses 32-bit arithmetic where the count allows.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_PERMUTE_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_PERMUTE_CUH_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "ep/cuda/grid_size.h"
#include "ep/cuda/primitive/permute_short_side.cuh"

namespace oflite {
namespace ep {
namespace permute_kernels {

// The most input dims a permutation may have (before and therefore after simplification).
constexpr int kMaxDims = 16;
constexpr int kTileDim = 32;
// Threads per block of the general kernel, and grid-stride waves of resident blocks.
constexpr int kBlockSize = 256;

enum class PermutePath { kNone, kCopy, kTiled, kShortSide, kGeneral };

inline const char* PermutePathName(PermutePath path) {
  switch (path) {
    case PermutePath::kCopy:
      return "copy";
    case PermutePath::kTiled:
      return "tiled";
    case PermutePath::kShortSide:
      return "short side";
    case PermutePath::kGeneral:
      return "general";
    case PermutePath::kNone:
      break;
  }
  return "none";
}

// A permutation in simplest form: no size-1 dims, no two output neighbours that are input
// neighbours in order. rank 0 means a single element (or the identity on one merged dim).
struct SimplePermutation {
  int rank = 0;
  int64_t dims[kMaxDims] = {};  // input dims
  int perm[kMaxDims] = {};      // output axis i reads input axis perm[i]
};

// Precondition: 0 <= num_dims <= kMaxDims, perm a permutation of [0, num_dims), dims >= 1.
inline SimplePermutation SimplifyPermutation(int num_dims, const int64_t* dims,
                                             const int64_t* perm) {
  // Drop size-1 axes, renumbering the ones that stay.
  int new_axis[kMaxDims];
  int64_t kept_dims[kMaxDims];
  int kept = 0;
  for (int i = 0; i < num_dims; ++i) {
    new_axis[i] = dims[i] == 1 ? -1 : kept;
    if (dims[i] != 1) {
      kept_dims[kept++] = dims[i];
    }
  }
  int kept_perm[kMaxDims];
  int n = 0;
  for (int i = 0; i < num_dims; ++i) {
    const int axis = new_axis[perm[i]];
    if (axis >= 0) {
      kept_perm[n++] = axis;
    }
  }
  // Group output positions whose input axes follow each other: each group is a run of input
  // axes [group_start, group_start + group_len).
  int group_start[kMaxDims], group_len[kMaxDims];
  int groups = 0;
  for (int i = 0; i < n; ++i) {
    if (groups > 0 && kept_perm[i] == group_start[groups - 1] + group_len[groups - 1]) {
      ++group_len[groups - 1];
    } else {
      group_start[groups] = kept_perm[i];
      group_len[groups] = 1;
      ++groups;
    }
  }
  // The groups partition the input axes into runs; their input order is the order of starts.
  int group_at_axis[kMaxDims];
  for (int i = 0; i < n; ++i) {
    group_at_axis[i] = -1;
  }
  for (int g = 0; g < groups; ++g) {
    group_at_axis[group_start[g]] = g;
  }
  int merged_axis_of_group[kMaxDims];
  SimplePermutation result;
  result.rank = groups;
  for (int axis = 0, merged = 0; axis < n; ++axis) {
    const int g = group_at_axis[axis];
    if (g < 0) {
      continue;
    }
    merged_axis_of_group[g] = merged;
    int64_t size = 1;
    for (int k = 0; k < group_len[g]; ++k) {
      size *= kept_dims[axis + k];
    }
    result.dims[merged++] = size;
  }
  for (int g = 0; g < groups; ++g) {
    result.perm[g] = merged_axis_of_group[g];
  }
  return result;
}

// Copies as one access per word: a 16-byte word is a uint4 (ld/st.v4), and so on.
template <int kBytes>
struct WordOf;
template <>
struct WordOf<1> {
  using type = uint8_t;
};
template <>
struct WordOf<2> {
  using type = uint16_t;
};
template <>
struct WordOf<4> {
  using type = uint32_t;
};
template <>
struct WordOf<8> {
  using type = uint2;
};
template <>
struct WordOf<16> {
  using type = uint4;
};

inline int NumBlocks(int64_t blocks_of_work, int block_size, int sm_count, int max_threads_per_sm) {
  return static_cast<int>(GridSize(sm_count, max_threads_per_sm, block_size, blocks_of_work));
}

// ---------------------------------------------------------------------------------------------
// The tiles of `batch` matrices of (rows, cols), dim x dim each, numbered matrix by matrix and
// row by row within one.
struct TileGrid {
  int64_t tile_cols;
  int64_t tiles_per_matrix;
  int64_t num_tiles;
};
inline TileGrid MakeTileGrid(int64_t batch, int64_t rows, int64_t cols, int dim) {
  const int64_t tile_cols = (cols + dim - 1) / dim;
  const int64_t tiles_per_matrix = (rows + dim - 1) / dim * tile_cols;
  return {tile_cols, tiles_per_matrix, batch * tiles_per_matrix};
}
// Where tile t starts: its matrix, first row and first column.
struct TileOrigin {
  int64_t batch, row0, col0;
};
__device__ __forceinline__ TileOrigin TileAt(const TileGrid& grid, int64_t t, int dim) {
  const int64_t batch = t / grid.tiles_per_matrix;
  const int64_t in_matrix = t - batch * grid.tiles_per_matrix;
  const int64_t tile_row = in_matrix / grid.tile_cols;
  return {batch, tile_row * dim, (in_matrix - tile_row * grid.tile_cols) * dim};
}

// ---------------------------------------------------------------------------------------------
// Tiled batched transpose: src (batch, rows, cols) -> dst (batch, cols, rows).
// Block (kTileDim, kBlockRows); each thread moves kTileDim / kBlockRows elements of a tile in
// and out. Blocks stride over the tiles of all matrices.
template <typename W, int kBlockRows>
__global__ void __launch_bounds__(kTileDim* kBlockRows)
    BatchTransposeKernel(const W* __restrict__ src, W* __restrict__ dst, int64_t rows, int64_t cols,
                         const TileGrid grid) {
  static_assert(kTileDim % kBlockRows == 0, "a tile is a whole number of block rows");
  constexpr int kSteps = kTileDim / kBlockRows;
  __shared__ W tile[kTileDim][kTileDim + 1];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int64_t matrix_size = rows * cols;
  for (int64_t t = blockIdx.x; t < grid.num_tiles; t += gridDim.x) {
    const auto [batch, row0, col0] = TileAt(grid, t, kTileDim);
    const W* src_matrix = src + batch * matrix_size;
    W* dst_matrix = dst + batch * matrix_size;
    // Load: a warp reads kTileDim consecutive words of one source row.
    {
      const int64_t col = col0 + tx;
      const W* from = src_matrix + (row0 + ty) * cols + col;
      if (row0 + kTileDim <= rows && col < cols) {
        W v[kSteps];
#pragma unroll
        for (int k = 0; k < kSteps; ++k) {
          v[k] = from[k * kBlockRows * cols];
        }
#pragma unroll
        for (int k = 0; k < kSteps; ++k) {
          tile[ty + k * kBlockRows][tx] = v[k];
        }
      } else if (col < cols) {
#pragma unroll
        for (int k = 0; k < kSteps; ++k) {
          if (row0 + ty + k * kBlockRows < rows) {
            tile[ty + k * kBlockRows][tx] = from[k * kBlockRows * cols];
          }
        }
      }
    }
    __syncthreads();
    // Store: a warp writes kTileDim consecutive words of one destination row (a source column).
    {
      const int64_t row = row0 + tx;
      W* to = dst_matrix + (col0 + ty) * rows + row;
      if (col0 + kTileDim <= cols && row < rows) {
#pragma unroll
        for (int k = 0; k < kSteps; ++k) {
          to[k * kBlockRows * rows] = tile[tx][ty + k * kBlockRows];
        }
      } else if (row < rows) {
#pragma unroll
        for (int k = 0; k < kSteps; ++k) {
          if (col0 + ty + k * kBlockRows < cols) {
            to[k * kBlockRows * rows] = tile[tx][ty + k * kBlockRows];
          }
        }
      }
    }
    __syncthreads();  // the tile is refilled by the next iteration
  }
}

// kBlockRows = 4 (blocks of 32x4 threads, 8 elements of a tile each): on a large float32
// transpose on the H200 it measured faster than 8 or 16.
template <int kWordBytes, int kBlockRows = 4>
cudaError_t LaunchBatchTranspose(cudaStream_t stream, int64_t batch, int64_t rows, int64_t cols,
                                 const void* src, void* dst, int sm_count, int max_threads_per_sm) {
  using W = typename WordOf<kWordBytes>::type;
  const TileGrid tiles = MakeTileGrid(batch, rows, cols, kTileDim);
  if (tiles.num_tiles == 0) {
    return cudaSuccess;
  }
  const dim3 block(kTileDim, kBlockRows);
  const int grid = NumBlocks(tiles.num_tiles, kTileDim * kBlockRows, sm_count, max_threads_per_sm);
  BatchTransposeKernel<W, kBlockRows><<<grid, block, 0, stream>>>(
      static_cast<const W*>(src), static_cast<W*>(dst), rows, cols, tiles);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------------------------
// Tiled batched transpose of 16-bit elements in pairs: a tile of 64 x 64 elements, each load and
// store a 32-bit word of two neighbours, so a warp moves 128 bytes of a row on both sides (one
// element a thread moves half that per instruction). Rows and cols even, pointers 4-byte aligned.
template <int kBlockRows>
__global__ void __launch_bounds__(kTileDim* kBlockRows)
    BatchTransposePairsKernel(const uint16_t* __restrict__ src, uint16_t* __restrict__ dst,
                              int64_t rows, int64_t cols, const TileGrid grid) {
  constexpr int kTile = 2 * kTileDim;
  constexpr int kSteps = kTile / kBlockRows;
  // Rows of 66 elements (33 words): the word stores of the load phase hit 32 banks.
  __shared__ __align__(4) uint16_t tile[kTile][kTile + 2];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int64_t matrix_size = rows * cols;
  for (int64_t t = blockIdx.x; t < grid.num_tiles; t += gridDim.x) {
    const auto [batch, row0, col0] = TileAt(grid, t, kTile);
    const uint16_t* src_matrix = src + batch * matrix_size;
    uint16_t* dst_matrix = dst + batch * matrix_size;
    // Load: a warp reads 64 consecutive elements of one source row as 32 words.
    const int64_t col = col0 + 2 * tx;
    if (col < cols) {  // cols is even: the pair's second element is in the row too
#pragma unroll
      for (int k = 0; k < kSteps; ++k) {
        const int r = ty + k * kBlockRows;
        if (row0 + r < rows) {
          *reinterpret_cast<uint32_t*>(&tile[r][2 * tx]) =
              *reinterpret_cast<const uint32_t*>(src_matrix + (row0 + r) * cols + col);
        }
      }
    }
    __syncthreads();
    // Store: a warp writes 64 consecutive elements of one destination row (a source column),
    // each word two source rows' elements.
    const int64_t row = row0 + 2 * tx;
    if (row < rows) {  // rows is even, as above
#pragma unroll
      for (int k = 0; k < kSteps; ++k) {
        const int c = ty + k * kBlockRows;
        if (col0 + c < cols) {
          const uint32_t word = static_cast<uint32_t>(tile[2 * tx][c]) |
                                static_cast<uint32_t>(tile[2 * tx + 1][c]) << 16;
          *reinterpret_cast<uint32_t*>(dst_matrix + (col0 + c) * rows + row) = word;
        }
      }
    }
    __syncthreads();  // the tile is refilled by the next iteration
  }
}

template <int kBlockRows = 4>
cudaError_t LaunchBatchTransposePairs(cudaStream_t stream, int64_t batch, int64_t rows,
                                      int64_t cols, const void* src, void* dst, int sm_count,
                                      int max_threads_per_sm) {
  const TileGrid tiles = MakeTileGrid(batch, rows, cols, 2 * kTileDim);
  if (tiles.num_tiles == 0) {
    return cudaSuccess;
  }
  const dim3 block(kTileDim, kBlockRows);
  const int grid = NumBlocks(tiles.num_tiles, kTileDim * kBlockRows, sm_count, max_threads_per_sm);
  BatchTransposePairsKernel<kBlockRows><<<grid, block, 0, stream>>>(
      static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), rows, cols, tiles);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------------------------
// Tiled batched transpose of 16-bit elements in 16-byte words: rows and cols multiples of 8,
// both pointers 16-byte aligned. A 64 x 64 tile; each thread loads 8 neighbours of a source row
// as one word and scatters them into the tile stored transposed, then stores 8 neighbours of a
// destination row as one word, so that a warp reads and writes 128-byte runs of four rows. The
// tile's 16-byte chunks are swizzled (chunk index XOR the row's chunk of 8) so that neither
// phase conflicts on banks.
constexpr int kVectorTile = 64;        // elements on a side
constexpr int kVectorChunk = 8;        // 16-bit elements in a 16-byte word
constexpr int kVectorBlockSize = 256;  // threads; each moves two words in and two out
constexpr int kChunksPerRow = kVectorTile / kVectorChunk;

inline bool TakesTiledVectors(int64_t rows, int64_t cols, int elem_bytes, const void* src,
                              const void* dst) {
  const auto address_bits = reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst);
  return elem_bytes == 2 && rows % kVectorChunk == 0 && cols % kVectorChunk == 0 &&
         address_bits % 16 == 0;
}

// Where element `r` of tile row `c` (the tile holds the transpose: row c is source column c)
// lies: its chunk r / 8 swizzled by the row's chunk c / 8.
__device__ __forceinline__ int TransposedTileAt(int c, int r) {
  return c * kVectorTile + (((r / kVectorChunk) ^ (c / kVectorChunk)) * kVectorChunk) +
         r % kVectorChunk;
}

// Blocks stride over the tiles of every matrix (TileGrid of 64).
__global__ void __launch_bounds__(kVectorBlockSize)
    BatchTransposeVectorsKernel(const uint16_t* __restrict__ src, uint16_t* __restrict__ dst,
                                int64_t rows, int64_t cols, const TileGrid grid) {
  __shared__ __align__(16) uint16_t tile[kVectorTile * kVectorTile];
  const int64_t matrix_size = rows * cols;
  for (int64_t t = blockIdx.x; t < grid.num_tiles; t += gridDim.x) {
    const auto [batch, row0, col0] = TileAt(grid, t, kVectorTile);
    const uint16_t* src_matrix = src + batch * matrix_size;
    uint16_t* dst_matrix = dst + batch * matrix_size;
    // Load: unit u is source row r = u / 8 of the tile, chunk j = u % 8 (columns 8j..8j+7).
    for (int u = threadIdx.x; u < kVectorTile * kChunksPerRow; u += blockDim.x) {
      const int r = u / kChunksPerRow;
      const int j = u % kChunksPerRow;
      const int64_t row = row0 + r;
      const int64_t col = col0 + j * kVectorChunk;
      if (row < rows && col < cols) {  // cols is a multiple of 8: the chunk is whole
        const uint4 word = *reinterpret_cast<const uint4*>(src_matrix + row * cols + col);
        const uint16_t* v = reinterpret_cast<const uint16_t*>(&word);
#pragma unroll
        for (int k = 0; k < kVectorChunk; ++k) {
          tile[TransposedTileAt(j * kVectorChunk + k, r)] = v[k];
        }
      }
    }
    __syncthreads();
    // Store: unit u is tile row c = u / 8 (destination row col0 + c), chunk q = u % 8 (rows
    // 8q..8q+7 of the source), one word read from the tile.
    for (int u = threadIdx.x; u < kVectorTile * kChunksPerRow; u += blockDim.x) {
      const int c = u / kChunksPerRow;
      const int q = u % kChunksPerRow;
      const int64_t out_row = col0 + c;
      const int64_t out_col = row0 + q * kVectorChunk;
      if (out_row < cols && out_col < rows) {  // rows is a multiple of 8, as above
        *reinterpret_cast<uint4*>(dst_matrix + out_row * rows + out_col) =
            *reinterpret_cast<const uint4*>(&tile[TransposedTileAt(c, q * kVectorChunk)]);
      }
    }
    __syncthreads();  // the tile is refilled by the next iteration
  }
}

inline cudaError_t LaunchBatchTransposeVectors(cudaStream_t stream, int64_t batch, int64_t rows,
                                               int64_t cols, const void* src, void* dst,
                                               int sm_count, int max_threads_per_sm) {
  const TileGrid tiles = MakeTileGrid(batch, rows, cols, kVectorTile);
  if (tiles.num_tiles == 0) {
    return cudaSuccess;
  }
  const int grid = NumBlocks(tiles.num_tiles, kVectorBlockSize, sm_count, max_threads_per_sm);
  BatchTransposeVectorsKernel<<<grid, kVectorBlockSize, 0, stream>>>(
      static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), rows, cols, tiles);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------------------------
// General permute. kRank > 0: exactly that rank, fully unrolled; kRank == 0: any rank up to
// kMaxDims, read from the params.
template <typename Index, int kRank>
struct PermuteParams {
  static constexpr int kCapacity = kRank > 0 ? kRank : kMaxDims;
  int rank;
  Index count;
  Index dst_strides[kCapacity];  // row-major strides of the output
  Index src_strides[kCapacity];  // input stride of the axis output axis i reads
};

// The input offset of output element i (host-callable, so that the index math is testable).
template <typename Index, int kRank>
__host__ __device__ __forceinline__ Index SourceOffset(const PermuteParams<Index, kRank>& params,
                                                       Index i) {
  constexpr int kCapacity = PermuteParams<Index, kRank>::kCapacity;
  const int rank = kRank > 0 ? kRank : params.rank;
  Index rest = i;
  Index offset = 0;
#pragma unroll
  for (int d = 0; d < kCapacity; ++d) {
    if (kRank == 0 && d >= rank) {
      break;
    }
    if (d + 1 == kCapacity || (kRank == 0 && d + 1 == rank)) {  // the innermost axis
      offset += rest * params.src_strides[d];
    } else {
      const Index coord = rest / params.dst_strides[d];
      rest -= coord * params.dst_strides[d];
      offset += coord * params.src_strides[d];
    }
  }
  return offset;
}

template <typename W, typename Index, int kRank>
__global__ void __launch_bounds__(kBlockSize)
    PermuteKernel(const PermuteParams<Index, kRank> params, const W* __restrict__ src,
                  W* __restrict__ dst) {
  const Index step = static_cast<Index>(gridDim.x) * static_cast<Index>(blockDim.x);
  for (Index i = static_cast<Index>(blockIdx.x) * static_cast<Index>(blockDim.x) +
                 static_cast<Index>(threadIdx.x);
       i < params.count; i += step) {
    dst[i] = src[SourceOffset(params, i)];
  }
}

// The kernel's parameters for a simplified permutation of `count` words.
template <typename Index, int kRank>
PermuteParams<Index, kRank> MakePermuteParams(const SimplePermutation& p, int64_t count) {
  PermuteParams<Index, kRank> params{};
  params.rank = p.rank;
  params.count = static_cast<Index>(count);
  int64_t src_strides[kMaxDims];
  int64_t stride = 1;
  for (int i = p.rank - 1; i >= 0; --i) {
    src_strides[i] = stride;
    stride *= p.dims[i];
  }
  stride = 1;
  for (int i = p.rank - 1; i >= 0; --i) {
    params.dst_strides[i] = static_cast<Index>(stride);
    params.src_strides[i] = static_cast<Index>(src_strides[p.perm[i]]);
    stride *= p.dims[p.perm[i]];
  }
  return params;
}

template <int kWordBytes, typename Index, int kRank>
cudaError_t LaunchPermuteKernel(cudaStream_t stream, const SimplePermutation& p, int64_t count,
                                const void* src, void* dst, int sm_count, int max_threads_per_sm) {
  using W = typename WordOf<kWordBytes>::type;
  const PermuteParams<Index, kRank> params = MakePermuteParams<Index, kRank>(p, count);
  const int grid =
      NumBlocks((count + kBlockSize - 1) / kBlockSize, kBlockSize, sm_count, max_threads_per_sm);
  PermuteKernel<W, Index, kRank>
      <<<grid, kBlockSize, 0, stream>>>(params, static_cast<const W*>(src), static_cast<W*>(dst));
  return cudaGetLastError();
}

template <int kWordBytes, typename Index>
cudaError_t LaunchPermuteOfRank(cudaStream_t stream, const SimplePermutation& p, int64_t count,
                                const void* src, void* dst, int sm_count, int max_threads_per_sm) {
  switch (p.rank) {
    case 3:
      return LaunchPermuteKernel<kWordBytes, Index, 3>(stream, p, count, src, dst, sm_count,
                                                       max_threads_per_sm);
    case 4:
      return LaunchPermuteKernel<kWordBytes, Index, 4>(stream, p, count, src, dst, sm_count,
                                                       max_threads_per_sm);
    default:
      return LaunchPermuteKernel<kWordBytes, Index, 0>(stream, p, count, src, dst, sm_count,
                                                       max_threads_per_sm);
  }
}

template <int kWordBytes>
cudaError_t LaunchGeneralPermute(cudaStream_t stream, const SimplePermutation& p, int64_t count,
                                 const void* src, void* dst, int sm_count, int max_threads_per_sm) {
  // 32-bit arithmetic while every offset and the grid-stride index stay below 2^31.
  if (count < (int64_t{1} << 30)) {
    return LaunchPermuteOfRank<kWordBytes, int32_t>(stream, p, count, src, dst, sm_count,
                                                    max_threads_per_sm);
  }
  return LaunchPermuteOfRank<kWordBytes, int64_t>(stream, p, count, src, dst, sm_count,
                                                  max_threads_per_sm);
}

// ---------------------------------------------------------------------------------------------
// The whole permute: simplify, choose the path (PlanPermute, host only), launch it.
struct PermutePlan {
  PermutePath path = PermutePath::kNone;  // kNone: nothing to move (an empty tensor)
  int word_bytes = 0;                     // the size the kernels move elements in
  bool pairs = false;                     // tiled: 16-bit elements moved two a word
  bool vectors = false;                   // tiled (16-bit) or short side: moved in 16-byte words
  int64_t count = 0;                      // words to move
  SimplePermutation permutation;          // in words; tiled: (batch, rows, cols) or (rows, cols)
};

// elem_bytes is 1, 2, 4 or 8; dims and perm have 0 <= num_dims <= kMaxDims entries.
inline PermutePlan PlanPermute(int elem_bytes, int num_dims, const int64_t* dims,
                               const int64_t* perm, const void* src, const void* dst) {
  PermutePlan plan;
  int64_t count = 1;
  for (int i = 0; i < num_dims; ++i) {
    count *= dims[i];
  }
  if (count == 0) {
    return plan;
  }
  plan.word_bytes = elem_bytes;
  plan.count = count;
  plan.permutation = SimplifyPermutation(num_dims, dims, perm);
  SimplePermutation& p = plan.permutation;
  const int r = p.rank;
  if (r <= 1) {  // the identity: merging leaves at most one axis
    plan.path = PermutePath::kCopy;
    return plan;
  }
  // After merging, in-order leading axes form one batch axis: rank 2 is (1, 0), rank 3 (0, 2, 1).
  if (p.perm[r - 1] == r - 2 && p.perm[r - 2] == r - 1 && (r == 2 || (r == 3 && p.perm[0] == 0))) {
    const int64_t rows = p.dims[r - 2], cols = p.dims[r - 1];
    // 16-bit sides over 64 go to the 16-byte tiles where they can (WIP: to be measured; the
    // short side moved a side of 128 at 83% of a copy, the tiles others at 88-91%).
    const bool tiles_first = elem_bytes == 2 && std::min(rows, cols) > 64 &&
                             TakesTiledVectors(rows, cols, elem_bytes, src, dst);
    if (TakesShortSide(rows, cols, elem_bytes) && !tiles_first) {
      plan.path = PermutePath::kShortSide;
      plan.vectors = ShortSideVectors(rows, cols, elem_bytes, src, dst);
      return plan;
    }
    plan.path = PermutePath::kTiled;
    const auto address_bits = reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst);
    plan.vectors = TakesTiledVectors(p.dims[r - 2], p.dims[r - 1], elem_bytes, src, dst);
    plan.pairs = !plan.vectors && elem_bytes == 2 && p.dims[r - 1] % 2 == 0 &&
                 p.dims[r - 2] % 2 == 0 && address_bits % 4 == 0;
    return plan;
  }
  plan.path = PermutePath::kGeneral;
  // The last axis stays last: its rows are contiguous on both sides, so move them in the widest
  // word (<= 16 bytes) that divides the row's bytes and both pointers' alignment.
  if (p.perm[r - 1] == r - 1) {
    const int64_t row_bytes = p.dims[r - 1] * elem_bytes;
    const auto address_bits = reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst);
    for (int candidate = 16; candidate > elem_bytes; candidate /= 2) {
      if (row_bytes % candidate == 0 && address_bits % candidate == 0) {
        plan.word_bytes = candidate;
        break;
      }
    }
    p.dims[r - 1] = row_bytes / plan.word_bytes;
    plan.count = count * elem_bytes / plan.word_bytes;
  }
  return plan;
}

// The (batch, rows, cols) whose last two dims a tiled or short-side plan swaps.
struct SwappedDims {
  int64_t batch, rows, cols;
};
inline SwappedDims SwappedMatrices(const SimplePermutation& p) {
  return {p.rank == 3 ? p.dims[0] : 1, p.dims[p.rank - 2], p.dims[p.rank - 1]};
}

inline cudaError_t LaunchPermutePlan(cudaStream_t stream, const PermutePlan& plan, const void* src,
                                     void* dst, int sm_count, int max_threads_per_sm) {
  const SimplePermutation& p = plan.permutation;
  switch (plan.path) {
    case PermutePath::kNone:
      return cudaSuccess;
    case PermutePath::kCopy:
      return cudaMemcpyAsync(dst, src, static_cast<size_t>(plan.count) * plan.word_bytes,
                             cudaMemcpyDeviceToDevice, stream);
    case PermutePath::kTiled: {
      const auto [batch, rows, cols] = SwappedMatrices(p);
      switch (plan.word_bytes) {
        case 1:
          return LaunchBatchTranspose<1>(stream, batch, rows, cols, src, dst, sm_count,
                                         max_threads_per_sm);
        case 2:
          if (plan.vectors) {
            return LaunchBatchTransposeVectors(stream, batch, rows, cols, src, dst, sm_count,
                                               max_threads_per_sm);
          }
          return plan.pairs ? LaunchBatchTransposePairs(stream, batch, rows, cols, src, dst,
                                                        sm_count, max_threads_per_sm)
                            : LaunchBatchTranspose<2>(stream, batch, rows, cols, src, dst, sm_count,
                                                      max_threads_per_sm);
        case 4:
          return LaunchBatchTranspose<4>(stream, batch, rows, cols, src, dst, sm_count,
                                         max_threads_per_sm);
        case 8:
          return LaunchBatchTranspose<8>(stream, batch, rows, cols, src, dst, sm_count,
                                         max_threads_per_sm);
        default:
          return cudaErrorInvalidValue;
      }
    }
    case PermutePath::kShortSide: {
      const auto [batch, rows, cols] = SwappedMatrices(p);
      switch (plan.word_bytes) {
        case 1:
          return LaunchShortSideOf<uint8_t>(stream, batch, rows, cols, src, dst, plan.vectors,
                                            sm_count, max_threads_per_sm);
        case 2:
          return LaunchShortSideOf<uint16_t>(stream, batch, rows, cols, src, dst, plan.vectors,
                                             sm_count, max_threads_per_sm);
        case 4:
          return LaunchShortSideOf<uint32_t>(stream, batch, rows, cols, src, dst, plan.vectors,
                                             sm_count, max_threads_per_sm);
        case 8:
          return LaunchShortSideOf<uint2>(stream, batch, rows, cols, src, dst, plan.vectors,
                                          sm_count, max_threads_per_sm);
        default:
          return cudaErrorInvalidValue;
      }
    }
    case PermutePath::kGeneral:
      switch (plan.word_bytes) {
        case 1:
          return LaunchGeneralPermute<1>(stream, p, plan.count, src, dst, sm_count,
                                         max_threads_per_sm);
        case 2:
          return LaunchGeneralPermute<2>(stream, p, plan.count, src, dst, sm_count,
                                         max_threads_per_sm);
        case 4:
          return LaunchGeneralPermute<4>(stream, p, plan.count, src, dst, sm_count,
                                         max_threads_per_sm);
        case 8:
          return LaunchGeneralPermute<8>(stream, p, plan.count, src, dst, sm_count,
                                         max_threads_per_sm);
        case 16:
          return LaunchGeneralPermute<16>(stream, p, plan.count, src, dst, sm_count,
                                          max_threads_per_sm);
        default:
          return cudaErrorInvalidValue;
      }
  }
  return cudaErrorInvalidValue;
}

}  // namespace permute_kernels
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_PERMUTE_CUH_
