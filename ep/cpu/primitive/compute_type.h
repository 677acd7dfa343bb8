// The arithmetic type CPU primitives use for an element type: half types compute in float.
#ifndef ONEFLOW_LITE_EP_CPU_PRIMITIVE_COMPUTE_TYPE_H_
#define ONEFLOW_LITE_EP_CPU_PRIMITIVE_COMPUTE_TYPE_H_

#include <memory>
#include <type_traits>

#include "oneflow_lite/common/data_type.h"

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

template <typename T>
constexpr bool kIsFloating =
    std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// New<Impl>(dtype) for primitives implemented only for the floating dtypes: an Impl<T> for
// float32/64/16 and bfloat16, nullptr for the rest.
template <typename Interface, template <typename> class Impl>
std::unique_ptr<Interface> NewForFloating(DataType data_type) {
  return VisitDataType(data_type, [](auto tag) -> std::unique_ptr<Interface> {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloating<T>) {
      return std::make_unique<Impl<T>>();
    } else {
      return nullptr;
    }
  });
}

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CPU_PRIMITIVE_COMPUTE_TYPE_H_
