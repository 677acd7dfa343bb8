// swiglu on CUDA: a plain kernel class that launches the example's own CUDA kernel on the
// stream the interpreter hands it, and the one place its cudaError_t becomes an oflite error.
#include "swiglu.h"
#include "swiglu_cuda.h"

namespace example {
namespace {

using oflite::KernelComputeContext;
using oflite::KernelMatchContext;
using oflite::Maybe;
using oflite::Tensor;

// The CUDA type of each host element type: oflite's float16 and bfloat16 share their layout
// with __half and __nv_bfloat16.
template <typename T>
struct CudaTypeOf {
  using type = T;
};
template <>
struct CudaTypeOf<oflite::float16> {
  using type = __half;
};
template <>
struct CudaTypeOf<oflite::bfloat16> {
  using type = __nv_bfloat16;
};

template <typename T>
cudaError_t Launch(cudaStream_t stream, const Tensor& x, const Tensor& gate, const Tensor& y) {
  using CudaT = typename CudaTypeOf<T>::type;
  return LaunchSwiglu(stream, static_cast<const CudaT*>(x.data()),
                      static_cast<const CudaT*>(gate.data()), static_cast<CudaT*>(y.mut_data()),
                      x.elem_cnt());
}

class SwigluCudaKernel final : public oflite::OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return ctx.device_type == oflite::DeviceType::kCUDA &&
           oflite::IsFloatingDataType(ctx.input_dtypes[0]);
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input(kSwigluX);
    const Tensor& gate = ctx->Input(kSwigluGate);
    const Tensor& y = ctx->Output(kSwigluY);
    void* native_stream = nullptr;  // the stream's device is current after this
    OFLITE_ASSIGN_OR_RETURN(native_stream, ctx->stream()->NativeHandle());
    const auto stream = static_cast<cudaStream_t>(native_stream);
    const cudaError_t status = oflite::VisitDataType(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (oflite::kIsFloatingType<T>) {
        return Launch<T>(stream, x, gate, y);
      } else {
        return cudaErrorInvalidValue;  // IsMatched let only floating dtypes through
      }
    });
    OFLITE_CHECK_OR_RETURN(status == cudaSuccess, DeviceError)
        << "swiglu: the CUDA launch failed: " << cudaGetErrorName(status) << ": "
        << cudaGetErrorString(status);
    ctx->NotePrimitive("example.cuda.swiglu<" + std::string(oflite::DataTypeName(x.dtype())) + ">");
    return oflite::Ok();
  }
};

OFLITE_REGISTER_KERNEL(kSwigluOp, SwigluCudaKernel);

}  // namespace
}  // namespace example
