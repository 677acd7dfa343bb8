// The transpose kernel: one Permute primitive call.
#include <vector>

#include "oneflow_lite/framework/op_kernel.h"
#include "ops/transpose_ops.h"
#include "primitive/permute.h"

namespace oflite {
namespace kernels {
namespace {

// Ranks the kernel accepts; the CPU primitive has no limit, the CUDA one will have.
constexpr size_t kMaxPermuteRank = 16;

class TransposeKernel final : public OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return primitive::NewPrimitive<primitive::PermuteFactory>(ctx.device_type, ctx.input_dtypes[0],
                                                              kMaxPermuteRank) != nullptr;
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input(ops::kTransposeX);
    const Tensor& y = ctx->Output(ops::kTransposeY);
    std::vector<int64_t> perm;
    OFLITE_ASSIGN_OR_RETURN(perm, ctx->attrs().Get<std::vector<int64_t>>(ops::kTransposePerm));
    OFLITE_CHECK_OR_RETURN(perm.size() <= kMaxPermuteRank, NotImplemented)
        << "transpose: rank " << perm.size() << " exceeds the supported " << kMaxPermuteRank;
    auto permute = primitive::NewPrimitive<primitive::PermuteFactory>(ctx->device_type(), x.dtype(),
                                                                      perm.size());
    CHECK(permute != nullptr) << "matched kernel lost its primitive";
    ctx->NotePrimitive(permute->name());
    return permute->Launch(ctx->stream(), perm.size(), x.shape().dims().data(), x.data(),
                           perm.data(), y.mut_data());
  }
};

OFLITE_REGISTER_KERNEL(ops::kTransposeOp, TransposeKernel);

}  // namespace
}  // namespace kernels
}  // namespace oflite
