// Internal to the CUDA provider (no CUDA types here, so tests can include it): how many
// cuBLASLt matmul plans (descriptors and the heuristic's algorithm, one per problem) the CUDA
// BatchMatmul has cached in this process. A repeated problem reuses its plan and adds nothing.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_BATCH_MATMUL_PLAN_CACHE_H_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_BATCH_MATMUL_PLAN_CACHE_H_

#include <cstddef>

namespace oflite {
namespace ep {

size_t CudaBatchMatmulPlanCacheSize();

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_BATCH_MATMUL_PLAN_CACHE_H_
