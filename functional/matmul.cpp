// MatMul with torch.matmul's rules on top of the matmul and batch_matmul ops: 1-D operands are
// viewed as a row (left) or a column (right) matrix and that dim is dropped from the result;
// two matrices go to matmul, anything with batch dims to batch_matmul (which broadcasts them).
// Linear is x @ w^T + bias followed by an activation: with a bias one fused_matmul_bias_act on x
// viewed as a matrix; without, MatMul and the elementwise activation.
#include <string>
#include <vector>

#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/functional/functional.h"
#include "ops/matmul_ops.h"

namespace oflite {
namespace functional {
namespace {

Maybe<void> CheckDefined(const char* call, const char* arg, const Tensor& t) {
  OFLITE_CHECK_OR_RETURN(t.defined(), ValueError) << call << ": " << arg << " is undefined";
  return Ok();
}

// The inner (contracted) dim of each operand as the user gave it.
int64_t InnerDimOfA(const Tensor& a, bool transpose_a) {
  return a.rank() == 1 ? a.shape()[0] : a.shape()[a.rank() - (transpose_a ? 2 : 1)];
}
int64_t InnerDimOfB(const Tensor& b, bool transpose_b) {
  return b.rank() == 1 ? b.shape()[0] : b.shape()[b.rank() - (transpose_b ? 1 : 2)];
}

}  // namespace

Maybe<Tensor> MatMul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b,
                     double alpha) {
  OFLITE_JUST(CheckDefined("matmul", "a", a));
  OFLITE_JUST(CheckDefined("matmul", "b", b));
  OFLITE_CHECK_OR_RETURN(a.rank() >= 1 && b.rank() >= 1, ValueError)
      << "matmul: both arguments to matmul need to be at least 1-D, but a has rank " << a.rank()
      << " and b has rank " << b.rank();
  OFLITE_CHECK_OR_RETURN(!(transpose_a && a.rank() == 1), ValueError)
      << "matmul: transpose_a swaps the last two dims and needs a of rank >= 2, but a is 1-D "
         "(shape "
      << a.shape() << "); a 1-D operand is used as it stands";
  OFLITE_CHECK_OR_RETURN(!(transpose_b && b.rank() == 1), ValueError)
      << "matmul: transpose_b swaps the last two dims and needs b of rank >= 2, but b is 1-D "
         "(shape "
      << b.shape() << "); a 1-D operand is used as it stands";
  const int64_t ka = InnerDimOfA(a, transpose_a), kb = InnerDimOfB(b, transpose_b);
  OFLITE_CHECK_OR_RETURN(ka == kb, ValueError)
      << "matmul: a " << a.shape() << " and b " << b.shape() << ": inner dims " << ka << " and "
      << kb << " differ"
      << (transpose_a || transpose_b
              ? std::string(" (transpose_a = ") + (transpose_a ? "true" : "false") +
                    ", transpose_b = " + (transpose_b ? "true" : "false") + ")"
              : std::string());

  // 1-D operands as matrices: a (k) is a (1, k) row, b (k) a (k, 1) column.
  Tensor a2 = a, b2 = b;
  if (a.rank() == 1) {
    OFLITE_ASSIGN_OR_RETURN(a2, a.View(Shape{1, a.shape()[0]}));
  }
  if (b.rank() == 1) {
    OFLITE_ASSIGN_OR_RETURN(b2, b.View(Shape{b.shape()[0], 1}));
  }
  const char* op = a2.rank() == 2 && b2.rank() == 2 ? ops::kMatmulOp : ops::kBatchMatmulOp;
  Tensor out;
  OFLITE_ASSIGN_OR_RETURN(out, DispatchOne(op, {a2, b2},
                                           {{ops::kMatmulTransposeA, transpose_a},
                                            {ops::kMatmulTransposeB, transpose_b},
                                            {ops::kMatmulAlpha, alpha}}));
  if (a.rank() > 1 && b.rank() > 1) {
    return out;
  }
  // Drop the dims the 1-D operands stood for: m = 1 for a, n = 1 for b.
  std::vector<int64_t> dims = out.shape().dims();
  if (b.rank() == 1) {
    dims.erase(dims.end() - 1);
  }
  if (a.rank() == 1) {
    dims.erase(dims.end() - (b.rank() == 1 ? 1 : 2));
  }
  return out.View(Shape(std::move(dims)));
}

Maybe<Tensor> Linear(const Tensor& x, const Tensor& w, const Tensor& bias,
                     const std::string& activation) {
  OFLITE_CHECK_OR_RETURN(activation == "none" || activation == "relu" || activation == "gelu" ||
                             activation == "leaky_relu",
                         ValueError)
      << "linear: activation must be \"none\", \"relu\", \"gelu\" or \"leaky_relu\", got \""
      << activation << "\"";
  OFLITE_JUST(CheckDefined("linear", "x", x));
  OFLITE_JUST(CheckDefined("linear", "weight", w));
  OFLITE_CHECK_OR_RETURN(w.rank() == 2, ValueError)
      << "linear: weight must have rank 2 (out_features, in_features), got shape " << w.shape();
  OFLITE_CHECK_OR_RETURN(x.rank() >= 1, ValueError)
      << "linear: x must have rank >= 1 (.., in_features), got a rank-0 tensor";
  OFLITE_CHECK_OR_RETURN(x.shape()[x.rank() - 1] == w.shape()[1], ValueError)
      << "linear: x " << x.shape() << " has " << x.shape()[x.rank() - 1]
      << " features in its last dim, but weight " << w.shape() << " expects " << w.shape()[1];
  OFLITE_CHECK_OR_RETURN(w.dtype() == x.dtype(), TypeError)
      << "linear: weight must have x's dtype " << x.dtype() << ", got " << w.dtype();
  OFLITE_CHECK_OR_RETURN(IsFloatingDataType(x.dtype()), NotImplemented)
      << "linear: x must have a floating dtype (float32, float64, float16, bfloat16), got "
      << x.dtype();
  if (bias.defined()) {
    OFLITE_CHECK_OR_RETURN(bias.rank() == 1 && bias.shape()[0] == w.shape()[0], ValueError)
        << "linear: bias must have shape " << Shape{w.shape()[0]} << " to match weight "
        << w.shape() << ", got " << bias.shape();
    OFLITE_CHECK_OR_RETURN(bias.dtype() == x.dtype(), TypeError)
        << "linear: bias must have x's dtype " << x.dtype() << ", got " << bias.dtype();
  }
  if (bias.defined()) {
    // x (.., in) as a (rows, in) matrix, the product (rows, out) viewed back as (.., out).
    const int64_t in = w.shape()[1], out_features = w.shape()[0];
    const int64_t rows = x.shape().Count(0, x.rank() - 1);  // 1 for a 1-D x
    Tensor x2, y2;
    OFLITE_ASSIGN_OR_RETURN(x2, x.View(Shape{rows, in}));
    OFLITE_ASSIGN_OR_RETURN(y2, FusedMatmulBiasAct(x2, w, bias, activation, /*transpose_a=*/false,
                                                   /*transpose_b=*/true, 0.01));
    std::vector<int64_t> dims(x.shape().dims().begin(), x.shape().dims().end() - 1);
    dims.push_back(out_features);
    return y2.View(Shape(std::move(dims)));
  }
  Tensor y;
  OFLITE_ASSIGN_OR_RETURN(y, MatMul(x, w, /*transpose_a=*/false, /*transpose_b=*/true));
  if (activation == "relu") {
    return Relu(y);
  }
  if (activation == "gelu") {
    return Gelu(y);
  }
  if (activation == "leaky_relu") {
    return LeakyRelu(y, 0.01);
  }
  return y;
}

Maybe<Tensor> FusedMatmulBiasAct(const Tensor& a, const Tensor& b, const Tensor& bias,
                                 const std::string& activation, bool transpose_a, bool transpose_b,
                                 double leaky_alpha) {
  OFLITE_JUST(CheckDefined(ops::kFusedMatmulBiasActOp, "a", a));
  OFLITE_JUST(CheckDefined(ops::kFusedMatmulBiasActOp, "b", b));
  OFLITE_JUST(CheckDefined(ops::kFusedMatmulBiasActOp, "bias", bias));
  return DispatchOne(ops::kFusedMatmulBiasActOp, {a, b, bias},
                     {{ops::kMatmulTransposeA, transpose_a},
                      {ops::kMatmulTransposeB, transpose_b},
                      {ops::kFusedMatmulActivation, activation},
                      {ops::kFusedMatmulLeakyAlpha, leaky_alpha}});
}

}  // namespace functional
}  // namespace oflite
