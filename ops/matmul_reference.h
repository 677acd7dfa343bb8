// Plain double-precision references of the matrix products (matmul, batch_matmul,
// fused_matmul_bias_act), written from the definitions with explicit loops, independently of
// the BatchMatmul primitives; the op tests (ops/matmul_ops_spec.cpp) and the test suites
// compare against them.
#ifndef ONEFLOW_LITE_OPS_MATMUL_REFERENCE_H_
#define ONEFLOW_LITE_OPS_MATMUL_REFERENCE_H_

#include <string>

#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/framework/op_test_spec.h"

namespace oflite {

// alpha * op(a) @ op(b) over the last two dims, op swapping them when transposed; a and b of
// rank >= 2 whose batch (leading) dims broadcast as NumPy's do (a size-1 or missing dim
// repeats). The result has a's dtype, its values unrounded. The caller checks the shapes.
HostTensor ReferenceBatchMatmul(const HostTensor& a, const HostTensor& b, bool transpose_a,
                                bool transpose_b, double alpha);
// The fused op's activation of v: "none", "relu", "gelu" (erf form), "gelu_tanh" (tanh form)
// or "leaky_relu" (slope leaky_alpha below 0).
double ReferenceBiasActivation(double v, const std::string& activation, double leaky_alpha);
// act(op(a) @ op(b) + bias) for a and b of rank 2 and bias of shape (n,).
HostTensor ReferenceFusedMatmulBiasAct(const HostTensor& a, const HostTensor& b,
                                       const HostTensor& bias, bool transpose_a, bool transpose_b,
                                       const std::string& activation, double leaky_alpha);
// The shape an operand is stored in when the product reads it transposed: the last two dims
// swapped (dims as given when not transposed, or of rank < 2).
Shape StoredShape(const Shape& logical, bool transposed);

}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_MATMUL_REFERENCE_H_
