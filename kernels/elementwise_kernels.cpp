// Kernels of the elementwise ops: each builds one primitive (broadcast binary, unary or cast)
// for its op, dtypes and attrs, and launches it. Registered from the op lists, so every op
// type gets its kernel without a class per op.
#include <algorithm>
#include <string>
#include <utility>

#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/primitive/broadcast_elementwise_binary.h"
#include "oneflow_lite/primitive/cast.h"
#include "oneflow_lite/primitive/elementwise_unary.h"
#include "ops/elementwise_ops.h"

namespace oflite {
namespace kernels {
namespace {

using primitive::BinaryOp;
using primitive::UnaryOp;

bool IsTanhForm(const AttrMap& attrs) {
  auto form = attrs.Get<std::string>(ops::kApproximate);
  return form.ok() && form.value() == "tanh";
}

double Alpha(const AttrMap& attrs) {
  auto alpha = attrs.Get<double>(ops::kAlpha);
  return alpha.ok() ? alpha.value() : 0.0;
}

// The primitive op and attr an op type runs as: gelu's approximate picks the form.
std::pair<BinaryOp, double> Resolve(BinaryOp op, const AttrMap& attrs) {
  if (op == BinaryOp::kGeluGrad && IsTanhForm(attrs)) {
    return {BinaryOp::kGeluTanhGrad, 0.0};
  }
  return {op, op == BinaryOp::kLeakyReluGrad ? Alpha(attrs) : 0.0};
}

std::pair<UnaryOp, double> Resolve(UnaryOp op, const AttrMap& attrs) {
  if (op == UnaryOp::kGelu && IsTanhForm(attrs)) {
    return {UnaryOp::kGeluTanh, 0.0};
  }
  return {op, op == UnaryOp::kLeakyRelu ? Alpha(attrs) : 0.0};
}

class BinaryKernel final : public OpKernel {
 public:
  explicit BinaryKernel(BinaryOp op) : op_(op) {}

  // Ranks are not known at match time: 16 covers what providers index (a rank they cannot
  // handle is reported by Compute).
  std::unique_ptr<primitive::BroadcastElementwiseBinary> New(DeviceType device, DataType src,
                                                             DataType dst, size_t rank,
                                                             const AttrMap& attrs) const {
    const auto [op, attr] = Resolve(op_, attrs);
    return primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(device, op, src,
                                                                                 dst, rank, attr);
  }

  bool IsMatched(const KernelMatchContext& ctx) const {
    return New(ctx.device_type, ctx.input_dtypes[0], ctx.output_dtypes[0], 1, *ctx.attrs) !=
           nullptr;
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& a = ctx->InputAt(0);
    const Tensor& b = ctx->InputAt(1);
    const Tensor& out = ctx->OutputAt(0);
    if (binary_ == nullptr) {  // the ranks are this instance's signature's: make it once
      const size_t rank = static_cast<size_t>(std::max<int64_t>({a.rank(), b.rank(), 1}));
      binary_ = New(ctx->device_type(), a.dtype(), out.dtype(), rank, ctx->attrs());
      OFLITE_CHECK_OR_RETURN(binary_ != nullptr, NotImplemented)
          << primitive::BinaryOpName(op_) << ": no primitive on "
          << DeviceTypeName(ctx->device_type()) << " for " << a.dtype() << " at rank " << rank;
    }
    OFLITE_JUST(binary_->Launch(ctx->stream(), a.shape().dims().size(), a.shape().dims().data(),
                                a.data(), b.shape().dims().size(), b.shape().dims().data(),
                                b.data(), out.mut_data()));
    ctx->NotePrimitive(*binary_);
    return Ok();
  }

 private:
  BinaryOp op_;
  // Made by the first Compute: a kernel instance serves one call signature on one thread.
  mutable std::unique_ptr<primitive::BroadcastElementwiseBinary> binary_;
};

// The tensor-scalar forms: the same primitive, launched with the scalar from the attrs.
class ScalarBinaryKernel final : public OpKernel {
 public:
  explicit ScalarBinaryKernel(BinaryOp op) : op_(op) {}

  std::unique_ptr<primitive::BroadcastElementwiseBinary> New(DeviceType device, DataType src,
                                                             DataType dst) const {
    return primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(device, op_, src,
                                                                                 dst, 1, 0.0);
  }

  bool IsMatched(const KernelMatchContext& ctx) const {
    return New(ctx.device_type, ctx.input_dtypes[0], ctx.output_dtypes[0]) != nullptr;
  }

  Maybe<void> Init(const KernelMatchContext& ctx) override {
    binary_ = New(ctx.device_type, ctx.input_dtypes[0], ctx.output_dtypes[0]);
    OFLITE_CHECK_OR_RETURN(binary_ != nullptr, RuntimeError) << "matched kernel lost its primitive";
    const AttrMap& attrs = *ctx.attrs;
    bool has_float = false;
    OFLITE_ASSIGN_OR_RETURN(has_float, attrs.Get<bool>(ops::kScalarHasFloatOperand));
    OFLITE_ASSIGN_OR_RETURN(scalar_first_, attrs.Get<bool>(ops::kScalarFirst));
    if (has_float) {
      double value = 0;
      OFLITE_ASSIGN_OR_RETURN(value, attrs.Get<double>(ops::kScalarFloatOperand));
      scalar_ = Scalar(value);
    } else {
      int64_t value = 0;
      OFLITE_ASSIGN_OR_RETURN(value, attrs.Get<int64_t>(ops::kScalarIntOperand));
      scalar_ = Scalar(value);
    }
    return Ok();
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input(ops::kScalarX);
    const Tensor& y = ctx->Output(ops::kScalarY);
    OFLITE_JUST(binary_->LaunchWithScalar(ctx->stream(), scalar_, scalar_first_, x.data(),
                                          y.mut_data(), static_cast<size_t>(x.shape().elem_cnt())));
    ctx->NotePrimitive(*binary_);
    return Ok();
  }

 private:
  BinaryOp op_;
  std::unique_ptr<primitive::BroadcastElementwiseBinary> binary_;
  Scalar scalar_{0};
  bool scalar_first_ = false;
};

class UnaryKernel final : public OpKernel {
 public:
  explicit UnaryKernel(UnaryOp op) : op_(op) {}

  std::unique_ptr<primitive::ElementwiseUnary> New(DeviceType device, DataType dtype,
                                                   const AttrMap& attrs) const {
    const auto [op, attr] = Resolve(op_, attrs);
    return primitive::NewPrimitive<primitive::ElementwiseUnaryFactory>(device, op, dtype, attr);
  }

  bool IsMatched(const KernelMatchContext& ctx) const {
    return New(ctx.device_type, ctx.input_dtypes[0], *ctx.attrs) != nullptr;
  }

  Maybe<void> Init(const KernelMatchContext& ctx) override {
    unary_ = New(ctx.device_type, ctx.input_dtypes[0], *ctx.attrs);
    OFLITE_CHECK_OR_RETURN(unary_ != nullptr, RuntimeError) << "matched kernel lost its primitive";
    return Ok();
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->InputAt(0);
    const Tensor& y = ctx->OutputAt(0);
    OFLITE_JUST(unary_->Launch(ctx->stream(), x.data(), y.mut_data(),
                               static_cast<size_t>(x.shape().elem_cnt())));
    ctx->NotePrimitive(*unary_);
    return Ok();
  }

 private:
  UnaryOp op_;
  std::unique_ptr<primitive::ElementwiseUnary> unary_;
};

class CastKernel final : public OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return primitive::NewPrimitive<primitive::CastFactory>(ctx.device_type, ctx.input_dtypes[0],
                                                           ctx.output_dtypes[0]) != nullptr;
  }

  Maybe<void> Init(const KernelMatchContext& ctx) override {
    cast_ = primitive::NewPrimitive<primitive::CastFactory>(ctx.device_type, ctx.input_dtypes[0],
                                                            ctx.output_dtypes[0]);
    OFLITE_CHECK_OR_RETURN(cast_ != nullptr, RuntimeError) << "matched kernel lost its primitive";
    return Ok();
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input(ops::kCastX);
    const Tensor& y = ctx->Output(ops::kCastY);
    OFLITE_JUST(cast_->Launch(ctx->stream(), x.data(), y.mut_data(),
                              static_cast<size_t>(x.shape().elem_cnt())));
    ctx->NotePrimitive(*cast_);
    return Ok();
  }

 private:
  std::unique_ptr<primitive::Cast> cast_;
};

template <typename KernelT, typename Op>
void RegisterKernel(const std::string& op_type, const char* name, Op op) {
  auto probe = std::make_shared<const KernelT>(op);  // answers IsMatched
  KernelRegistry::Global().Register(
      {op_type, name, [probe](const KernelMatchContext& ctx) { return probe->IsMatched(ctx); },
       [op] { return std::unique_ptr<OpKernel>(new KernelT(op)); }});
}

const bool kElementwiseKernelsRegistered = [] {
  for (BinaryOp op : ops::BinaryOpTypes()) {
    RegisterKernel<BinaryKernel>(primitive::BinaryOpName(op), "BroadcastElementwiseBinaryKernel",
                                 op);
    if (!ops::IsGradOp(op)) {
      RegisterKernel<ScalarBinaryKernel>(ops::ScalarOpType(op), "ScalarBinaryKernel", op);
    }
  }
  for (UnaryOp op : ops::UnaryOpTypes()) {
    RegisterKernel<UnaryKernel>(primitive::UnaryOpName(op), "ElementwiseUnaryKernel", op);
  }
  return true;
}();

OFLITE_REGISTER_KERNEL(ops::kCastOp, CastKernel);

}  // namespace
}  // namespace kernels
}  // namespace oflite
