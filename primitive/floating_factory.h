// Factories for primitives that exist only for the floating dtypes (float32/64/16, bfloat16).
#ifndef ONEFLOW_LITE_PRIMITIVE_FLOATING_FACTORY_H_
#define ONEFLOW_LITE_PRIMITIVE_FLOATING_FACTORY_H_

#include <memory>
#include <type_traits>

#include "oneflow_lite/common/data_type.h"

namespace oflite {
namespace primitive {

// New<Impl>(dtype) for primitives implemented only for the floating dtypes: an Impl<T> for
// float32/64/16 and bfloat16, nullptr for the rest.
template <typename Interface, template <typename> class Impl>
std::unique_ptr<Interface> NewForFloating(DataType data_type) {
  return VisitDataType(data_type, [](auto tag) -> std::unique_ptr<Interface> {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloatingType<T>) {
      return std::make_unique<Impl<T>>();
    } else {
      return nullptr;
    }
  });
}

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_FLOATING_FACTORY_H_
