// CPU Cast for every pair of dtypes: one template over (from, to) on top of CastValue.
#include "oneflow_lite/primitive/cast.h"

#include <string>
#include <type_traits>

#include "ep/cpu/parallel_for.h"
#include "ep/cpu/primitive/compute_type.h"
#include "primitive/elementwise_functors.h"

namespace oflite {
namespace ep {
namespace {

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// One element. A 16-bit destination rounds exactly once, from the value itself: float sources
// (float32 and 16-bit) through the float constructor, float64 and integers through the double
// constructor (the double constructor rounds once; 32-bit and narrower integers are exact in
// double, int64 comes rounded to odd).
// Everything else is CastValue on the source's compute type.
template <typename To, typename From>
To CastElement(From v) {
  if constexpr (kIsHalf<To>) {
    if constexpr (std::is_same_v<From, bool>) {
      return To(v ? 1.0f : 0.0f);
    } else if constexpr (std::is_same_v<ComputeType<From>, float>) {
      return To(static_cast<float>(v));
    } else if constexpr (std::is_same_v<From, int64_t>) {
      return To(primitive::elementwise::Int64ToDoubleRoundToOdd(v));
    } else {
      return To(static_cast<double>(v));
    }
  } else {
    return primitive::elementwise::CastValue<To>(static_cast<ComputeType<From>>(v));
  }
}

template <typename From, typename To>
class CpuCast final : public primitive::Cast {
 public:
  std::string name() const override {
    return std::string("cpu.cast<") + DataTypeName(kDataTypeOf<From>) + "," +
           DataTypeName(kDataTypeOf<To>) + ">";
  }

  Maybe<void> Launch(Stream* /*stream*/, const void* src, void* dst, size_t count) override {
    const From* x = static_cast<const From*>(src);
    To* y = static_cast<To*>(dst);
    ParallelFor(static_cast<int64_t>(count), kElementwiseGrain, [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        y[i] = CastElement<To>(x[i]);
      }
    });
    return Ok();
  }
};

class CpuCastFactory final : public primitive::CastFactory {
 public:
  std::unique_ptr<primitive::Cast> New(DataType from, DataType to) override {
    return VisitDataType(from, [&](auto from_tag) {
      return VisitDataType(to, [&](auto to_tag) -> std::unique_ptr<primitive::Cast> {
        return std::make_unique<
            CpuCast<typename decltype(from_tag)::type, typename decltype(to_tag)::type>>();
      });
    });
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::CastFactory, CpuCastFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
