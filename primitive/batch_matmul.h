// BatchMatmul: for each of `batch` problems, c = alpha * op(a) @ op(b) + beta * c, all row-major:
// op(a) is m x k, op(b) is k x n, c is m x n, where op transposes when the factory was asked to
// (a stored k x m, b stored n x k). Consecutive problems start stride_a, stride_b and stride_c
// elements apart; a stride of 0 reuses one matrix for every problem (a broadcast batch).
// Accumulation is in float for 16-bit types and in the dtype otherwise; beta = 0 ignores c's
// contents (NaN included), as BLAS does.
#ifndef ONEFLOW_LITE_PRIMITIVE_BATCH_MATMUL_H_
#define ONEFLOW_LITE_PRIMITIVE_BATCH_MATMUL_H_

#include <cstddef>
#include <cstdint>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/ep/stream.h"
#include "primitive/primitive.h"

namespace oflite {
namespace primitive {

class BatchMatmul : public Primitive {
 public:
  virtual Maybe<void> Launch(ep::Stream* stream, size_t batch, size_t m, size_t n, size_t k,
                             double alpha, const void* a, int64_t stride_a, const void* b,
                             int64_t stride_b, double beta, void* c, int64_t stride_c) = 0;
};

// New(dtype, transpose_a, transpose_b): nullptr where the device has no GEMM for the dtype
// (integer and bool dtypes everywhere).
class BatchMatmulFactory : public Factory<BatchMatmul, DataType, bool, bool> {
 public:
  static constexpr const char* kName = "batch_matmul";
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_BATCH_MATMUL_H_
