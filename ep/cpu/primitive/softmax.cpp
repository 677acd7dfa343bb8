// CPU Softmax / LogSoftmax and their backward passes, one template per direction.
#include "primitive/softmax.h"

#include <cmath>
#include <string>
#include <type_traits>

#include "ep/cpu/primitive/compute_type.h"
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

// Row sums accumulate in double whatever the dtype: summing a long row one element at a time
// in float drifts past float32's 1e-5 tolerance beyond ~64K columns.
using RowSum = double;

// exp(x - max) summed over a row in kLanes independent partial sums (which the compiler turns
// into vector registers) per block of kBlock elements, each block's total added in double.
// kStore writes the exponentials to e. Softmax takes VectorExp (2 ulp); log_softmax keeps
// libm's exp, since its outputs near 0 show the sum's error undivided.
template <bool kStore, bool kVectorExp, typename T, typename C>
RowSum SumExp(const T* x, C max, size_t cols, C* e) {
  constexpr size_t kLanes = 16, kBlock = 1024;
  const auto exp = [](C v) {
    if constexpr (kVectorExp) {
      return VectorExp(v);
    } else {
      return static_cast<C>(std::exp(v));
    }
  };
  RowSum sum = 0;
  for (size_t begin = 0; begin < cols; begin += kBlock) {
    const size_t end = begin + kBlock < cols ? begin + kBlock : cols;
    using Lane = std::conditional_t<kVectorExp, C, RowSum>;
    Lane lanes[kLanes] = {};
    size_t c = begin;
    for (; c + kLanes <= end; c += kLanes) {
      for (size_t l = 0; l < kLanes; ++l) {
        const C v = exp(static_cast<C>(x[c + l]) - max);
        lanes[l] += v;
        if constexpr (kStore) {
          e[c + l] = v;
        }
      }
    }
    for (; c < end; ++c) {
      const C v = exp(static_cast<C>(x[c]) - max);
      lanes[0] += v;
      if constexpr (kStore) {
        e[c] = v;
      }
    }
    for (size_t l = 0; l < kLanes; ++l) {
      sum += lanes[l];
    }
  }
  return sum;
}

// max that lets a NaN win, so a NaN anywhere in the row reaches every output (as in PyTorch).
template <typename C>
C NanPropagatingMax(C a, C b) {
  return (std::isnan(a) || a > b) ? a : b;
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
      for (size_t r = 0; r < rows; ++r) {
        Row(static_cast<const T*>(x) + r * cols, static_cast<T*>(y) + r * cols, cols);
      }
      return Ok();
    }

   private:
    using C = ComputeType<T>;
    static void Row(const T* x, T* y, size_t cols) {
      C max = -INFINITY;
      for (size_t c = 0; c < cols; ++c) {
        max = NanPropagatingMax(static_cast<C>(x[c]), max);
      }
      // Where y holds the compute type, the exponentials go there and are scaled in place.
      constexpr bool kSoftmax = kAlgorithm == SoftmaxAlgorithm::kSoftmax;
      constexpr bool kKeepExp = kSoftmax && std::is_same_v<T, C>;
      RowSum sum = 0;
      if constexpr (kKeepExp) {
        sum = SumExp<true, true>(x, max, cols, y);
      } else {
        sum = SumExp<false, kSoftmax>(x, max, cols, static_cast<C*>(nullptr));
      }
      if (kAlgorithm == SoftmaxAlgorithm::kSoftmax) {
        const C inv = static_cast<C>(1 / sum);
        for (size_t c = 0; c < cols; ++c) {
          if constexpr (kKeepExp) {
            y[c] = y[c] * inv;
          } else {
            y[c] = static_cast<T>(VectorExp(static_cast<C>(x[c]) - max) * inv);
          }
        }
      } else {
        const C log_sum = static_cast<C>(std::log(sum));
        for (size_t c = 0; c < cols; ++c) {
          y[c] = static_cast<T>(static_cast<C>(x[c]) - max - log_sum);
        }
      }
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
      for (size_t r = 0; r < rows; ++r) {
        const size_t offset = r * cols;
        Row(static_cast<const T*>(y) + offset, static_cast<const T*>(dy) + offset,
            static_cast<T*>(dx) + offset, cols);
      }
      return Ok();
    }

   private:
    using C = ComputeType<T>;
    static void Row(const T* y, const T* dy, T* dx, size_t cols) {
      RowSum row_sum = 0;
      for (size_t c = 0; c < cols; ++c) {
        // softmax needs sum(dy * y); log_softmax needs sum(dy)
        row_sum += kAlgorithm == SoftmaxAlgorithm::kSoftmax
                       ? static_cast<C>(dy[c]) * static_cast<C>(y[c])
                       : static_cast<C>(dy[c]);
      }
      const C sum = static_cast<C>(row_sum);
      for (size_t c = 0; c < cols; ++c) {
        const C yc = static_cast<C>(y[c]);
        const C dyc = static_cast<C>(dy[c]);
        dx[c] = static_cast<T>(kAlgorithm == SoftmaxAlgorithm::kSoftmax ? yc * (dyc - sum)
                                                                        : dyc - std::exp(yc) * sum);
      }
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
