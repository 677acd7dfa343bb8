// The CUDA device type that stores each host element type: our float16/bfloat16 and CUDA's
// __half/__nv_bfloat16 share their layout, so buffers pass between them unchanged.
#ifndef ONEFLOW_LITE_EP_CUDA_CUDA_DATA_TYPE_H_
#define ONEFLOW_LITE_EP_CUDA_CUDA_DATA_TYPE_H_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "oneflow_lite/common/float16.h"

namespace oflite {
namespace ep {

template <typename T>
struct CudaTypeOf {
  using type = T;
};
template <>
struct CudaTypeOf<float16> {
  using type = __half;
};
template <>
struct CudaTypeOf<bfloat16> {
  using type = __nv_bfloat16;
};
template <typename T>
using CudaType = typename CudaTypeOf<T>::type;

// The type device code computes a CUDA storage type in: 16-bit floats compute in float.
template <typename T>
struct CudaComputeTypeOf {
  using type = T;
};
template <>
struct CudaComputeTypeOf<__half> {
  using type = float;
};
template <>
struct CudaComputeTypeOf<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using CudaComputeType = typename CudaComputeTypeOf<T>::type;

static_assert(sizeof(CudaType<float16>) == 2 && sizeof(CudaType<bfloat16>) == 2,
              "host and device half types must share their layout");

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_CUDA_DATA_TYPE_H_
