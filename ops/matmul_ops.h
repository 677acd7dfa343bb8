// Matrix products: "matmul" multiplies two matrices (rank 2 each); "batch_matmul" multiplies the
// last two dims of operands of rank >= 2 whose leading (batch) dims broadcast as NumPy does.
// Both compute out = alpha * op(a) @ op(b), where op transposes the last two dims when
// transpose_a / transpose_b is set, and accept floating dtypes only (integer and bool:
// NotImplemented). functional::MatMul maps PyTorch's torch.matmul rules (1-D operands
// included) onto them.
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

}  // namespace ops
}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_MATMUL_OPS_H_
