// Argument canonicalization shared by the functional calls.
#ifndef ONEFLOW_LITE_FUNCTIONAL_DIM_UTILS_H_
#define ONEFLOW_LITE_FUNCTIONAL_DIM_UTILS_H_

#include <cstdint>
#include <string>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"

namespace oflite {
namespace functional {

// Wraps a negative dim; IndexError unless -rank <= dim < rank, naming the call and the
// argument ("softmax: dim 3 is out of range ..."). A rank-0 tensor accepts 0 and -1, as in
// PyTorch.
Maybe<int64_t> WrapDim(const char* call, const std::string& arg, int64_t dim, int64_t rank);

// A gradient's y and dy (local or global): ValueError unless their shapes agree, TypeError unless
// their dtypes do, naming the call and both.
Maybe<void> CheckGradPair(const char* call, const Shape& y_shape, DataType y_dtype,
                          const Shape& dy_shape, DataType dy_dtype);

}  // namespace functional
}  // namespace oflite

#endif  // ONEFLOW_LITE_FUNCTIONAL_DIM_UTILS_H_
