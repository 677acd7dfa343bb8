// Elementwise ops: broadcast binary math and comparisons, unary math, activation gradients and
// cast. Op types are the primitive op names (primitive::BinaryOpName / UnaryOpName: "add",
// "relu_grad", "exp", ...) except the tanh forms of gelu, which are "gelu" and "gelu_grad" with
// approximate = "tanh". Binary ops take operands of one dtype: functional/ promotes first.
#ifndef ONEFLOW_LITE_OPS_ELEMENTWISE_OPS_H_
#define ONEFLOW_LITE_OPS_ELEMENTWISE_OPS_H_

#include <string>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/primitive/elementwise_op.h"

namespace oflite {
namespace ops {

// Broadcast binary ops: (x, y) -> z.
constexpr const char* kBinaryX = "x";
constexpr const char* kBinaryY = "y";
constexpr const char* kBinaryZ = "z";
// Gradient ops: (dy, y) -> dx for relu, sigmoid and tanh; (dy, x) -> dx for gelu, silu and
// leaky_relu. No broadcasting: dy and the other operand have one shape.
constexpr const char* kGradDy = "dy";
constexpr const char* kGradY = "y";
constexpr const char* kGradX = "x";
constexpr const char* kGradDx = "dx";
// The forward operand of a gradient op: kGradY or kGradX.
const char* GradOperand(primitive::BinaryOp op);
// Unary ops: x -> y.
constexpr const char* kUnaryX = "x";
constexpr const char* kUnaryY = "y";
// Attributes: gelu and gelu_grad's form ("none": erf, "tanh"), leaky_relu(_grad)'s slope.
constexpr const char* kApproximate = "approximate";
constexpr const char* kAlpha = "alpha";
constexpr double kDefaultLeakyReluAlpha = 0.01;

// Tensor-scalar forms of the binary ops that are not gradients: x -> y, named "scalar_add",
// "scalar_pow", "scalar_lt", ... The scalar travels in attrs (an int64 or a double, whichever
// has_float_operand says) so that it reaches the primitive exactly, not rounded to x's dtype;
// scalar_first puts it on the left (2.5 - x).
constexpr const char* kScalarX = "x";
constexpr const char* kScalarY = "y";
constexpr const char* kScalarIntOperand = "int_operand";
constexpr const char* kScalarFloatOperand = "float_operand";
constexpr const char* kScalarHasFloatOperand = "has_float_operand";
constexpr const char* kScalarFirst = "scalar_first";
std::string ScalarOpType(primitive::BinaryOp op);  // "scalar_" + the op's name

constexpr const char* kCastOp = "cast";
constexpr const char* kCastX = "x";
constexpr const char* kCastY = "y";
constexpr const char* kCastDtype = "dtype";

bool IsGradOp(primitive::BinaryOp op);
// The binary and unary ops that are op types (every one but the gelu tanh forms).
const std::vector<primitive::BinaryOp>& BinaryOpTypes();
const std::vector<primitive::UnaryOp>& UnaryOpTypes();

// The dtypes each op accepts, as PyTorch has them: bool has add (or), mul (and), maximum,
// minimum and comparisons but not sub, pow or neg; div and the gradients are floating only
// (functional::Div promotes integers); exp, log, sqrt, rsqrt, sigmoid, tanh, gelu, silu and
// leaky_relu are floating only (functional/ promotes integers for the first six).
bool BinaryOpAccepts(primitive::BinaryOp op, DataType dtype);
bool UnaryOpAccepts(primitive::UnaryOp op, DataType dtype);

}  // namespace ops
}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_ELEMENTWISE_OPS_H_
