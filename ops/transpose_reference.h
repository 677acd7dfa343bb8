// A plain reference of transpose: the element gather written from the definition
// (y[i0, .., ir] = x at the coordinates permuted back), independently of the permute
// primitives; the op tests (ops/transpose_ops_spec.cpp) and the test suites compare against it.
#ifndef ONEFLOW_LITE_OPS_TRANSPOSE_REFERENCE_H_
#define ONEFLOW_LITE_OPS_TRANSPOSE_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "oneflow_lite/common/shape.h"

namespace oflite {

// `x` (contiguous, of `shape`) with its axes reordered by `perm`, a permutation of
// 0..rank-1: the result has shape[perm[i]] as dim i.
std::vector<double> ReferencePermute(const std::vector<double>& x, const Shape& shape,
                                     const std::vector<int64_t>& perm);

}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_TRANSPOSE_REFERENCE_H_
