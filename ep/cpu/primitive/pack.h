// Pack<C>: 64 bytes of C as a GCC vector, one AVX-512 register (two AVX2 or four SSE ones in the
// other clones of OFLITE_ISA_CLONES). Loops written on packs vectorize whatever the compiler's
// cost model would decide for the scalar loop.
#ifndef ONEFLOW_LITE_EP_CPU_PRIMITIVE_PACK_H_
#define ONEFLOW_LITE_EP_CPU_PRIMITIVE_PACK_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ep/cpu/primitive/isa_clones.h"

namespace oflite {
namespace ep {

// (GCC takes vector_size only on a non-dependent type: one specialization per lane type.)
template <typename C>
struct PackOf;
template <>
struct PackOf<float> {
  typedef float type __attribute__((vector_size(64)));
};
template <>
struct PackOf<double> {
  typedef double type __attribute__((vector_size(64)));
};
template <>
struct PackOf<uint32_t> {
  typedef uint32_t type __attribute__((vector_size(64)));
};
template <typename C>
using Pack = typename PackOf<C>::type;

template <typename C>
constexpr size_t kPackLanes = 64 / sizeof(C);

// Lanes from p[0..count), count <= kPackLanes<C>, converted from the element type T to the
// compute type C; lanes past count hold `fill`.
template <typename C, typename T>
OFLITE_ISA_INLINE Pack<C> LoadPack(const T* p, size_t count, C fill) {
  Pack<C> v;
  if constexpr (std::is_same_v<T, C>) {
    if (count == kPackLanes<C>) {
      std::memcpy(&v, p, sizeof(v));
      return v;
    }
  }
  for (size_t l = 0; l < kPackLanes<C>; ++l) {
    v[l] = l < count ? static_cast<C>(p[l]) : fill;
  }
  return v;
}

// Lanes [0..count) of v to p, rounded to T.
template <typename C, typename T>
OFLITE_ISA_INLINE void StorePack(T* p, Pack<C> v, size_t count) {
  if constexpr (std::is_same_v<T, C>) {
    if (count == kPackLanes<C>) {
      std::memcpy(p, &v, sizeof(v));
      return;
    }
  }
  for (size_t l = 0; l < count; ++l) {
    p[l] = static_cast<T>(v[l]);
  }
}

// fn(c, count) for each pack of [0, n): count is kPackLanes<C> but for the last.
template <typename C, typename F>
OFLITE_ISA_INLINE void ForEachPack(size_t n, const F& fn) {
  for (size_t c = 0; c < n; c += kPackLanes<C>) {
    fn(c, n - c < kPackLanes<C> ? n - c : kPackLanes<C>);
  }
}

template <typename C>
OFLITE_ISA_INLINE C SumLanes(Pack<C> v) {
  C sum = 0;
  for (size_t l = 0; l < kPackLanes<C>; ++l) {
    sum += v[l];
  }
  return sum;
}

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CPU_PRIMITIVE_PACK_H_
