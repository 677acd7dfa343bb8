// swiglu on the CPU: a plain kernel class, matched for the floating dtypes. 16-bit floats
// compute in float and round once when stored, as the built-in kernels do.
#include <cmath>
#include <type_traits>

#include "swiglu.h"

namespace example {
namespace {

using oflite::KernelComputeContext;
using oflite::KernelMatchContext;
using oflite::Maybe;
using oflite::Tensor;

template <typename T>
using ComputeType = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
void SwigluLoop(const T* x, const T* gate, T* y, int64_t n) {
  using C = ComputeType<T>;
  for (int64_t i = 0; i < n; ++i) {
    const C g = static_cast<C>(gate[i]);
    y[i] = static_cast<T>(static_cast<C>(x[i]) * g / (C(1) + std::exp(-g)));
  }
}

class SwigluCpuKernel final : public oflite::OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return ctx.device_type == oflite::DeviceType::kCPU &&
           oflite::IsFloatingDataType(ctx.input_dtypes[0]);
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input(kSwigluX);
    const Tensor& gate = ctx->Input(kSwigluGate);
    const Tensor& y = ctx->Output(kSwigluY);
    oflite::VisitDataType(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (oflite::kIsFloatingType<T>) {
        SwigluLoop(static_cast<const T*>(x.data()), static_cast<const T*>(gate.data()),
                   static_cast<T*>(y.mut_data()), x.elem_cnt());
      }
    });
    ctx->NotePrimitive("example.cpu.swiglu<" + std::string(oflite::DataTypeName(x.dtype())) + ">");
    return oflite::Ok();
  }
};

OFLITE_REGISTER_KERNEL(kSwigluOp, SwigluCpuKernel);

}  // namespace
}  // namespace example
