// The transpose kernel: one Permute primitive call.
#include <vector>

#include "oneflow_lite/framework/op_kernel.h"
#include "ops/transpose_ops.h"
#include "primitive/permute.h"

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

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input(ops::kTransposeX);
    const Tensor& y = ctx->Output(ops::kTransposeY);
    std::vector<int64_t> perm;
    OFLITE_ASSIGN_OR_RETURN(perm, ctx->attrs().Get<std::vector<int64_t>>(ops::kTransposePerm));
    auto permute = primitive::NewPrimitive<primitive::PermuteFactory>(ctx->device_type(), x.dtype(),
                                                                      perm.size());
    OFLITE_CHECK_OR_RETURN(permute != nullptr, NotImplemented)
        << "transpose: no permute primitive on " << DeviceTypeName(ctx->device_type()) << " for "
        << x.dtype() << " at rank " << perm.size();
    OFLITE_JUST(permute->Launch(ctx->stream(), perm.size(), x.shape().dims().data(), x.data(),
                                perm.data(), y.mut_data()));
    ctx->NotePrimitive(permute->LaunchDescription());
    return Ok();
  }
};

OFLITE_REGISTER_KERNEL(ops::kTransposeOp, TransposeKernel);

}  // namespace
}  // namespace kernels
}  // namespace oflite
