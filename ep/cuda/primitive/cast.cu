// CUDA Cast for every pair of dtypes: elementwise.cuh's packed kernel over CastFunctor, two
// kernels per pair (16-byte packs of the wider type, and pack 1 for unaligned pointers); a
// cast to the same dtype is a device-to-device copy. Values convert as the CPU cast does
// (primitive/elementwise_functors.h, CastValue): to integers NaN gives 0, out-of-range values
// saturate, the rest truncate; to bool x != 0; 16-bit destinations round to nearest even once,
// from the source value itself (float sources from float, float64 and integers from double,
// int64 rounded to odd on the way so that it rounds once).

#include <memory>
#include <string>
#include <type_traits>

#include "ep/cuda/cuda_data_type.h"
#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/primitive/elementwise.cuh"
#include "ep/cuda/primitive/elementwise_primitive.cuh"
#include "oneflow_lite/primitive/cast.h"
#include "primitive/elementwise_functors.h"

namespace oflite {
namespace ep {
namespace {

namespace k = elementwise_kernels;

// The value to store for compute value v: for a 16-bit destination v itself, which
// k::FromCompute rounds once (from float, or from double for float64 and integer sources, int64
// through Int64ToDoubleRoundToOdd);
// otherwise CastValue into the destination type, which the store then keeps as is.
template <typename To>
struct CastFunctor {
  template <typename C>
  __device__ __forceinline__ auto operator()(C v) const {
    if constexpr (k::kIsHalf16<To>) {
      return v;
    } else {
      return primitive::elementwise::CastValue<To>(v);
    }
  }
};

// "cuda.cast<float32,float16>"
std::string CastName(DataType from, DataType to) {
  return std::string("cuda.cast<") + DataTypeName(from) + "," + DataTypeName(to) + ">";
}

// A cast to the same dtype: the bits as they are (NaN payloads included), no kernel.
class CudaCopyCast final : public CudaPackedPrimitive<primitive::Cast> {
 public:
  explicit CudaCopyCast(DataType data_type)
      : CudaPackedPrimitive(CastName(data_type, data_type)),
        element_size_(DataTypeSize(data_type)) {}

 protected:
  cudaError_t LaunchKernel(const k::LaunchParams& params, int64_t count, const void* src, void* dst,
                           int* pack) const override {
    *pack = kCopied;
    return cudaMemcpyAsync(dst, src, static_cast<size_t>(count) * element_size_,
                           cudaMemcpyDeviceToDevice, params.stream);
  }

 private:
  size_t element_size_;
};

template <typename From, typename To>
class CudaCast final : public CudaPackedPrimitive<primitive::Cast> {
  using Src = CudaType<From>;
  using Dst = CudaType<To>;

 public:
  CudaCast() : CudaPackedPrimitive(CastName(kDataTypeOf<From>, kDataTypeOf<To>)) {}

 protected:
  cudaError_t LaunchKernel(const k::LaunchParams& params, int64_t count, const void* src, void* dst,
                           int* pack) const override {
    return k::LaunchElementwise(params, count, CastFunctor<Dst>(), static_cast<Dst*>(dst),
                                static_cast<const Src*>(src), pack);
  }
};

class CudaCastFactory final : public primitive::CastFactory {
 public:
  std::unique_ptr<primitive::Cast> New(DataType from, DataType to) override {
    if (from == to) {
      return std::make_unique<CudaCopyCast>(from);
    }
    return VisitDataType(from, [&](auto from_tag) {
      return VisitDataType(to, [&](auto to_tag) -> std::unique_ptr<primitive::Cast> {
        using F = typename decltype(from_tag)::type;
        using T = typename decltype(to_tag)::type;
        if constexpr (std::is_same_v<F, T>) {
          return nullptr;  // handled above; no kernel instantiated for it
        } else {
          return std::make_unique<CudaCast<F, T>>();
        }
      });
    });
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::CastFactory, CudaCastFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
