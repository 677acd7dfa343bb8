// A small op library for the plugin tests: op OFLITE_TEST_PLUGIN_OP, declared by its
// signature, y = factor * x for float32 and float64 on the CPU, with a kernel and a test spec.
// tests/plugin/plugins.cmake builds it several times: as a good library, as a rival registering the
// same op under another file name, without the entry symbol (OFLITE_TEST_PLUGIN_NO_ENTRY) and
// claiming another version (OFLITE_TEST_PLUGIN_VERSION).
#include "oneflow_lite/oneflow_lite.h"

namespace {

using namespace oflite;  // NOLINT: a test library

constexpr const char* kOp = OFLITE_TEST_PLUGIN_OP;

Maybe<std::vector<SbpSignature>> ScaleSbp(const InferContext& ctx) {
  std::vector<SbpSignature> signatures;
  for (int64_t axis = 0; axis < ctx.Input("x").shape.rank(); ++axis) {
    signatures.push_back(SbpBuilder().Split({"x", "y"}, axis).Build());
  }
  signatures.push_back(SbpBuilder().Broadcast({"x", "y"}).Build());
  signatures.push_back(SbpBuilder().PartialSum({"x", "y"}).Build());  // linear in x
  return signatures;
}

OFLITE_REGISTER_OP(std::string(kOp) + "(Tensor x, double factor=2.0) -> Tensor y")
    .SetInferFn(InferSameAsInput("x", "y"))
    .SetSbpFn(ScaleSbp);

class ScaleKernel final : public OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return ctx.device_type == DeviceType::kCPU &&
           (ctx.input_dtypes[0] == DataType::kFloat32 || ctx.input_dtypes[0] == DataType::kFloat64);
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    double factor = 0;
    OFLITE_ASSIGN_OR_RETURN(factor, ctx->attrs().Get<double>("factor"));
    const Tensor& x = ctx->Input("x");
    if (x.dtype() == DataType::kFloat32) {
      Scale(static_cast<const float*>(x.data()), factor, ctx->Output("y"));
    } else {
      Scale(static_cast<const double*>(x.data()), factor, ctx->Output("y"));
    }
    return Ok();
  }

 private:
  template <typename T>
  static void Scale(const T* x, double factor, const Tensor& y) {
    T* out = static_cast<T*>(y.mut_data());
    for (int64_t i = 0; i < y.elem_cnt(); ++i) {
      out[i] = static_cast<T>(factor * x[i]);
    }
  }
};

OFLITE_REGISTER_KERNEL(kOp, ScaleKernel);

OpTestSpec ScaleSpec() {
  OpTestSpec spec;
  spec.dtypes = {DataType::kFloat32, DataType::kFloat64};
  spec.generate = [](DataType dtype, CaseRng& rng) {
    return OpCase{{RandomHostTensor(rng, rng.RandomShape(0, 3, 1, 6), dtype)},
                  {{"factor", rng.Uniform(-3.0, 3.0)}}};
  };
  spec.reference = [](const OpCase& c) -> Maybe<std::vector<HostTensor>> {
    double factor = 0;
    OFLITE_ASSIGN_OR_RETURN(factor, c.attrs.Get<double>("factor"));
    HostTensor y = c.inputs[0];
    for (double& v : y.values) {
      v *= factor;
    }
    return std::vector<HostTensor>{y};
  };
  spec.invalid = [](DataType dtype, CaseRng& rng) {
    const HostTensor x = RandomHostTensor(rng, Shape{2, 3}, dtype);
    return std::vector<InvalidCase>{
        {"factor of another type", {x}, {{"factor", "2"}}, ErrorKind::kTypeError},
        {"two inputs", {x, x}, {}, ErrorKind::kValueError},
    };
  };
  return spec;
}

OFLITE_REGISTER_OP_TEST(kOp, ScaleSpec());

}  // namespace

#if defined(OFLITE_TEST_PLUGIN_VERSION)
extern "C" const char* oflite_op_library_version() { return OFLITE_TEST_PLUGIN_VERSION; }
#elif !defined(OFLITE_TEST_PLUGIN_NO_ENTRY)
OFLITE_OP_LIBRARY();
#endif
