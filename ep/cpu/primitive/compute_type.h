// The arithmetic type CPU primitives use for an element type: half types compute in float.
#ifndef ONEFLOW_LITE_EP_CPU_PRIMITIVE_COMPUTE_TYPE_H_
#define ONEFLOW_LITE_EP_CPU_PRIMITIVE_COMPUTE_TYPE_H_

#include <memory>
#include <type_traits>

#include "oneflow_lite/common/data_type.h"
#include "primitive/floating_factory.h"

namespace oflite {
namespace ep {

template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<float16> {
  using type = float;
};
template <>
struct ComputeTypeOf<bfloat16> {
  using type = float;
};
template <typename T>
using ComputeType = typename ComputeTypeOf<T>::type;

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CPU_PRIMITIVE_COMPUTE_TYPE_H_
