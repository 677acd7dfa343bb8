// Argument canonicalization shared by the functional calls.
#ifndef ONEFLOW_LITE_FUNCTIONAL_DIM_UTILS_H_
#define ONEFLOW_LITE_FUNCTIONAL_DIM_UTILS_H_

#include <cstdint>
#include <string>

#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace functional {

// Wraps a negative dim; IndexError unless -rank <= dim < rank. A rank-0 tensor accepts 0 and
// -1, as in PyTorch.
Maybe<int64_t> WrapDim(const char* call, int64_t dim, int64_t rank);

}  // namespace functional
}  // namespace oflite

#endif  // ONEFLOW_LITE_FUNCTIONAL_DIM_UTILS_H_
