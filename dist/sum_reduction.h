// Elementwise sums in a dtype's own arithmetic, for the reductions Gloo runs on the host: float16
// and bfloat16 add in float and round once, integers wrap, bool is a logical or (true + true is
// true, as a bool tensor's sum is).
#ifndef ONEFLOW_LITE_DIST_SUM_REDUCTION_H_
#define ONEFLOW_LITE_DIST_SUM_REDUCTION_H_

#include <cstddef>
#include <type_traits>

#include "oneflow_lite/common/data_type.h"

namespace oflite {
namespace dist {

// out[i] = a[i] + b[i] for n elements; out may be a or b.
using SumFunction = void (*)(void* out, const void* a, const void* b, size_t n);

template <typename T>
T AddElements(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(a) + static_cast<float>(b));
  } else if constexpr (std::is_integral_v<T>) {
    using Unsigned = std::make_unsigned_t<T>;  // wraps like the dtype, without signed overflow
    return static_cast<T>(
        static_cast<Unsigned>(static_cast<Unsigned>(a) + static_cast<Unsigned>(b)));
  } else {
    return a + b;
  }
}

template <typename T>
void SumArrays(void* out, const void* a, const void* b, size_t n) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) {
    o[i] = AddElements<T>(x[i], y[i]);
  }
}

inline SumFunction SumFunctionFor(DataType dtype) {
  return VisitDataType(
      dtype, [](auto tag) -> SumFunction { return &SumArrays<typename decltype(tag)::type>; });
}

}  // namespace dist
}  // namespace oflite

#endif  // ONEFLOW_LITE_DIST_SUM_REDUCTION_H_
