// BatchMatmul: for each of `batch` problems, c = alpha * op(a) @ op(b) + beta * c, all row-major:
// op(a) is m x k, op(b) is k x n, c is m x n, where op transposes when the factory was asked to
// (a stored k x m, b stored n x k). Consecutive problems start stride_a, stride_b and stride_c
// elements apart; a stride of 0 reuses one matrix for every problem (a broadcast batch).
// Accumulation is in float for 16-bit types and in the dtype otherwise; beta = 0 ignores c's
// contents and alpha = 0 (or k = 0) a's and b's (NaN included), as BLAS does.
//
// LaunchBiasAct: one problem (no batch, alpha 1, beta 0) with a bias and an activation fused
// after it: c = act(op(a) @ op(b) + bias), bias a vector of n elements (one per column of c) of
// the dtype. The activation applies to the sum in the accumulation type, and 16-bit results are
// rounded once (on CUDA, gelu and leaky_relu follow cuBLASLt's bias epilogue, which stores the
// biased sum in the dtype first). k = 0 gives c = act(bias) in every row.
#ifndef ONEFLOW_LITE_PRIMITIVE_BATCH_MATMUL_H_
#define ONEFLOW_LITE_PRIMITIVE_BATCH_MATMUL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace primitive {

// The activation LaunchBiasAct applies: none, relu, gelu (erf form), gelu_tanh (the tanh
// approximation) or leaky_relu (slope leaky_alpha below 0).
enum class BiasActivation { kNone, kRelu, kGelu, kGeluTanh, kLeakyRelu };

class BatchMatmul : public Primitive {
 public:
  virtual Maybe<void> Launch(ep::Stream* stream, size_t batch, size_t m, size_t n, size_t k,
                             double alpha, const void* a, int64_t stride_a, const void* b,
                             int64_t stride_b, double beta, void* c, int64_t stride_c) = 0;
  virtual Maybe<void> LaunchBiasAct(ep::Stream* stream, size_t m, size_t n, size_t k, const void* a,
                                    const void* b, const void* bias, BiasActivation activation,
                                    double leaky_alpha, void* c) = 0;
};

// The batch strides a launch may take: none negative, and a stride_c of 0 only for a single
// problem (each problem writes its own c). ValueError naming the primitive otherwise.
Maybe<void> CheckBatchStrides(const std::string& primitive, size_t batch, int64_t stride_a,
                              int64_t stride_b, int64_t stride_c);

// New(dtype, transpose_a, transpose_b): nullptr where the device has no GEMM for the dtype
// (integer and bool dtypes everywhere).
class BatchMatmulFactory : public Factory<BatchMatmul, DataType, bool, bool> {
 public:
  static constexpr const char* kName = "batch_matmul";
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_BATCH_MATMUL_H_
