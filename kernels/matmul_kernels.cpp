// Kernels of matmul, batch_matmul and fused_matmul_bias_act: one BatchMatmul primitive per
// call, for the dtype and the transposes in the attrs, matched on any device whose provider has
// it (the fused op through its LaunchBiasAct).
#include <memory>
#include <string>
#include <vector>

#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/primitive/batch_matmul.h"
#include "ops/matmul_ops.h"

namespace oflite {
namespace kernels {
namespace {

bool BoolAttr(const AttrMap& attrs, const char* name) {
  auto value = attrs.Get<bool>(name);
  return value.ok() && value.value();
}

std::unique_ptr<primitive::BatchMatmul> NewBatchMatmul(DeviceType device, DataType dtype,
                                                       const AttrMap& attrs) {
  return primitive::NewPrimitive<primitive::BatchMatmulFactory>(
      device, dtype, BoolAttr(attrs, ops::kMatmulTransposeA),
      BoolAttr(attrs, ops::kMatmulTransposeB));
}

bool HasBatchMatmul(const KernelMatchContext& ctx) {
  return NewBatchMatmul(ctx.device_type, ctx.input_dtypes[0], *ctx.attrs) != nullptr;
}

// The problem both kernels hand the primitive: out is (.., m, n), k is out's inner dim.
struct MatrixDims {
  size_t m, n, k;
};

MatrixDims DimsOf(const Tensor& a, const Tensor& out, bool transpose_a) {
  const Shape& sa = a.shape();
  const Shape& so = out.shape();
  return {static_cast<size_t>(so[so.rank() - 2]), static_cast<size_t>(so[so.rank() - 1]),
          static_cast<size_t>(sa[sa.rank() - (transpose_a ? 2 : 1)])};
}

// What the three kernels make once per instance: the primitive for the dtype and transposes.
class GemmKernelBase : public OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) { return HasBatchMatmul(ctx); }

  Maybe<void> Init(const KernelMatchContext& ctx) override {
    primitive_ = NewBatchMatmul(ctx.device_type, ctx.input_dtypes[0], *ctx.attrs);
    OFLITE_CHECK_OR_RETURN(primitive_ != nullptr, RuntimeError)
        << "matched kernel lost its primitive";
    transpose_a_ = BoolAttr(*ctx.attrs, ops::kMatmulTransposeA);
    return Ok();
  }

 protected:
  MatrixDims Dims(KernelComputeContext* ctx) const {
    return DimsOf(ctx->Input(ops::kMatmulA), ctx->Output(ops::kMatmulOut), transpose_a_);
  }

  std::unique_ptr<primitive::BatchMatmul> primitive_;
  bool transpose_a_ = false;
};

// matmul and batch_matmul: alpha * op(a) @ op(b).
class ScaledGemmKernel : public GemmKernelBase {
 public:
  Maybe<void> Init(const KernelMatchContext& ctx) override {
    OFLITE_JUST(GemmKernelBase::Init(ctx));
    OFLITE_ASSIGN_OR_RETURN(alpha_, ctx.attrs->Get<double>(ops::kMatmulAlpha));
    return Ok();
  }

 protected:
  double alpha_ = 1;
};

class MatmulKernel final : public ScaledGemmKernel {
 public:
  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const auto [m, n, k] = Dims(ctx);
    OFLITE_JUST(primitive_->Launch(
        ctx->stream(), 1, m, n, k, alpha_, ctx->Input(ops::kMatmulA).data(), 0,
        ctx->Input(ops::kMatmulB).data(), 0, 0.0, ctx->Output(ops::kMatmulOut).mut_data(), 0));
    ctx->NotePrimitive(*primitive_);
    return Ok();
  }
};

// Batch dims broadcast: an operand whose batch holds as many matrices as out's (its batch shape
// is out's, up to leading 1s) steps one matrix per problem; one with a single matrix repeats it
// (stride 0). When both are one of those, one strided launch does all; otherwise each output
// matrix is a launch of its own, with each operand's matrix found from the broadcast index.
class BatchMatmulKernel final : public ScaledGemmKernel {
 public:
  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& a = ctx->Input(ops::kMatmulA);
    const Tensor& b = ctx->Input(ops::kMatmulB);
    const Tensor& out = ctx->Output(ops::kMatmulOut);
    if (out.shape().elem_cnt() == 0) {  // its batch may still count 2^62 empty matrices
      return Ok();
    }
    const auto [m, n, k] = Dims(ctx);
    const Shape& so = out.shape();
    const int64_t batch = so.Count(0, so.rank() - 2);
    const int64_t batch_a = a.shape().Count(0, a.rank() - 2);
    const int64_t batch_b = b.shape().Count(0, b.rank() - 2);
    const int64_t size_a = static_cast<int64_t>(m * k), size_b = static_cast<int64_t>(k * n);
    const int64_t size_c = static_cast<int64_t>(m * n);
    const size_t esize = DataTypeSize(a.dtype());
    if ((batch_a == batch || batch_a == 1) && (batch_b == batch || batch_b == 1)) {
      OFLITE_JUST(primitive_->Launch(ctx->stream(), static_cast<size_t>(batch), m, n, k, alpha_,
                                     a.data(), batch_a == 1 ? 0 : size_a, b.data(),
                                     batch_b == 1 ? 0 : size_b, 0.0, out.mut_data(), size_c));
    } else {
      const char* a_bytes = static_cast<const char*>(a.data());
      const char* b_bytes = static_cast<const char*>(b.data());
      char* c_bytes = static_cast<char*>(out.mut_data());
      for (int64_t i = 0; i < batch; ++i) {
        const int64_t ia = OperandBatchIndex(i, so, a.shape());
        const int64_t ib = OperandBatchIndex(i, so, b.shape());
        OFLITE_JUST(primitive_->Launch(
            ctx->stream(), 1, m, n, k, alpha_, a_bytes + ia * size_a * esize, 0,
            b_bytes + ib * size_b * esize, 0, 0.0, c_bytes + i * size_c * esize, 0));
      }
    }
    ctx->NotePrimitive(*primitive_);
    return Ok();
  }

 private:
  // The matrix of an operand (shape (.., r, c)) that output matrix `flat` of out (batch dims
  // aligned from the right) reads: a dim of size 1 or missing repeats.
  static int64_t OperandBatchIndex(int64_t flat, const Shape& out, const Shape& operand) {
    int64_t index = 0, stride = 1;
    for (int64_t i = out.rank() - 3, j = operand.rank() - 3; i >= 0; --i, --j) {
      const int64_t coord = flat % out[i];
      flat /= out[i];
      if (j >= 0) {
        index += (operand[j] == 1 ? 0 : coord) * stride;
        stride *= operand[j];
      }
    }
    return index;
  }
};

// act(op(a) @ op(b) + bias) in one LaunchBiasAct; the op has checked the activation's name.
class FusedMatmulBiasActKernel final : public GemmKernelBase {
 public:
  Maybe<void> Init(const KernelMatchContext& ctx) override {
    OFLITE_JUST(GemmKernelBase::Init(ctx));
    std::string name;
    OFLITE_ASSIGN_OR_RETURN(name, ctx.attrs->Get<std::string>(ops::kFusedMatmulActivation));
    OFLITE_ASSIGN_OR_RETURN(activation_, ActivationOf(name));
    OFLITE_ASSIGN_OR_RETURN(leaky_alpha_, ctx.attrs->Get<double>(ops::kFusedMatmulLeakyAlpha));
    return Ok();
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const auto [m, n, k] = Dims(ctx);
    OFLITE_JUST(primitive_->LaunchBiasAct(ctx->stream(), m, n, k, ctx->Input(ops::kMatmulA).data(),
                                          ctx->Input(ops::kMatmulB).data(),
                                          ctx->Input(ops::kFusedMatmulBias).data(), activation_,
                                          leaky_alpha_, ctx->Output(ops::kMatmulOut).mut_data()));
    ctx->NotePrimitive(*primitive_);
    return Ok();
  }

 private:
  primitive::BiasActivation activation_ = primitive::BiasActivation::kNone;
  double leaky_alpha_ = 0;

  static Maybe<primitive::BiasActivation> ActivationOf(const std::string& name) {
    using primitive::BiasActivation;
    if (name == "none") return BiasActivation::kNone;
    if (name == "relu") return BiasActivation::kRelu;
    if (name == "gelu") return BiasActivation::kGelu;
    if (name == "gelu_tanh") return BiasActivation::kGeluTanh;
    if (name == "leaky_relu") return BiasActivation::kLeakyRelu;
    return OFLITE_ERROR(ValueError)
           << ops::kFusedMatmulBiasActOp << ": unknown activation \"" << name << "\"";
  }
};

OFLITE_REGISTER_KERNEL(ops::kMatmulOp, MatmulKernel);
OFLITE_REGISTER_KERNEL(ops::kBatchMatmulOp, BatchMatmulKernel);
OFLITE_REGISTER_KERNEL(ops::kFusedMatmulBiasActOp, FusedMatmulBiasActKernel);

}  // namespace
}  // namespace kernels
}  // namespace oflite
