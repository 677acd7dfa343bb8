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

// Packs of running sums with each addition's rounding error kept (Knuth's TwoSum, exact
// whichever operand is larger): the total is sum + error, to about twice float's precision.
template <typename C>
struct CompensatedPacks {
  Pack<C> sum{}, error{};
  OFLITE_ISA_INLINE void Add(Pack<C> v) {
    const Pack<C> next = sum + v;
    const Pack<C> v_part = next - sum;
    error += (sum - (next - v_part)) + (v - v_part);
    sum = next;
  }
};

// The packs' total as a double: the lanes fold by halving, each addition's error kept.
template <typename C, size_t kHalf = kPackLanes<C> / 2>
OFLITE_ISA_INLINE double Total(CompensatedPacks<C> packs) {
  packs.error += RotateLanes<kHalf, C>(packs.error);
  packs.Add(RotateLanes<kHalf, C>(packs.sum));
  if constexpr (kHalf > 1) {
    return Total<C, kHalf / 2>(packs);
  } else {
    return static_cast<double>(packs.sum[0]) + static_cast<double>(packs.error[0]);
  }
}

// The sum of fn(c, count) (a pack of terms for columns [c, c + count), lanes past count 0)
// over a row. Terms add up in the compute type, lane by lane, per block of kBlock columns; the
// lanes then fold with compensation and block totals join in double. kCompensateLanes keeps
// the lanes' rounding errors too, for log_softmax: with float sums of 1 + small terms, the log
// of the rounded sum loses the outputs near 0.
template <bool kCompensateLanes, typename C, typename F>
OFLITE_ISA_INLINE double SumRow(size_t cols, const F& fn) {
  constexpr size_t kBlock = 1024;
  double total = 0;
  for (size_t begin = 0; begin < cols; begin += kBlock) {
    CompensatedPacks<C> block;
    ForEachPack<C>(std::min(kBlock, cols - begin), [&](size_t c, size_t count) {
      if constexpr (kCompensateLanes) {
        block.Add(fn(begin + c, count));
      } else {
        block.sum += fn(begin + c, count);
      }
    });
    if constexpr (kCompensateLanes) {
      total += Total(block);
    } else {
      total += FoldLanes<C>(block.sum, [](Pack<C> a, Pack<C> b) { return a + b; });
    }
  }
  return total;
}

// The row's max. NaNs are skipped here (comparisons with NaN are false); they reach every
// output through the sum of exponentials.
template <typename T>
OFLITE_ISA_INLINE ComputeType<T> RowMax(const T* x, size_t cols, const T* x_end) {
  using C = ComputeType<T>;
  const C lowest = -INFINITY;
  Pack<C> lanes = Pack<C>{} + lowest;
  ForEachPack<C>(cols, [&](size_t c, size_t count) {
    const Pack<C> v = LoadPack<C>(x + c, count, lowest, x_end);
    lanes = v > lanes ? v : lanes;
  });
  return FoldLanes<C>(lanes, [](Pack<C> a, Pack<C> b) { return a > b ? a : b; });
}

// One row forward: max, exp(x - max) summed (kept in y where y holds the compute type), then
// y = e / sum for softmax or y = x - max - log(sum) for log_softmax.
template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_INLINE void ForwardRow(const T* x, T* y, size_t cols, const T* x_end) {
  using C = ComputeType<T>;
  const C max = RowMax(x, cols, x_end);
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  constexpr bool kKeepExp = kSoftmax && std::is_same_v<T, C>;
  const auto exp_of = [&](size_t c, size_t count) {
    return VectorExp(LoadPack<C>(x + c, count, C(0), x_end) - max);
  };
  const double sum = SumRow<!kSoftmax, C>(cols, [&](size_t c, size_t count) {
    const Pack<C> e = exp_of(c, count);
    if constexpr (kKeepExp) {
      StorePack<C>(y + c, e, count);
    }
    return count == kPackLanes<C> ? e : KeepLanes<C>(e, count, C(0));
  });
  // (x - max) - log(sum), not x - (max + log(sum)): outputs near 0 keep their relative precision.
  const C inv = static_cast<C>(1 / sum), log_sum = static_cast<C>(std::log(sum));
  ForEachPack<C>(cols, [&](size_t c, size_t count) {
    if constexpr (kKeepExp) {  // y past the row may be another thread's: read only the row
      StorePack<C>(y + c, LoadPack<C>(y + c, count, C(0), y + c + count) * inv, count);
    } else if constexpr (kSoftmax) {
      StorePack<C>(y + c, exp_of(c, count) * inv, count);
    } else {
      StorePack<C>(y + c, (LoadPack<C>(x + c, count, C(0), x_end) - max) - log_sum, count);
    }
  });
}

// One row backward: softmax needs sum(dy * y), log_softmax sum(dy).
template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_INLINE void BackwardRow(const T* y, const T* dy, T* dx, size_t cols, const T* y_end,
                                   const T* dy_end) {
  using C = ComputeType<T>;
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  const C sum = static_cast<C>(SumRow<false, C>(cols, [&](size_t c, size_t count) {
    const Pack<C> dyc = LoadPack<C>(dy + c, count, C(0), dy_end);
    return kSoftmax ? dyc * LoadPack<C>(y + c, count, C(0), y_end) : dyc;
  }));
  ForEachPack<C>(cols, [&](size_t c, size_t count) {
    const Pack<C> yc = LoadPack<C>(y + c, count, C(0), y_end);
    const Pack<C> dyc = LoadPack<C>(dy + c, count, C(0), dy_end);
    StorePack<C>(dx + c, kSoftmax ? yc * (dyc - sum) : dyc - VectorExp(yc) * sum, count);
  });
}

// Rows shorter than a pack, kPackLanes rows at a time with a lane per row: every step is a
// vertical pack operation, where a row per pack would spend most of its time folding lanes.
// Its own clone, not inlined: its column array would crowd the row loop's registers.
template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_CLONES void ForwardShortRows(const T* x, T* y, size_t rows, size_t cols) {
  using C = ComputeType<T>;
  constexpr size_t kLanes = kPackLanes<C>;
  for (size_t first = 0; first < rows; first += kLanes) {
    const size_t count = std::min(kLanes, rows - first);
    const T* in = x + first * cols;
    T* out = y + first * cols;
    Pack<C> column[kLanes];  // column[j] lane l: element j of row first + l
    Pack<C> max = Pack<C>{} + static_cast<C>(-INFINITY);
    for (size_t j = 0; j < cols; ++j) {
      for (size_t l = 0; l < kLanes; ++l) {
        column[j][l] = l < count ? static_cast<C>(in[l * cols + j]) : C(0);
      }
      max = column[j] > max ? column[j] : max;
    }
    CompensatedPacks<C> sum;  // log_softmax needs the error term, as SumRow says
    for (size_t j = 0; j < cols; ++j) {
      column[j] -= max;
      sum.Add(VectorExp(column[j]));
    }
    Pack<C> scale;
    for (size_t l = 0; l < kLanes; ++l) {
      const double total = static_cast<double>(sum.sum[l]) + static_cast<double>(sum.error[l]);
      scale[l] =
          static_cast<C>(kAlgorithm == SoftmaxAlgorithm::kSoftmax ? 1 / total : std::log(total));
    }
    for (size_t j = 0; j < cols; ++j) {
      const Pack<C> result = kAlgorithm == SoftmaxAlgorithm::kSoftmax ? VectorExp(column[j]) * scale
                                                                      : column[j] - scale;
      for (size_t l = 0; l < count; ++l) {
        out[l * cols + j] = static_cast<T>(result[l]);
      }
    }
  }
}

// x_end: where the input may be read up to, the end of these rows (with y == x, rows past
// them are another thread's output).
template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_CLONES void ForwardRows(const T* x, T* y, size_t rows, size_t cols, const T* x_end) {
  for (size_t r = 0; r < rows; ++r) {
    ForwardRow<kAlgorithm>(x + r * cols, y + r * cols, cols, x_end);
  }
}

template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_CLONES void BackwardRows(const T* y, const T* dy, T* dx, size_t rows, size_t cols,
                                    const T* y_end, const T* dy_end) {
  for (size_t r = 0; r < rows; ++r) {
    BackwardRow<kAlgorithm>(y + r * cols, dy + r * cols, dx + r * cols, cols, y_end, dy_end);
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
        const T* in = static_cast<const T*>(x);
        if (cols < kPackLanes<ComputeType<T>>) {
          ForwardShortRows<kAlgorithm>(in + first * cols, static_cast<T*>(y) + first * cols, count,
                                       cols);
          return;
        }
        ForwardRows<kAlgorithm>(in + first * cols, static_cast<T*>(y) + first * cols, count, cols,
                                in + (first + count) * cols);
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
        const T* y_in = static_cast<const T*>(y);
        const T* dy_in = static_cast<const T*>(dy);
        BackwardRows<kAlgorithm>(y_in + offset, dy_in + offset, static_cast<T*>(dx) + offset, count,
                                 cols, y_in + (first + count) * cols,
                                 dy_in + (first + count) * cols);
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
