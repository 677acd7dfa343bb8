// CPU BroadcastElementwiseBinary: one template over (op, dtype), instantiated from the op list
// for every dtype the functor table supports.
#include "oneflow_lite/primitive/broadcast_elementwise_binary.h"

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "ep/cpu/parallel_for.h"
#include "ep/cpu/primitive/compute_type.h"
#include "ep/cpu/primitive/streaming_store.h"
#include "oneflow_lite/common/shape.h"
#include "primitive/broadcast_dims.h"
#include "primitive/elementwise_functors.h"

namespace oflite {
namespace ep {
namespace {

using primitive::BinaryOp;
using primitive::BroadcastDims;

constexpr size_t kMaxNumDims = static_cast<size_t>(kMaxRank);

// dst elements [begin, end) of a broadcast: an odometer over dst's dims in which each operand
// steps by its own strides (0 along the dims it broadcasts); the last dim runs as a plain loop.
template <typename C, typename T, typename Out, typename F>
void BroadcastRange(const BroadcastDims& dims, const T* a, const T* b, Out* out, const F& f,
                    int64_t begin, int64_t end) {
  const size_t rank = dims.rank(), last = rank - 1;
  std::vector<int64_t> stride_a(rank), stride_b(rank), index(rank);
  int64_t count_a = 1, count_b = 1;
  for (size_t d = rank; d-- > 0;) {
    stride_a[d] = dims.src0[d] == 1 ? 0 : count_a;
    stride_b[d] = dims.src1[d] == 1 ? 0 : count_b;
    count_a *= dims.src0[d];
    count_b *= dims.src1[d];
  }
  int64_t off_a = 0, off_b = 0, rest = begin;
  for (size_t d = rank; d-- > 0;) {
    index[d] = rest % dims.dst[d];
    rest /= dims.dst[d];
    off_a += index[d] * stride_a[d];
    off_b += index[d] * stride_b[d];
  }
  const int64_t step_a = stride_a[last], step_b = stride_b[last];
  for (int64_t i = begin; i < end;) {
    const int64_t run = std::min(end - i, dims.dst[last] - index[last]);
    for (int64_t k = 0; k < run; ++k) {
      out[i + k] = static_cast<Out>(
          f(static_cast<C>(a[off_a + k * step_a]), static_cast<C>(b[off_b + k * step_b])));
    }
    i += run;
    index[last] += run;
    off_a += run * step_a;
    off_b += run * step_b;
    for (size_t d = last; d > 0 && index[d] == dims.dst[d]; --d) {  // carry
      index[d] = 0;
      off_a += stride_a[d - 1] - dims.dst[d] * stride_a[d];
      off_b += stride_b[d - 1] - dims.dst[d] * stride_b[d];
      ++index[d - 1];
    }
  }
}

template <BinaryOp op, typename T>
class CpuBroadcastElementwiseBinary final : public primitive::BroadcastElementwiseBinary {
 public:
  using C = ComputeType<T>;
  using Out = std::conditional_t<primitive::IsComparison(op), bool, T>;

  CpuBroadcastElementwiseBinary(size_t max_num_dims, double attr)
      : max_num_dims_(max_num_dims), functor_{attr} {}

  std::string name() const override {
    return std::string("cpu.broadcast_elementwise_binary<") + primitive::BinaryOpName(op) + "," +
           DataTypeName(kDataTypeOf<T>) + ">";
  }

  Maybe<void> Launch(Stream* /*stream*/, size_t num_src0_dims, const int64_t* src0_dims,
                     const void* src0, size_t num_src1_dims, const int64_t* src1_dims,
                     const void* src1, void* dst) override {
    OFLITE_CHECK_OR_RETURN(std::max(num_src0_dims, num_src1_dims) <= max_num_dims_, ValueError)
        << name() << ": operands of rank " << num_src0_dims << " and " << num_src1_dims
        << " exceed the rank this primitive was made for (" << max_num_dims_ << ")";
    BroadcastDims dims;
    OFLITE_ASSIGN_OR_RETURN(
        dims, primitive::SimplifyBroadcastDims(num_src0_dims, src0_dims, num_src1_dims, src1_dims));
    const int64_t count = dims.dst_count();
    if (count == 0) {
      return Ok();
    }
    const T* a = static_cast<const T*>(src0);
    const T* b = static_cast<const T*>(src1);
    Out* out = static_cast<Out*>(dst);
    const auto f = functor_;
    // The loop bodies stay load, convert, functor, convert, store so that they vectorize.
    if (dims.same_shape()) {
      const int64_t bytes = count * static_cast<int64_t>(sizeof(Out));
      ParallelFor(count, kElementwiseGrain, [=](int64_t begin, int64_t end) {
        WriteOutput(out, begin, end, bytes, [=](Out* dst, int64_t first, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            dst[i] =
                static_cast<Out>(f(static_cast<C>(a[first + i]), static_cast<C>(b[first + i])));
          }
        });
      });
    } else if (dims.src0_single()) {  // then src1 has dst's shape
      WithScalar(static_cast<C>(a[0]), /*scalar_first=*/true, b, out, count);
    } else if (dims.src1_single()) {
      WithScalar(static_cast<C>(b[0]), /*scalar_first=*/false, a, out, count);
    } else {
      ParallelFor(count, kElementwiseGrain, [&](int64_t begin, int64_t end) {
        BroadcastRange<C>(dims, a, b, out, f, begin, end);
      });
    }
    return Ok();
  }

  Maybe<void> LaunchWithScalar(Stream* /*stream*/, const Scalar& scalar, bool scalar_first,
                               const void* src, void* dst, size_t count) override {
    WithScalar(primitive::elementwise::ScalarAs<C>(scalar), scalar_first,
               static_cast<const T*>(src), static_cast<Out*>(dst), static_cast<int64_t>(count));
    return Ok();
  }

 private:
  // out[i] = f(s, x[i]) or f(x[i], s), the scalar hoisted out of the loop.
  void WithScalar(C s, bool scalar_first, const T* x, Out* out, int64_t count) const {
    const auto f = functor_;
    if (scalar_first) {
      ParallelFor(count, kElementwiseGrain, [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          out[i] = static_cast<Out>(f(s, static_cast<C>(x[i])));
        }
      });
    } else {
      ParallelFor(count, kElementwiseGrain, [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          out[i] = static_cast<Out>(f(static_cast<C>(x[i]), s));
        }
      });
    }
  }

  size_t max_num_dims_;
  primitive::elementwise::BinaryFunctor<op, sizeof(T) == 2> functor_;
};

template <BinaryOp op>
std::unique_ptr<primitive::BroadcastElementwiseBinary> NewBinary(DataType src, DataType dst,
                                                                 size_t max_num_dims, double attr) {
  return VisitDataType(
      src, [&](auto tag) -> std::unique_ptr<primitive::BroadcastElementwiseBinary> {
        using T = typename decltype(tag)::type;
        if constexpr (primitive::elementwise::kBinarySupports<op, ComputeType<T>>) {
          const DataType expected_dst = primitive::IsComparison(op) ? DataType::kBool : src;
          if (dst == expected_dst) {
            return std::make_unique<CpuBroadcastElementwiseBinary<op, T>>(max_num_dims, attr);
          }
        }
        return nullptr;
      });
}

class CpuBroadcastElementwiseBinaryFactory final
    : public primitive::BroadcastElementwiseBinaryFactory {
 public:
  std::unique_ptr<primitive::BroadcastElementwiseBinary> New(BinaryOp op, DataType src,
                                                             DataType dst, size_t max_num_dims,
                                                             double attr) override {
    if (max_num_dims > kMaxNumDims) {
      return nullptr;
    }
    switch (op) {
#define OFLITE_BINARY_CASE(enumerator, name) \
  case BinaryOp::enumerator:                 \
    return NewBinary<BinaryOp::enumerator>(src, dst, max_num_dims, attr);
      OFLITE_BINARY_OP_LIST(OFLITE_BINARY_CASE)
#undef OFLITE_BINARY_CASE
    }
    return nullptr;
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::BroadcastElementwiseBinaryFactory,
                                  CpuBroadcastElementwiseBinaryFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
