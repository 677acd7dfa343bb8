// An op library for the plugin tests whose op reuses a built-in's short name: OFLITE_TEST_PLUGIN_OP
// ("plugin.softmax") is softmax(x / temperature) over the last axis, for float32 and float64 on
// the CPU. It lives beside the built-in softmax; each is reached by its own name.
#include <algorithm>
#include <cmath>

#include "oneflow_lite/oneflow_lite.h"

namespace {

using namespace oflite;  // NOLINT: a test library

constexpr const char* kOp = OFLITE_TEST_PLUGIN_OP;

Maybe<void> InferShadowSoftmax(InferContext* ctx) {
  OFLITE_CHECK_OR_RETURN(ctx->Input("x").shape.rank() >= 1, ValueError)
      << ctx->op_type() << ": x must have at least one axis, got " << ctx->Input("x").shape;
  *ctx->MutOutput("y") = ctx->Input("x");
  return Ok();
}

Maybe<std::vector<SbpSignature>> ShadowSoftmaxSbp(const InferContext& ctx) {
  std::vector<SbpSignature> signatures;
  for (int64_t axis = 0; axis + 1 < ctx.Input("x").shape.rank(); ++axis) {
    signatures.push_back(SbpBuilder().Split({"x", "y"}, axis).Build());
  }
  signatures.push_back(SbpBuilder().Broadcast({"x", "y"}).Build());
  return signatures;
}

OFLITE_REGISTER_OP(std::string(kOp) + "(Tensor x, double temperature=1.0) -> Tensor y")
    .SetInferFn(InferShadowSoftmax)
    .SetSbpFn(ShadowSoftmaxSbp);

// Softmax of each row of `cols` values divided by t, in double, written as T.
template <typename In, typename Out>
void SoftmaxRows(const In* x, Out* y, int64_t rows, int64_t cols, double t) {
  for (int64_t r = 0; r < rows; ++r) {
    const In* row = x + r * cols;
    double max = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) {
      max = std::max(max, static_cast<double>(row[c]) / t);
    }
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      sum += std::exp(static_cast<double>(row[c]) / t - max);
    }
    for (int64_t c = 0; c < cols; ++c) {
      y[r * cols + c] = static_cast<Out>(std::exp(static_cast<double>(row[c]) / t - max) / sum);
    }
  }
}

class ShadowSoftmaxKernel final : public OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return ctx.device_type == DeviceType::kCPU &&
           (ctx.input_dtypes[0] == DataType::kFloat32 || ctx.input_dtypes[0] == DataType::kFloat64);
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    double t = 0;
    OFLITE_ASSIGN_OR_RETURN(t, ctx->attrs().Get<double>("temperature"));
    const Tensor& x = ctx->Input("x");
    const Tensor& y = ctx->Output("y");
    const int64_t cols = x.shape().dims().back();
    const int64_t rows = cols == 0 ? 0 : x.elem_cnt() / cols;
    if (x.dtype() == DataType::kFloat32) {
      SoftmaxRows(static_cast<const float*>(x.data()), static_cast<float*>(y.mut_data()), rows,
                  cols, t);
    } else {
      SoftmaxRows(static_cast<const double*>(x.data()), static_cast<double*>(y.mut_data()), rows,
                  cols, t);
    }
    return Ok();
  }
};

OFLITE_REGISTER_KERNEL(kOp, ShadowSoftmaxKernel);

OpTestSpec ShadowSoftmaxSpec() {
  OpTestSpec spec;
  spec.dtypes = {DataType::kFloat32, DataType::kFloat64};
  spec.generate = [](DataType dtype, CaseRng& rng) {
    return OpCase{{RandomHostTensor(rng, rng.RandomShape(1, 3, 1, 6), dtype)},
                  {{"temperature", rng.Uniform(0.5, 3.0)}}};
  };
  spec.reference = [](const OpCase& c) -> Maybe<std::vector<HostTensor>> {
    double t = 0;
    OFLITE_ASSIGN_OR_RETURN(t, c.attrs.Get<double>("temperature"));
    HostTensor y = c.inputs[0];
    const int64_t cols = y.shape.dims().back();
    SoftmaxRows(c.inputs[0].values.data(), y.values.data(),
                static_cast<int64_t>(y.values.size()) / cols, cols, t);
    return std::vector<HostTensor>{y};
  };
  spec.invalid = [](DataType dtype, CaseRng& rng) {
    return std::vector<InvalidCase>{
        {"a scalar", {RandomHostTensor(rng, Shape{}, dtype)}, {}, ErrorKind::kValueError}};
  };
  return spec;
}

OFLITE_REGISTER_OP_TEST(kOp, ShadowSoftmaxSpec());

}  // namespace

OFLITE_OP_LIBRARY();
