// Plain double-precision references of softmax, log_softmax and their grads, written from the
// math independently of the primitives, over any axis of a contiguous tensor; the op tests
// (ops/softmax_ops_spec.cpp) and the test suites compare against them.
#ifndef ONEFLOW_LITE_OPS_SOFTMAX_REFERENCE_H_
#define ONEFLOW_LITE_OPS_SOFTMAX_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/shape.h"

namespace oflite {

// softmax (log = false) or log_softmax (log = true) of `x` along axis `dim` of `shape`; a row
// holding a NaN gives NaNs.
std::vector<double> ReferenceSoftmax(const std::vector<double>& x, const Shape& shape, int64_t dim,
                                     bool log);
// dx of softmax (dx = y * (dy - sum(dy * y))) or log_softmax (dx = dy - exp(y) * sum(dy)) from
// the forward output y and the incoming gradient dy.
std::vector<double> ReferenceSoftmaxGrad(const std::vector<double>& y,
                                         const std::vector<double>& dy, const Shape& shape,
                                         int64_t dim, bool log);
// The size of the terms log_softmax subtracts (|x - max| + |log sum|), per element; empty for
// softmax, whose outputs are compared relative to themselves.
std::vector<double> SoftmaxScale(const std::vector<double>& x, const Shape& shape, int64_t dim,
                                 bool log);
// The size of the terms the grad subtracts, per element: the natural scale of its rounding
// error, since dx itself can cancel to near zero.
std::vector<double> SoftmaxGradScale(const std::vector<double>& y, const std::vector<double>& dy,
                                     const Shape& shape, int64_t dim, bool log);
// Relative error softmax-like ops are held to per dtype (docs/TESTING.md): float32 1e-5, float16
// 1e-3, bfloat16 8e-3, float64 1e-12.
double SoftmaxTolerance(DataType dtype);

}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_SOFTMAX_REFERENCE_H_
