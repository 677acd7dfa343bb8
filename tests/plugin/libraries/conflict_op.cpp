// An op library for the plugin tests that registers what it may not: an op named softmax (an op
// library's op needs a namespace), a kernel named as the built-in softmax kernel, beside an op,
// kernel, test spec and primitive factory of its own. Loading it must fail naming both and keep
// none of it.
#include "oneflow_lite/oneflow_lite.h"

namespace {

using namespace oflite;  // NOLINT: a test library

constexpr const char* kExtraOp = "plugin.conflict_extra";

OFLITE_REGISTER_OP("softmax").Input("logits").Output("probs");
OFLITE_REGISTER_OP(kExtraOp).Input("x").Output("y").SetInferFn(InferSameAsInput("x", "y"));

class ExtraKernel final : public OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return ctx.device_type == DeviceType::kCPU;
  }
  Maybe<void> Compute(KernelComputeContext*) const override { return Ok(); }
};
using SoftmaxKernel = ExtraKernel;  // the name the built-in softmax kernel registered

OFLITE_REGISTER_KERNEL(kExtraOp, ExtraKernel);
OFLITE_REGISTER_KERNEL("softmax", SoftmaxKernel);

OpTestSpec ExtraSpec() {
  OpTestSpec spec;
  spec.dtypes = {DataType::kFloat32};
  return spec;
}
OFLITE_REGISTER_OP_TEST(kExtraOp, ExtraSpec());

class ProbePrimitive : public primitive::Primitive {
 public:
  std::string name() const override { return "probe"; }
};
class ProbeFactory : public primitive::Factory<ProbePrimitive> {
 public:
  static constexpr const char* kName = "plugin_conflict_probe";
  std::unique_ptr<ProbePrimitive> New() override { return std::make_unique<ProbePrimitive>(); }
};
OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, ProbeFactory, ProbeFactory);

}  // namespace

OFLITE_OP_LIBRARY();
