// The user-facing API: validated, canonicalized calls that dispatch ops.
#ifndef ONEFLOW_LITE_FUNCTIONAL_FUNCTIONAL_H_
#define ONEFLOW_LITE_FUNCTIONAL_FUNCTIONAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/scalar.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {
namespace functional {

// Softmax family over `dim` (negative counts from the end). Floating dtypes only.
// A rank-0 tensor softmaxes to 1; an empty tensor gives an empty result.
Maybe<Tensor> Softmax(const Tensor& x, int64_t dim);
Maybe<Tensor> LogSoftmax(const Tensor& x, int64_t dim);
// Gradients from the forward output y and the incoming gradient dy (same shape and dtype).
Maybe<Tensor> SoftmaxGrad(const Tensor& y, const Tensor& dy, int64_t dim);
Maybe<Tensor> LogSoftmaxGrad(const Tensor& y, const Tensor& dy, int64_t dim);

// y.shape[i] = x.shape[perm[i]]; entries may be negative (counted from the end).
Maybe<Tensor> Transpose(const Tensor& x, const std::vector<int64_t>& perm);
// PyTorch's name for the same call.
Maybe<Tensor> Permute(const Tensor& x, const std::vector<int64_t>& dims);

// ---- elementwise math (issue 4) ----------------------------------------------------------
// Binary ops broadcast as NumPy and PyTorch do and promote dtypes as PyTorch does
// (oneflow_lite/common/type_promotion.h); a Scalar operand never widens a tensor's dtype within
// its kind. Div is true division: integer operands give float32. Comparisons give bool.
#define OFLITE_DECLARE_BINARY_FUNCTION(Name)            \
  Maybe<Tensor> Name(const Tensor& x, const Tensor& y); \
  Maybe<Tensor> Name(const Tensor& x, const Scalar& y); \
  Maybe<Tensor> Name(const Scalar& x, const Tensor& y);
OFLITE_DECLARE_BINARY_FUNCTION(Add)
OFLITE_DECLARE_BINARY_FUNCTION(Sub)
OFLITE_DECLARE_BINARY_FUNCTION(Mul)
OFLITE_DECLARE_BINARY_FUNCTION(Div)
OFLITE_DECLARE_BINARY_FUNCTION(Maximum)
OFLITE_DECLARE_BINARY_FUNCTION(Minimum)
OFLITE_DECLARE_BINARY_FUNCTION(Pow)
OFLITE_DECLARE_BINARY_FUNCTION(Eq)
OFLITE_DECLARE_BINARY_FUNCTION(Ne)
OFLITE_DECLARE_BINARY_FUNCTION(Lt)
OFLITE_DECLARE_BINARY_FUNCTION(Le)
OFLITE_DECLARE_BINARY_FUNCTION(Gt)
OFLITE_DECLARE_BINARY_FUNCTION(Ge)
#undef OFLITE_DECLARE_BINARY_FUNCTION

// Unary math. Exp, Log, Sqrt, Rsqrt, Sigmoid and Tanh of an integer or bool tensor give float32
// (as PyTorch); Gelu, Silu and LeakyRelu take floating tensors only; Neg, Abs and Relu keep
// integer dtypes and refuse bool. approximate is "none" (erf form) or "tanh".
Maybe<Tensor> Neg(const Tensor& x);
Maybe<Tensor> Abs(const Tensor& x);
Maybe<Tensor> Exp(const Tensor& x);
Maybe<Tensor> Log(const Tensor& x);
Maybe<Tensor> Sqrt(const Tensor& x);
Maybe<Tensor> Rsqrt(const Tensor& x);
Maybe<Tensor> Sigmoid(const Tensor& x);
Maybe<Tensor> Tanh(const Tensor& x);
Maybe<Tensor> Relu(const Tensor& x);
Maybe<Tensor> Gelu(const Tensor& x, const std::string& approximate = "none");
Maybe<Tensor> Silu(const Tensor& x);
Maybe<Tensor> LeakyRelu(const Tensor& x, double alpha = 0.01);

// Gradients: dy with the forward output y (relu, sigmoid, tanh) or input x (gelu, silu,
// leaky_relu); same shape and floating dtype.
Maybe<Tensor> ReluGrad(const Tensor& dy, const Tensor& y);
Maybe<Tensor> SigmoidGrad(const Tensor& dy, const Tensor& y);
Maybe<Tensor> TanhGrad(const Tensor& dy, const Tensor& y);
Maybe<Tensor> GeluGrad(const Tensor& dy, const Tensor& x, const std::string& approximate = "none");
Maybe<Tensor> SiluGrad(const Tensor& dy, const Tensor& x);
Maybe<Tensor> LeakyReluGrad(const Tensor& dy, const Tensor& x, double alpha = 0.01);

// x converted to dtype (primitive/elementwise_functors.h, CastValue, states the rules).
Maybe<Tensor> Cast(const Tensor& x, DataType dtype);

// ---- matrix products (issue 5) -----------------------------------------------------------
// alpha * a @ b with torch.matmul's rules: 1-D x 1-D is a dot product (rank 0); 2-D x 2-D a
// matrix product; a 1-D a is a row and a 1-D b a column whose dim is dropped from the result;
// with batch dims (either rank >= 3) the leading dims broadcast as NumPy does. transpose_a /
// transpose_b swap an operand's last two dims (ValueError for a 1-D operand). Both operands
// have one floating dtype (TypeError when they differ; NotImplemented for integers and bool);
// ValueError for rank-0 operands and inner dims that differ.
Maybe<Tensor> MatMul(const Tensor& a, const Tensor& b, bool transpose_a = false,
                     bool transpose_b = false, double alpha = 1.0);
// y = activation(x @ w^T + bias): x (.., in_features), w (out_features, in_features), bias
// (out_features) of x's dtype or undefined (no bias). activation is "none", "relu", "gelu"
// (erf form) or "leaky_relu" (slope 0.01). With a bias it runs as one fused_matmul_bias_act on
// x viewed as a matrix (.., in_features) -> (rows, in_features); without, as MatMul and the
// activation.
Maybe<Tensor> Linear(const Tensor& x, const Tensor& w, const Tensor& bias,
                     const std::string& activation = "none");
// act(op(a) @ op(b) + bias) as one op (fused_matmul_bias_act): a and b of rank 2 (transposes
// as MatMul's), bias of shape (n,) and a's dtype; activation is "none", "relu", "gelu" (erf
// form), "gelu_tanh" (tanh approximation) or "leaky_relu" (slope leaky_alpha below 0). Errors:
// MatMul's for the matrices, ValueError for a bias of another shape or an unknown activation,
// TypeError for a bias of another dtype.
Maybe<Tensor> FusedMatmulBiasAct(const Tensor& a, const Tensor& b, const Tensor& bias,
                                 const std::string& activation, bool transpose_a = false,
                                 bool transpose_b = false, double leaky_alpha = 0.01);

// ---- any op by name (issue 7) ------------------------------------------------------------
// Calls the registered op `op_type`, built in or from an op library (LoadOpLibrary): inputs in
// the op's input order, attrs by name (left-out ones take their defaults); returns the outputs
// in the op's output order. The op's inference checks the call: there is no canonicalization
// (dims are not wrapped, operands not broadcast or promoted), so prefer a typed call where one
// exists. ValueError naming the registered ops for an unknown name.
Maybe<std::vector<Tensor>> Call(const std::string& op_type, const std::vector<Tensor>& inputs,
                                const AttrMap& attrs = {});

}  // namespace functional
}  // namespace oflite

#endif  // ONEFLOW_LITE_FUNCTIONAL_FUNCTIONAL_H_
