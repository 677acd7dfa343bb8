// The transpose kernel: one Permute primitive call.
#include <vector>

#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/primitive/permute.h"
#include "ops/transpose_ops.h"

namespace oflite {
namespace kernels {
namespace {

class TransposeKernel final : public OpKernel {
 public:
  // The match sees dtypes, not ranks: a rank the device cannot permute is reported by Compute.
  static bool IsMatched(const KernelMatchContext& ctx) {
    return primitive::NewPrimitive<primitive::PermuteFactory>(ctx.device_type, ctx.input_dtypes[0],
                                                              /*max_num_dims=*/1) != nullptr;
  }

  Maybe<void> Init(const KernelMatchContext& ctx) override {
    OFLITE_ASSIGN_OR_RETURN(perm_, ctx.attrs->Get<std::vector<int64_t>>(ops::kTransposePerm));
    const DataType dtype = ctx.input_dtypes[0];
    permute_ =
        primitive::NewPrimitive<primitive::PermuteFactory>(ctx.device_type, dtype, perm_.size());
    OFLITE_CHECK_OR_RETURN(permute_ != nullptr, NotImplemented)
        << "transpose: no permute primitive on " << DeviceTypeName(ctx.device_type) << " for "
        << dtype << " at rank " << perm_.size();
    return Ok();
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input(ops::kTransposeX);
    const Tensor& y = ctx->Output(ops::kTransposeY);
    OFLITE_JUST(permute_->Launch(ctx->stream(), perm_.size(), x.shape().dims().data(), x.data(),
                                 perm_.data(), y.mut_data()));
    ctx->NotePrimitive(*permute_);
    return Ok();
  }

 private:
  std::vector<int64_t> perm_;
  std::unique_ptr<primitive::Permute> permute_;
};

OFLITE_REGISTER_KERNEL(ops::kTransposeOp, TransposeKernel);

}  // namespace
}  // namespace kernels
}  // namespace oflite
