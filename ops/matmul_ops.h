// Matrix products: "matmul" multiplies two matrices (rank 2 each); "batch_matmul" multiplies the
// last two dims of operands of rank >= 2 whose leading (batch) dims broadcast as NumPy does.
// Both compute out = alpha * op(a) @ op(b), where op transposes the last two dims when
// transpose_a / transpose_b is set, and accept floating dtypes only (integer and bool:
// NotImplemented). alpha = 0 gives zeros without reading a and b (NaN and inf in them
// included), as BLAS does, on every device. functional::MatMul maps PyTorch's torch.matmul rules
// (1-D operands included) onto them.
//
// "fused_matmul_bias_act" is a matrix product with a bias and an activation fused after it:
// out = act(op(a) @ op(b) + bias), a and b of rank 2 (checked as matmul checks them), bias of
// shape (n,) and a's dtype. Its SBP splits out's rows (a S(row), b and bias B) or columns (a B,
// b S(col), bias S(0)); no partial sums, as neither the bias nor the activation is linear.
#ifndef ONEFLOW_LITE_OPS_MATMUL_OPS_H_
#define ONEFLOW_LITE_OPS_MATMUL_OPS_H_

namespace oflite {
namespace ops {

constexpr const char* kMatmulOp = "matmul";
constexpr const char* kBatchMatmulOp = "batch_matmul";

// (a, b) -> out, for both ops.
constexpr const char* kMatmulA = "a";
constexpr const char* kMatmulB = "b";
constexpr const char* kMatmulOut = "out";
// Attributes: transpose_a, transpose_b (bool, false), alpha (double, 1.0).
constexpr const char* kMatmulTransposeA = "transpose_a";
constexpr const char* kMatmulTransposeB = "transpose_b";
constexpr const char* kMatmulAlpha = "alpha";

constexpr const char* kFusedMatmulBiasActOp = "fused_matmul_bias_act";
// (a, b, bias) -> out; a, b and out as above.
constexpr const char* kFusedMatmulBias = "bias";
// Attributes: transpose_a, transpose_b (bool, false), activation (string, "none": one of
// kFusedMatmulActivations) and leaky_alpha (double, 0.01: leaky_relu's slope below 0; not
// named alpha, which scales the product in matmul).
constexpr const char* kFusedMatmulActivation = "activation";
constexpr const char* kFusedMatmulLeakyAlpha = "leaky_alpha";
constexpr const char* kFusedMatmulActivations[] = {"none", "relu", "gelu", "gelu_tanh",
                                                   "leaky_relu"};

}  // namespace ops
}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_MATMUL_OPS_H_
