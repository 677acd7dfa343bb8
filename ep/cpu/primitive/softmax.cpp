// CPU Softmax / LogSoftmax and their backward passes: rows split over the pool, each row in
// vectorizable loops compiled per ISA level, sums in the compute type with compensation.
#include "oneflow_lite/primitive/softmax.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "ep/cpu/parallel_for.h"
#include "ep/cpu/primitive/compute_type.h"
#include "ep/cpu/primitive/isa_clones.h"
#include "ep/cpu/primitive/pack.h"
#include "ep/cpu/primitive/streaming_store.h"
#include "ep/cpu/primitive/vector_exp.h"
#include "oneflow_lite/primitive/softmax_backward.h"

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

// The sum of a row's terms: add(c, count, block) adds the terms of columns [c, c + count) to
// the packs `block`, lane by lane, per block of kBlock columns; the lanes then fold with
// compensation and block totals join in double.
template <typename C, typename F>
OFLITE_ISA_INLINE double SumRow(size_t cols, const F& add) {
  constexpr size_t kBlock = 1024;
  double total = 0;
  for (size_t begin = 0; begin < cols; begin += kBlock) {
    CompensatedPacks<C> block;
    ForEachPack<C>(std::min(kBlock, cols - begin),
                   [&](size_t c, size_t count) OFLITE_ISA_LAMBDA { add(begin + c, count, block); });
    total += Total(block);
  }
  return total;
}

// The row's max. NaNs are skipped here (comparisons with NaN are false); they reach every
// output through the sum of exponentials. kWays running maxes, so that the loop is not one
// chain of dependent comparisons.
template <typename T>
OFLITE_ISA_INLINE ComputeType<T> RowMax(const T* x, size_t cols, const T* x_end) {
  using C = ComputeType<T>;
  constexpr size_t kWays = 4, kStep = kWays * kPackLanes<C>;
  const C lowest = -INFINITY;
  const auto max = [](Pack<C> a, Pack<C> b) OFLITE_ISA_LAMBDA { return a > b ? a : b; };
  Pack<C> lanes[kWays];
  for (Pack<C>& way : lanes) {
    way = Pack<C>{} + lowest;
  }
  size_t begin = 0;
  for (; cols - begin >= kStep; begin += kStep) {
    for (size_t w = 0; w < kWays; ++w) {
      lanes[w] =
          max(LoadPack<C>(x + begin + w * kPackLanes<C>, kPackLanes<C>, lowest, x_end), lanes[w]);
    }
  }
  ForEachPack<C>(cols - begin, [&](size_t c, size_t count) OFLITE_ISA_LAMBDA {
    lanes[0] = max(LoadPack<C>(x + begin + c, count, lowest, x_end), lanes[0]);
  });
  return FoldLanes<C>(max(max(lanes[0], lanes[1]), max(lanes[2], lanes[3])), max);
}

// One row forward: max, e = exp(x - max) summed and kept in `keep` (y itself where y holds the
// compute type and is not streamed), then y = e / sum for softmax or y = x - max - log(sum) for
// log_softmax, written with non-temporal stores when kStream.
template <SoftmaxAlgorithm kAlgorithm, bool kStream, typename T>
OFLITE_ISA_INLINE void ForwardRow(const T* x, T* y, size_t cols, const T* x_end,
                                  ComputeType<T>* keep) {
  using C = ComputeType<T>;
  const C max = RowMax(x, cols, x_end);
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  // x - max; lanes past count get -inf, whose exponential is 0.
  const auto diff = [&](size_t c, size_t count) OFLITE_ISA_LAMBDA {
    return LoadPack<C>(x + c, count, C(-INFINITY), x_end) - max;
  };
  double sum = 0;
  if constexpr (kSoftmax) {
    sum =
        SumRow<C>(cols, [&](size_t c, size_t count, CompensatedPacks<C>& block) OFLITE_ISA_LAMBDA {
          const Pack<C> e = VectorExp</*kNonPositive=*/true>(diff(c, count));
          StorePack<C>(keep + c, e, count);
          block.sum += e;
        });
  } else {
    sum =
        SumRow<C>(cols, [&](size_t c, size_t count, CompensatedPacks<C>& block) OFLITE_ISA_LAMBDA {
          block.sum += VectorExp</*kNonPositive=*/true>(diff(c, count));
        });
    // Outputs near 0 occur only where the max's own term (exactly 1) dominates the sum, and
    // there the rounding of 1 + small terms would lose them: such rows (sum < 2) sum again with
    // the max's terms counted apart, in the error packs. Elsewhere every |output| >= log 2.
    if (sum < 2) {
      sum = SumRow<C>(cols,
                      [&](size_t c, size_t count, CompensatedPacks<C>& block) OFLITE_ISA_LAMBDA {
                        const Pack<C> d = diff(c, count);
                        const Pack<C> e = VectorExp</*kNonPositive=*/true>(d);
                        const auto at_max = d == C(0);
                        block.sum = at_max ? block.sum : block.sum + e;
                        block.error = at_max ? block.error + C(1) : block.error;
                      });
    }
  }
  // (x - max) - log(sum), not x - (max + log(sum)): outputs near 0 keep their relative precision.
  const C inv = static_cast<C>(1 / sum), log_sum = static_cast<C>(std::log(sum));
  const auto write = [&](T* dst, int64_t first, int64_t n) OFLITE_ISA_LAMBDA {
    ForEachPack<C>(static_cast<size_t>(n), [&](size_t i, size_t count) OFLITE_ISA_LAMBDA {
      const size_t c = static_cast<size_t>(first) + i;
      if constexpr (kSoftmax) {  // keep past the row may be another thread's y: read only the row
        StorePack<C>(dst + i, LoadPack<C>(keep + c, count, C(0), keep + c + count) * inv, count);
      } else {
        StorePack<C>(dst + i, (LoadPack<C>(x + c, count, C(0), x_end) - max) - log_sum, count);
      }
    });
  };
  if constexpr (kStream) {
    StreamOutput(y, 0, static_cast<int64_t>(cols), write);
  } else {
    write(y, 0, static_cast<int64_t>(cols));
  }
}

// One row backward: softmax needs sum(dy * y), log_softmax sum(dy).
template <SoftmaxAlgorithm kAlgorithm, typename T>
OFLITE_ISA_INLINE void BackwardRow(const T* y, const T* dy, T* dx, size_t cols, const T* y_end,
                                   const T* dy_end) {
  using C = ComputeType<T>;
  constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
  const C sum = static_cast<C>(
      SumRow<C>(cols, [&](size_t c, size_t count, CompensatedPacks<C>& block) OFLITE_ISA_LAMBDA {
        const Pack<C> dyc = LoadPack<C>(dy + c, count, C(0), dy_end);
        block.sum += kSoftmax ? dyc * LoadPack<C>(y + c, count, C(0), y_end) : dyc;
      }));
  ForEachPack<C>(cols, [&](size_t c, size_t count) OFLITE_ISA_LAMBDA {
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
    // Every column is filled before any is read as a pack: a pack read right after its lanes'
    // scalar stores cannot take them from the store buffer and waits for them (a stall a column).
    for (size_t j = 0; j < cols; ++j) {
      for (size_t l = 0; l < kLanes; ++l) {
        column[j][l] = l < count ? static_cast<C>(in[l * cols + j]) : C(0);
      }
    }
    Pack<C> max = Pack<C>{} + static_cast<C>(-INFINITY);
    for (size_t j = 0; j < cols; ++j) {
      max = column[j] > max ? column[j] : max;
    }
    // softmax keeps each exponential for its output; log_softmax keeps x - max.
    CompensatedPacks<C> sum;  // log_softmax needs the error term, as SumRow says
    for (size_t j = 0; j < cols; ++j) {
      column[j] -= max;
      const Pack<C> e = VectorExp</*kNonPositive=*/true>(column[j]);
      sum.Add(e);
      if (kAlgorithm == SoftmaxAlgorithm::kSoftmax) {
        column[j] = e;
      }
    }
    Pack<C> scale;
    for (size_t l = 0; l < kLanes; ++l) {
      const double total = static_cast<double>(sum.sum[l]) + static_cast<double>(sum.error[l]);
      scale[l] =
          static_cast<C>(kAlgorithm == SoftmaxAlgorithm::kSoftmax ? 1 / total : std::log(total));
    }
    for (size_t j = 0; j < cols; ++j) {
      const Pack<C> result =
          kAlgorithm == SoftmaxAlgorithm::kSoftmax ? column[j] * scale : column[j] - scale;
      for (size_t l = 0; l < count; ++l) {
        out[l * cols + j] = static_cast<T>(result[l]);
      }
    }
  }
}

// x_end: where the input may be read up to, the end of these rows (with y == x, rows past
// them are another thread's output).
// scratch: a row of the compute type, where exponentials are kept when y cannot keep them.
template <SoftmaxAlgorithm kAlgorithm, bool kStream, typename T>
OFLITE_ISA_CLONES void ForwardRows(const T* x, T* y, size_t rows, size_t cols, const T* x_end,
                                   ComputeType<T>* scratch) {
  constexpr bool kKeepInY = std::is_same_v<T, ComputeType<T>> && !kStream;
  for (size_t r = 0; r < rows; ++r) {
    T* row_y = y + r * cols;
    ComputeType<T>* keep = scratch;
    if constexpr (kKeepInY) {
      keep = row_y;
    }
    ForwardRow<kAlgorithm, kStream>(x + r * cols, row_y, cols, x_end, keep);
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
  if (rows == 0 || cols == 0) {  // no element: rows of no columns may still be 2^62 of them
    return;
  }
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
        T* out = static_cast<T*>(y) + first * cols;
        const T* in_end = in + (first + count) * cols;
        // Grows to the longest row this thread has seen; kept for the calls after.
        thread_local std::vector<ComputeType<T>> scratch;
        scratch.resize(std::max(scratch.size(), cols));
        // softmax's last pass reads e back from the cache; streaming y through the scratch row
        // instead measured slower. log_softmax's last pass is y's first write: it streams.
        if (kAlgorithm == SoftmaxAlgorithm::kLogSoftmax &&
            StreamsOutput(static_cast<int64_t>(rows * cols * sizeof(T)))) {
          ForwardRows<kAlgorithm, true>(in + first * cols, out, count, cols, in_end,
                                        scratch.data());
        } else {
          ForwardRows<kAlgorithm, false>(in + first * cols, out, count, cols, in_end,
                                         scratch.data());
        }
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
