// The elementwise operations the binary and unary primitives implement: one list each, from
// which ops, factories and tests all dispatch. Functors are in elementwise_functors.h.
#ifndef ONEFLOW_LITE_PRIMITIVE_ELEMENTWISE_OP_H_
#define ONEFLOW_LITE_PRIMITIVE_ELEMENTWISE_OP_H_

namespace oflite {
namespace primitive {

// (enumerator, name). Gradients take (dy, y) or (dy, x) as their two operands and give dx.
#define OFLITE_BINARY_OP_LIST(F)     \
  F(kAdd, "add")                     \
  F(kSub, "sub")                     \
  F(kMul, "mul")                     \
  F(kDiv, "div")                     \
  F(kMaximum, "maximum")             \
  F(kMinimum, "minimum")             \
  F(kPow, "pow")                     \
  F(kEq, "eq")                       \
  F(kNe, "ne")                       \
  F(kLt, "lt")                       \
  F(kLe, "le")                       \
  F(kGt, "gt")                       \
  F(kGe, "ge")                       \
  F(kReluGrad, "relu_grad")          \
  F(kSigmoidGrad, "sigmoid_grad")    \
  F(kTanhGrad, "tanh_grad")          \
  F(kGeluGrad, "gelu_grad")          \
  F(kGeluTanhGrad, "gelu_tanh_grad") \
  F(kSiluGrad, "silu_grad")          \
  F(kLeakyReluGrad, "leaky_relu_grad")

#define OFLITE_UNARY_OP_LIST(F) \
  F(kNeg, "neg")                \
  F(kAbs, "abs")                \
  F(kExp, "exp")                \
  F(kLog, "log")                \
  F(kSqrt, "sqrt")              \
  F(kRsqrt, "rsqrt")            \
  F(kSigmoid, "sigmoid")        \
  F(kTanh, "tanh")              \
  F(kRelu, "relu")              \
  F(kGelu, "gelu")              \
  F(kGeluTanh, "gelu_tanh")     \
  F(kSilu, "silu")              \
  F(kLeakyRelu, "leaky_relu")

#define OFLITE_ELEMENTWISE_ENUMERATOR(enumerator, name) enumerator,
enum class BinaryOp { OFLITE_BINARY_OP_LIST(OFLITE_ELEMENTWISE_ENUMERATOR) };
enum class UnaryOp { OFLITE_UNARY_OP_LIST(OFLITE_ELEMENTWISE_ENUMERATOR) };
#undef OFLITE_ELEMENTWISE_ENUMERATOR

const char* BinaryOpName(BinaryOp op);
const char* UnaryOpName(UnaryOp op);

constexpr bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEq || op == BinaryOp::kNe || op == BinaryOp::kLt || op == BinaryOp::kLe ||
         op == BinaryOp::kGt || op == BinaryOp::kGe;
}

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_ELEMENTWISE_OP_H_
