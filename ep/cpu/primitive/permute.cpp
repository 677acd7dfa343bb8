// CPU Permute for every dtype: elements move as opaque words of their size (1, 2, 4, 8 bytes),
// so one instantiation per size serves all dtypes. Dims are merged first, then each row of the
// output is one strided (or contiguous) copy, rows split over the pool.
#include "oneflow_lite/primitive/permute.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "ep/cpu/parallel_for.h"
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
