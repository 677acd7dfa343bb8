// CUDA Fill for every dtype: one grid-stride kernel per dtype, 64-bit indexing. The value is
// converted on the host exactly as the CPU fill converts it, so both devices store the same bits.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "ep/cuda/cuda_data_type.h"
#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/grid_size.h"
#include "oneflow_lite/primitive/fill.h"

namespace oflite {
namespace ep {
namespace {

// static_cast<T>(value), exactly as the CPU fill converts it: the half types go through the
// host float16/bfloat16 conversion (double rounded to odd, then to nearest even in 16 bits, NaN
// payload kept), whose bits then become the device type; cuda_fp16/cuda_bf16's own conversions
// agree except that they turn every NaN into one canonical NaN.
template <typename T>
CudaType<T> ConvertFillValue(double value) {
  const T converted = static_cast<T>(value);
  if constexpr (std::is_same_v<T, float16>) {
    __half_raw raw;
    raw.x = converted.bits;
    return __half(raw);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    __nv_bfloat16_raw raw;
    raw.x = converted.bits;
    return __nv_bfloat16(raw);
  } else {
    return converted;
  }
}

template <typename T>
__global__ void FillKernel(T* dst, T value, int64_t count) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    dst[i] = value;
  }
}

constexpr int kBlockSize = 256;

// Enough blocks for every element, but no more than GridSize allows.
int FillBlocks(const CudaDeviceProperties& properties, int64_t count) {
  return static_cast<int>(GridSize(properties.sm_count, properties.max_threads_per_sm, kBlockSize,
                                   (count + kBlockSize - 1) / kBlockSize));
}

template <typename T>
class CudaFill final : public primitive::Fill {
 public:
  std::string name() const override {
    return std::string("cuda.fill<") + DataTypeName(kDataTypeOf<T>) + ">";
  }

  Maybe<void> Launch(Stream* stream, void* dst, double value, size_t count) override {
    CudaStream* cuda_stream = nullptr;
    OFLITE_ASSIGN_OR_RETURN(cuda_stream, ActiveCudaStream(stream, *this));
    if (count == 0) {
      return Ok();
    }
    using Storage = CudaType<T>;
    const int64_t elements = static_cast<int64_t>(count);
    FillKernel<Storage><<<FillBlocks(cuda_stream->properties(), elements), kBlockSize, 0,
                          cuda_stream->cuda_stream()>>>(static_cast<Storage*>(dst),
                                                        ConvertFillValue<T>(value), elements);
    return CudaCheck(cudaGetLastError(), "fill kernel launch");
  }
};

class CudaFillFactory final : public primitive::FillFactory {
 public:
  std::unique_ptr<primitive::Fill> New(DataType data_type) override {
    return VisitDataType(data_type, [](auto tag) -> std::unique_ptr<primitive::Fill> {
      return std::make_unique<CudaFill<typename decltype(tag)::type>>();
    });
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::FillFactory, CudaFillFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
