// CPU Permute for every dtype: elements move as opaque words of their size (1, 2, 4, 8 bytes),
// so one instantiation per size serves all dtypes. Dims are merged first; a batched 2-D transpose
// is copied by tiles, any other permutation a row of the output at a time, as one strided (or
// contiguous) copy; rows or tiles split over the pool.
#include "oneflow_lite/primitive/permute.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "ep/cpu/parallel_for.h"
#include "ep/cpu/primitive/isa_clones.h"
#include "oneflow_lite/common/shape.h"

namespace oflite {
namespace ep {
namespace {

// The permutation with dims of size 1 dropped and runs of source dims that stay adjacent and in
// order merged: dst dim i has size dims[i] and source stride steps[i].
struct MergedPermutation {
  DimVector dims, steps;
};

MergedPermutation Merge(size_t num_dims, const int64_t* src_dims, const int64_t* perm) {
  DimVector src_strides(num_dims);
  int64_t stride = 1;
  for (size_t i = num_dims; i-- > 0;) {
    src_strides[i] = stride;
    stride *= src_dims[i];
  }
  MergedPermutation merged;
  for (size_t i = 0; i < num_dims; ++i) {
    const int64_t size = src_dims[perm[i]], step = src_strides[perm[i]];
    if (size == 1) {
      continue;
    }
    // Follows the previous dst dim in the source too: one dim of their product.
    if (!merged.dims.empty() && merged.steps.back() == step * size) {
      merged.dims.back() *= size;
      merged.steps.back() = step;
      continue;
    }
    merged.dims.push_back(size);
    merged.steps.push_back(step);
  }
  if (merged.dims.empty()) {  // a single element
    merged.dims.push_back(1);
    merged.steps.push_back(1);
  }
  return merged;
}

// dst rows [first, last) of the merged permutation, a row being the innermost dst dim: an
// odometer over the outer dims per row, a strided (or contiguous) copy within it.
template <typename Word>
void CopyRows(const MergedPermutation& p, const Word* in, Word* out, int64_t first, int64_t last) {
  const size_t outer = p.dims.size() - 1;
  const int64_t cols = p.dims[outer], step = p.steps[outer];
  DimVector index(outer);
  int64_t src_offset = 0;
  for (size_t i = outer, rest = static_cast<size_t>(first); i-- > 0;) {
    index[i] = static_cast<int64_t>(rest) % p.dims[i];
    rest /= static_cast<size_t>(p.dims[i]);
    src_offset += index[i] * p.steps[i];
  }
  for (int64_t row = first; row < last; ++row) {
    Word* dst = out + row * cols;
    const Word* src = in + src_offset;
    if (step == 1) {
      std::memcpy(dst, src, static_cast<size_t>(cols) * sizeof(Word));
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        dst[j] = src[j * step];
      }
    }
    for (size_t i = outer; i-- > 0;) {  // advance the odometer
      src_offset += p.steps[i];
      if (++index[i] < p.dims[i]) {
        break;
      }
      src_offset -= p.steps[i] * p.dims[i];
      index[i] = 0;
    }
  }
}

// A batched 2-D transpose, (B, R, C) -> (B, C, R): after merging, dst dims (B, C, R) or (C, R)
// whose middle dim is contiguous in the source (as every transpose that moves one dim to the end,
// or back, merges to). Copying a dst row at a time reads the source down a column, a cache line a
// word; tiles of kTransposeTile x kTransposeTile keep the lines a tile reads in cache.
constexpr int64_t kTransposeTile = 32;

bool IsBatchedTranspose(const MergedPermutation& p) {
  const size_t n = p.dims.size();
  return (n == 2 || n == 3) && p.steps[n - 2] == 1 && p.steps[n - 1] != 1;
}

// A vector of 8 words (GCC's vector_size does not take a dependent type, hence one per size).
template <typename Word>
struct EightWords;
template <>
struct EightWords<uint8_t> {
  typedef uint8_t type __attribute__((vector_size(8)));
};
template <>
struct EightWords<uint16_t> {
  typedef uint16_t type __attribute__((vector_size(16)));
};
template <>
struct EightWords<uint32_t> {
  typedef uint32_t type __attribute__((vector_size(32)));
};
template <>
struct EightWords<uint64_t> {
  typedef uint64_t type __attribute__((vector_size(64)));
};

// An 8 x 8 block of words transposed in registers: 8 source rows of 8 contiguous words,
// src_step apart, become 8 destination rows dst_step apart. Three rounds of shuffles: pairs of
// words, pairs of pairs, then halves (__builtin_shufflevector: GCC 12 and clang).
template <typename Word>
OFLITE_ISA_INLINE void TransposeBlock8(const Word* src, int64_t src_step, Word* dst,
                                       int64_t dst_step) {
  using V = typename EightWords<Word>::type;
  V a[8], b[8];
  for (int i = 0; i < 8; ++i) {
    std::memcpy(&a[i], src + i * src_step, sizeof(V));
  }
  for (int i = 0; i < 8; i += 2) {
    b[i] = __builtin_shufflevector(a[i], a[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    b[i + 1] = __builtin_shufflevector(a[i], a[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int i = 0; i < 8; i += 4) {
    for (int j = 0; j < 2; ++j) {
      a[i + 2 * j] = __builtin_shufflevector(b[i + j], b[i + j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      a[i + 2 * j + 1] =
          __builtin_shufflevector(b[i + j], b[i + j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
  }
  for (int i = 0; i < 4; ++i) {
    b[i] = __builtin_shufflevector(a[i], a[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    b[i + 4] = __builtin_shufflevector(a[i], a[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
  for (int i = 0; i < 8; ++i) {
    std::memcpy(dst + i * dst_step, &b[i], sizeof(V));
  }
}

// dst[c * r_dim + r] = src[r * r_step + c] for r in [r0, r1), c in [c0, c1): whole 8 x 8 blocks
// in registers, the edges a word at a time.
template <typename Word>
OFLITE_ISA_INLINE void TransposeTile(const Word* src, int64_t r_step, Word* dst, int64_t r_dim,
                                     int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; c += 8) {
    for (int64_t r = r0; r < r1; r += 8) {
      if (c + 8 <= c1 && r + 8 <= r1) {
        TransposeBlock8(src + r * r_step + c, r_step, dst + c * r_dim + r, r_dim);
        continue;
      }
      for (int64_t cc = c; cc < std::min(c + 8, c1); ++cc) {
        for (int64_t rr = r; rr < std::min(r + 8, r1); ++rr) {
          dst[cc * r_dim + rr] = src[rr * r_step + cc];
        }
      }
    }
  }
}

// Tiles [first, last) of the C tiles of every batch: dst rows c0..c0 + kTransposeTile, every R.
template <typename Word>
OFLITE_ISA_CLONES void CopyTiles(const MergedPermutation& p, const Word* in, Word* out,
                                 int64_t first, int64_t last) {
  const size_t n = p.dims.size();
  const int64_t c_dim = p.dims[n - 2], r_dim = p.dims[n - 1], r_step = p.steps[n - 1];
  const int64_t batch_step = n == 3 ? p.steps[0] : 0;
  const int64_t c_tiles = (c_dim + kTransposeTile - 1) / kTransposeTile;
  for (int64_t t = first; t < last; ++t) {
    const int64_t b = t / c_tiles, c0 = t % c_tiles * kTransposeTile;
    const int64_t c1 = std::min(c_dim, c0 + kTransposeTile);
    const Word* src = in + b * batch_step;
    Word* dst = out + b * c_dim * r_dim;
    for (int64_t r0 = 0; r0 < r_dim; r0 += kTransposeTile) {
      TransposeTile(src, r_step, dst, r_dim, r0, std::min(r_dim, r0 + kTransposeTile), c0, c1);
    }
  }
}

template <typename Word>
class CpuPermute final : public primitive::Permute {
 public:
  explicit CpuPermute(DataType data_type) : data_type_(data_type) {}
  std::string name() const override {
    return std::string("cpu.permute<") + DataTypeName(data_type_) + ">";
  }

  Maybe<void> Launch(Stream* /*stream*/, size_t num_dims, const int64_t* src_dims, const void* src,
                     const int64_t* perm, void* dst) override {
    int64_t count = 1;
    for (size_t i = 0; i < num_dims; ++i) {
      count *= src_dims[i];
    }
    if (count == 0) {
      return Ok();
    }
    const MergedPermutation merged = Merge(num_dims, src_dims, perm);
    const int64_t cols = merged.dims.back();
    if (IsBatchedTranspose(merged)) {
      const int64_t c_dim = merged.dims[merged.dims.size() - 2];
      const int64_t tiles = count / cols / c_dim * ((c_dim + kTransposeTile - 1) / kTransposeTile);
      const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / (kTransposeTile * cols));
      ParallelFor(tiles, grain, [&](int64_t first, int64_t last) {
        CopyTiles(merged, static_cast<const Word*>(src), static_cast<Word*>(dst), first, last);
      });
      return Ok();
    }
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / cols);
    ParallelFor(count / cols, grain, [&](int64_t first, int64_t last) {
      CopyRows(merged, static_cast<const Word*>(src), static_cast<Word*>(dst), first, last);
    });
    return Ok();
  }

 private:
  DataType data_type_;
};

class CpuPermuteFactory final : public primitive::PermuteFactory {
 public:
  std::unique_ptr<primitive::Permute> New(DataType data_type, size_t /*max_num_dims*/) override {
    switch (DataTypeSize(data_type)) {
      case 1:
        return std::make_unique<CpuPermute<uint8_t>>(data_type);
      case 2:
        return std::make_unique<CpuPermute<uint16_t>>(data_type);
      case 4:
        return std::make_unique<CpuPermute<uint32_t>>(data_type);
      case 8:
        return std::make_unique<CpuPermute<uint64_t>>(data_type);
      default:
        return nullptr;
    }
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::PermuteFactory, CpuPermuteFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
