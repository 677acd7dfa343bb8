// Plain double-precision references of the elementwise ops (binary math, comparisons, activation
// gradients, unary math, cast), written from the math with <cmath>, independently of
// primitive/elementwise_functors.h; the op tests (ops/elementwise_*_ops_spec.cpp) and the test
// suites compare against them.
#ifndef ONEFLOW_LITE_OPS_ELEMENTWISE_REFERENCE_H_
#define ONEFLOW_LITE_OPS_ELEMENTWISE_REFERENCE_H_

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/primitive/elementwise_op.h"

namespace oflite {

// op(a, b) in double; comparisons give 1.0 or 0.0. Gradients take (dy, y) or (dy, x) as the
// op list says; attr is leaky_relu_grad's alpha. Integer wrapping: ReferenceStore.
double ReferenceBinary(primitive::BinaryOp op, double a, double b, double attr = 0);
// op(x) in double; attr is leaky_relu's alpha.
double ReferenceUnary(primitive::UnaryOp op, double x, double attr = 0);
// The value a tensor of dtype `to` holds after casting the source value v: integers truncate
// toward zero, NaN gives 0, out-of-range values saturate; bool is v != 0; float32 rounds to
// nearest even; float16/bfloat16 round once from v to nearest even; float64 is v.
double ReferenceCast(double v, DataType to);
// The same for a source of dtype `from`: an integer or bool source cast to an integer dtype
// wraps modulo 2^bits (as C++ integer conversions do); everything else is ReferenceCast(v, to).
double ReferenceCast(double v, DataType from, DataType to);
// The value a tensor of floating dtype `to` holds after casting int64 v: v itself rounded once
// to nearest even, in integer arithmetic (a double cannot hold every int64); past the largest
// finite value, infinity.
double ReferenceCastInt64(int64_t v, DataType to);
// The value a tensor of dtype `out` holds for the exact result r of elementwise math: integer
// dtypes wrap r (a whole number, |r| < 2^64) modulo 2^bits into their range, as the kernels'
// integer arithmetic does; bool is r != 0; floating dtypes round once to nearest even.
double ReferenceStore(double r, DataType out);

}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_ELEMENTWISE_REFERENCE_H_
