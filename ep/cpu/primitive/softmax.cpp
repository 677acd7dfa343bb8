// CPU Softmax / LogSoftmax and their backward passes: rows split over the pool, each row in
// vectorizable loops compiled per ISA level, sums in the compute type with compensation.
#include "primitive/softmax.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "ep/cpu/parallel_for.h"
#include "ep/cpu/primitive/compute_type.h"
#include "ep/cpu/primitive/isa_clones.h"
#include "ep/cpu/primitive/pack.h"
#include "ep/cpu/primitive/vector_exp.h"
#include "primitive/softmax_backward.h"

namespace oflite {
namespace ep {
namespace {

using primitive::SoftmaxAlgorithm;

template <SoftmaxAlgorithm kAlgorithm>
std::string AlgorithmName() {
  return kAlgorithm == SoftmaxAlgorithm::kSoftmax ? "softmax" : "log_softmax";
}

// Rows are split over the pool in chunks of at least this many elements.
constexpr int64_t kSoftmaxGrain = 16384;

// A running sum in the compute type with each addition's rounding error kept (Knuth's TwoSum,
// exact whichever operand is larger), for C a scalar or a Pack: the total is sum + error, to
// about twice the compute type's precision.
template <typename C>
struct CompensatedSum {
  C sum{}, error{};
  OFLITE_ISA_INLINE void Add(C v) {
    const C next = sum + v;
    const C v_part = next - sum;
    error += (sum - (next - v_part)) + (v - v_part);
    sum = next;
  }
};

// The sum of fn(c, count) (a pack of terms for columns [c, c + count), lanes past count 0)
// over a row: lanes add up per block of kBlock columns, lane totals join with compensation.
// kCompensateLanes compensates within the lanes too, for log_softmax: with float32 sums of
// 1 + small terms, the log of the rounded sum loses the outputs near 0.
template <bool kCompensateLanes, typename C, typename F>
OFLITE_ISA_INLINE CompensatedSum<C> SumRow(size_t cols, const F& fn) {
  constexpr size_t kBlock = 1024;
  CompensatedSum<C> total;
  for (size_t begin = 0; begin < cols; begin += kBlock) {
    CompensatedSum<Pack<C>> block;
    ForEachPack<C>(std::min(kBlock, cols - begin), [&](size_t c, size_t count) {
      if constexpr (kCompensateLanes) {
        block.Add(fn(begin + c, count));
      } else {
        block.sum += fn(begin + c, count);
      }
    });
    for (size_t l = 0; l < kPackLanes<C>; ++l) {
      total.Add(block.sum[l]);
      total.Add(block.error[l]);
    }
  }
  return total;
}

// The row's max. NaNs are skipped here (comparisons with NaN are false); they reach every
// output through the sum of exponentials.
template <typename T>
OFLITE_ISA_INLINE ComputeType<T> RowMax(const T* x, size_t cols) {
  using C = ComputeType<T>;
  const C lowest = -INFINITY;
  Pack<C> lanes = Pack<C>{} + lowest;
  ForEachPack<C>(cols, [&](size_t c, size_t count) {
    const Pack<C> v = LoadPack<C>(x + c, count, lowest);
    lanes = v > lanes ? v : lanes;
  });
  C max = lowest;
  for (size_t l = 0; l < kPackLanes<C>; ++l) {
    max = lanes[l] > max ? lanes[l] : max;
  }
  return max;
}

// Zeroes the lanes of v past count.
template <typename C>
OFLITE_ISA_INLINE Pack<C> KeepLanes(Pack<C> v, size_t count) {
  for (size_t l = count; l < kPackLanes<C>; ++l) {
    v[l] = 0;
  }
  return v;
}

// One row forward: max, exp(x - max) summed (kept in y where y holds the compute type), then
// y = e / sum for softmax or y = x - max - log(sum) for log_softmax.
template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_INLINE void ForwardRow(const T* x, T* y, size_t cols) {
  using C = ComputeType<T>;
  const C max = RowMax(x, cols);
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  constexpr bool kKeepExp = kSoftmax && std::is_same_v<T, C>;
  const auto exp_of = [&](size_t c, size_t count) {
    return VectorExp(LoadPack<C>(x + c, count, C(0)) - max);
  };
  const CompensatedSum<C> sum = SumRow<!kSoftmax, C>(cols, [&](size_t c, size_t count) {
    const Pack<C> e = exp_of(c, count);
    if constexpr (kKeepExp) {
      StorePack<C>(y + c, e, count);
    }
    return KeepLanes<C>(e, count);
  });
  // (x - max) - log(sum), not x - (max + log(sum)): outputs near 0 keep their relative precision.
  const C inv = 1 / sum.sum;
  const C log_sum = static_cast<C>(std::log(static_cast<double>(sum.sum) + sum.error));
  ForEachPack<C>(cols, [&](size_t c, size_t count) {
    if constexpr (kKeepExp) {
      StorePack<C>(y + c, LoadPack<C>(y + c, count, C(0)) * inv, count);
    } else if constexpr (kSoftmax) {
      StorePack<C>(y + c, exp_of(c, count) * inv, count);
    } else {
      StorePack<C>(y + c, (LoadPack<C>(x + c, count, C(0)) - max) - log_sum, count);
    }
  });
}

// One row backward: softmax needs sum(dy * y), log_softmax sum(dy).
template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_INLINE void BackwardRow(const T* y, const T* dy, T* dx, size_t cols) {
  using C = ComputeType<T>;
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  const C sum = SumRow<false, C>(cols, [&](size_t c, size_t count) {
    const Pack<C> dyc = LoadPack<C>(dy + c, count, C(0));
    return kSoftmax ? dyc * LoadPack<C>(y + c, count, C(0)) : dyc;
  }).sum;
  ForEachPack<C>(cols, [&](size_t c, size_t count) {
    const Pack<C> yc = LoadPack<C>(y + c, count, C(0));
    const Pack<C> dyc = LoadPack<C>(dy + c, count, C(0));
    StorePack<C>(dx + c, kSoftmax ? yc * (dyc - sum) : dyc - VectorExp(yc) * sum, count);
  });
}

template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_CLONES void ForwardRows(const T* x, T* y, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    ForwardRow<kAlgorithm>(x + r * cols, y + r * cols, cols);
  }
}

template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_CLONES void BackwardRows(const T* y, const T* dy, T* dx, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    BackwardRow<kAlgorithm>(y + r * cols, dy + r * cols, dx + r * cols, cols);
  }
}

// Calls rows_fn(first_row, row_count) over [0, rows) on the pool.
template <typename F>
void ForEachRowChunk(size_t rows, size_t cols, const F& rows_fn) {
  const int64_t grain = std::max<int64_t>(1, kSoftmaxGrain / std::max<int64_t>(1, cols));
  ParallelFor(static_cast<int64_t>(rows), grain, [&](int64_t begin, int64_t end) {
    rows_fn(static_cast<size_t>(begin), static_cast<size_t>(end - begin));
  });
}

template <SoftmaxAlgorithm kAlgorithm>
struct Forward {
  template <typename T>
  class Impl final : public primitive::SoftmaxBase<kAlgorithm> {
   public:
    std::string name() const override {
      return "cpu." + AlgorithmName<kAlgorithm>() + "<" + DataTypeName(kDataTypeOf<T>) + ">";
    }
    Maybe<void> Launch(Stream* /*stream*/, size_t rows, size_t cols, const void* x,
                       void* y) override {
      ForEachRowChunk(rows, cols, [&](size_t first, size_t count) {
        ForwardRows<kAlgorithm>(static_cast<const T*>(x) + first * cols,
                                static_cast<T*>(y) + first * cols, count, cols);
      });
      return Ok();
    }
  };
};

template <SoftmaxAlgorithm kAlgorithm>
struct Backward {
  template <typename T>
  class Impl final : public primitive::SoftmaxBackwardBase<kAlgorithm> {
   public:
    std::string name() const override {
      return "cpu." + AlgorithmName<kAlgorithm>() + "_backward<" + DataTypeName(kDataTypeOf<T>) +
             ">";
    }
    Maybe<void> Launch(Stream* /*stream*/, size_t rows, size_t cols, const void* y, const void* dy,
                       void* dx) override {
      ForEachRowChunk(rows, cols, [&](size_t first, size_t count) {
        const size_t offset = first * cols;
        BackwardRows<kAlgorithm>(static_cast<const T*>(y) + offset,
                                 static_cast<const T*>(dy) + offset,
                                 static_cast<T*>(dx) + offset, count, cols);
      });
      return Ok();
    }
  };
};

template <SoftmaxAlgorithm kAlgorithm>
class CpuSoftmaxFactory final : public primitive::SoftmaxBaseFactory<kAlgorithm> {
 public:
  std::unique_ptr<primitive::SoftmaxBase<kAlgorithm>> New(DataType data_type) override {
    return primitive::NewForFloating<primitive::SoftmaxBase<kAlgorithm>,
                                     Forward<kAlgorithm>::template Impl>(data_type);
  }
};

template <SoftmaxAlgorithm kAlgorithm>
class CpuSoftmaxBackwardFactory final : public primitive::SoftmaxBackwardBaseFactory<kAlgorithm> {
 public:
  std::unique_ptr<primitive::SoftmaxBackwardBase<kAlgorithm>> New(DataType data_type) override {
    return primitive::NewForFloating<primitive::SoftmaxBackwardBase<kAlgorithm>,
                                     Backward<kAlgorithm>::template Impl>(data_type);
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::SoftmaxFactory,
                                  CpuSoftmaxFactory<SoftmaxAlgorithm::kSoftmax>);
OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::LogSoftmaxFactory,
                                  CpuSoftmaxFactory<SoftmaxAlgorithm::kLogSoftmax>);
OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::SoftmaxBackwardFactory,
                                  CpuSoftmaxBackwardFactory<SoftmaxAlgorithm::kSoftmax>);
OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::LogSoftmaxBackwardFactory,
                                  CpuSoftmaxBackwardFactory<SoftmaxAlgorithm::kLogSoftmax>);

}  // namespace
}  // namespace ep
}  // namespace oflite
