// Plain double-precision references for the elementwise primitives (binary, unary, cast),
// written from the math with <cmath>, independently of primitive/elementwise_functors.h.
#ifndef ONEFLOW_LITE_TESTS_SUPPORT_ELEMENTWISE_REFERENCE_H_
#define ONEFLOW_LITE_TESTS_SUPPORT_ELEMENTWISE_REFERENCE_H_

#include "oneflow_lite/common/data_type.h"
#include "primitive/elementwise_op.h"

namespace oflite {
namespace test {

// op(a, b) in double; comparisons give 1.0 or 0.0. Gradients take (dy, y) or (dy, x) as the
// op list says; attr is leaky_relu_grad's alpha. Integer wrapping is the caller's business.
double ReferenceBinary(primitive::BinaryOp op, double a, double b, double attr = 0);
// op(x) in double; attr is leaky_relu's alpha.
double ReferenceUnary(primitive::UnaryOp op, double x, double attr = 0);
// The value a tensor of dtype `to` holds after casting the source value v: integers truncate
// toward zero, NaN gives 0, out-of-range values saturate; bool is v != 0; float32 rounds to
// nearest even; float16/bfloat16 round once from v to nearest even; float64 is v. (Integer to
// integer wrapping is not a function of v alone: tests of it spell out their expected values.)
double ReferenceCast(double v, DataType to);

}  // namespace test
}  // namespace oflite

#endif  // ONEFLOW_LITE_TESTS_SUPPORT_ELEMENTWISE_REFERENCE_H_
