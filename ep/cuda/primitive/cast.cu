// CUDA Cast for every pair of dtypes: elementwise.cuh's packed kernel over CastFunctor, two
// kernels per pair (16-byte packs of the wider type, and pack 1 for unaligned pointers); a
// cast to the same dtype is a device-to-device copy. Values convert as the CPU cast does
// (primitive/elementwise_functors.h, CastValue): to integers NaN gives 0, out-of-range values
// saturate, the rest truncate; to bool x != 0; 16-bit destinations round to nearest even once,
// from the source value itself (float sources from float, float64 and integers from double).

#include <memory>
#include <string>
#include <type_traits>

#include "ep/cuda/cuda_data_type.h"
#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/primitive/elementwise.cuh"
#include "primitive/cast.h"
#include "primitive/elementwise_functors.h"

namespace oflite {
namespace ep {
namespace {

namespace k = elementwise_kernels;

// The value to store for compute value v: for a 16-bit destination v itself, which
// k::FromCompute rounds once (from float, or from double for float64 and integer sources);
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

// Everything that does not depend on the dtypes, compiled once.
class CudaCastBase : public primitive::Cast {
 public:
  CudaCastBase(DataType from, DataType to) : from_(from), to_(to) {}

  // "cuda.cast<float32,float16>"
  std::string name() const override {
    return std::string("cuda.cast<") + DataTypeName(from_) + "," + DataTypeName(to_) + ">";
  }
  // "...[pack=4]" after a launch (pack=1: unaligned pointers), "...[copy]" for a cast to the
  // same dtype; the name before any launch or after a launch of nothing.
  std::string LaunchDescription() const override {
    if (last_pack_ == 0) {
      return name();
    }
    return name() + (from_ == to_ ? "[copy]" : "[pack=" + std::to_string(last_pack_) + "]");
  }

  Maybe<void> Launch(Stream* stream, const void* src, void* dst, size_t count) final {
    last_pack_ = 0;
    CudaStream* cuda_stream = nullptr;
    OFLITE_ASSIGN_OR_RETURN(cuda_stream, ActiveCudaStream(stream, name()));
    if (count == 0) {
      return Ok();
    }
    if (from_ == to_) {  // the bits as they are, NaN payloads included
      OFLITE_JUST(CudaCheck(cudaMemcpyAsync(dst, src, count * DataTypeSize(from_),
                                            cudaMemcpyDeviceToDevice, cuda_stream->cuda_stream()),
                            "cast: cudaMemcpyAsync"));
      last_pack_ = 1;
      return Ok();
    }
    const CudaDeviceProperties& properties = cuda_stream->properties();
    const k::LaunchParams params{cuda_stream->cuda_stream(), properties.sm_count,
                                 properties.max_threads_per_sm};
    int pack = 0;
    OFLITE_JUST(CudaCheck(LaunchKernel(params, static_cast<int64_t>(count), src, dst, &pack),
                          "cast kernel launch"));
    last_pack_ = pack;
    return Ok();
  }

 protected:
  virtual cudaError_t LaunchKernel(const k::LaunchParams& params, int64_t count, const void* src,
                                   void* dst, int* pack) const = 0;

 private:
  DataType from_, to_;
  int last_pack_ = 0;
};

// A cast to the same dtype: the copy in the base class, no kernel.
class CudaCopyCast final : public CudaCastBase {
 public:
  explicit CudaCopyCast(DataType data_type) : CudaCastBase(data_type, data_type) {}

 protected:
  cudaError_t LaunchKernel(const k::LaunchParams&, int64_t, const void*, void*,
                           int*) const override {
    return cudaErrorInvalidValue;  // never called
  }
};

template <typename From, typename To>
class CudaCast final : public CudaCastBase {
  using Src = CudaType<From>;
  using Dst = CudaType<To>;

 public:
  CudaCast() : CudaCastBase(kDataTypeOf<From>, kDataTypeOf<To>) {}

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
