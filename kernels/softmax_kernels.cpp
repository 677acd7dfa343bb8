// Kernels for softmax, log_softmax and their grads: one template per direction, matched on
// any device whose provider has the primitive for the dtype.
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/primitive/softmax.h"
#include "oneflow_lite/primitive/softmax_backward.h"
#include "ops/softmax_ops.h"

namespace oflite {
namespace kernels {
namespace {

using primitive::SoftmaxAlgorithm;

// The op works on the last axis: a rank-0 tensor is one row of one element.
size_t Cols(const Shape& shape) { return shape.rank() == 0 ? 1 : shape[shape.rank() - 1]; }
size_t Rows(const Shape& shape) { return shape.rank() == 0 ? 1 : shape.Count(0, shape.rank() - 1); }

template <typename FactoryT>
bool HasPrimitive(const KernelMatchContext& ctx) {
  return primitive::NewPrimitive<FactoryT>(ctx.device_type, ctx.input_dtypes[0]) != nullptr;
}

// The primitive for the kernel's dtype, made once per kernel instance.
template <typename FactoryT>
Maybe<std::unique_ptr<typename FactoryT::PrimitiveType>> MakePrimitive(
    const KernelMatchContext& ctx) {
  auto primitive = primitive::NewPrimitive<FactoryT>(ctx.device_type, ctx.input_dtypes[0]);
  OFLITE_CHECK_OR_RETURN(primitive != nullptr, RuntimeError) << "matched kernel lost its primitive";
  return primitive;
}

template <SoftmaxAlgorithm kAlgorithm>
class SoftmaxKernelImpl final : public OpKernel {
 public:
  using FactoryT = primitive::SoftmaxBaseFactory<kAlgorithm>;
  static bool IsMatched(const KernelMatchContext& ctx) { return HasPrimitive<FactoryT>(ctx); }

  Maybe<void> Init(const KernelMatchContext& ctx) override {
    OFLITE_ASSIGN_OR_RETURN(softmax_, MakePrimitive<FactoryT>(ctx));
    return Ok();
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input(ops::kSoftmaxX);
    const Tensor& y = ctx->Output(ops::kSoftmaxY);
    OFLITE_JUST(
        softmax_->Launch(ctx->stream(), Rows(x.shape()), Cols(x.shape()), x.data(), y.mut_data()));
    ctx->NotePrimitive(*softmax_);
    return Ok();
  }

 private:
  std::unique_ptr<typename FactoryT::PrimitiveType> softmax_;
};

template <SoftmaxAlgorithm kAlgorithm>
class SoftmaxGradKernelImpl final : public OpKernel {
 public:
  using FactoryT = primitive::SoftmaxBackwardBaseFactory<kAlgorithm>;
  static bool IsMatched(const KernelMatchContext& ctx) { return HasPrimitive<FactoryT>(ctx); }

  Maybe<void> Init(const KernelMatchContext& ctx) override {
    OFLITE_ASSIGN_OR_RETURN(backward_, MakePrimitive<FactoryT>(ctx));
    return Ok();
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& y = ctx->Input(ops::kSoftmaxY);
    const Tensor& dy = ctx->Input(ops::kSoftmaxDy);
    const Tensor& dx = ctx->Output(ops::kSoftmaxDx);
    OFLITE_JUST(backward_->Launch(ctx->stream(), Rows(y.shape()), Cols(y.shape()), y.data(),
                                  dy.data(), dx.mut_data()));
    ctx->NotePrimitive(*backward_);
    return Ok();
  }

 private:
  std::unique_ptr<typename FactoryT::PrimitiveType> backward_;
};

using SoftmaxKernel = SoftmaxKernelImpl<SoftmaxAlgorithm::kSoftmax>;
using LogSoftmaxKernel = SoftmaxKernelImpl<SoftmaxAlgorithm::kLogSoftmax>;
using SoftmaxGradKernel = SoftmaxGradKernelImpl<SoftmaxAlgorithm::kSoftmax>;
using LogSoftmaxGradKernel = SoftmaxGradKernelImpl<SoftmaxAlgorithm::kLogSoftmax>;

OFLITE_REGISTER_KERNEL(ops::kSoftmaxOp, SoftmaxKernel);
OFLITE_REGISTER_KERNEL(ops::kLogSoftmaxOp, LogSoftmaxKernel);
OFLITE_REGISTER_KERNEL(ops::kSoftmaxGradOp, SoftmaxGradKernel);
OFLITE_REGISTER_KERNEL(ops::kLogSoftmaxGradOp, LogSoftmaxGradKernel);

}  // namespace
}  // namespace kernels
}  // namespace oflite
