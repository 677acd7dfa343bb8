// Pack<C>: 64 bytes of C as a GCC vector, one AVX-512 register (two AVX2 or four SSE ones in the
// other clones of OFLITE_ISA_CLONES). Loops written on packs vectorize whatever the compiler's
// cost model would decide for the scalar loop.
#ifndef ONEFLOW_LITE_EP_CPU_PRIMITIVE_PACK_H_
#define ONEFLOW_LITE_EP_CPU_PRIMITIVE_PACK_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

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
template <>
struct PackOf<uint64_t> {
  typedef uint64_t type __attribute__((vector_size(64)));
};
template <typename C>
using Pack = typename PackOf<C>::type;

template <typename C>
constexpr size_t kPackLanes = 64 / sizeof(C);

template <typename C>
using LaneIndex = std::conditional_t<sizeof(C) == 4, uint32_t, uint64_t>;

template <typename C, size_t... kLane>
OFLITE_ISA_INLINE Pack<LaneIndex<C>> LaneIndices(std::index_sequence<kLane...>) {
  return Pack<LaneIndex<C>>{kLane...};
}

// v with the lanes from count on replaced by fill, without a trip through memory.
template <typename C>
OFLITE_ISA_INLINE Pack<C> KeepLanes(Pack<C> v, size_t count, C fill) {
  if (count >= kPackLanes<C>) {
    return v;
  }
  using I = LaneIndex<C>;
  const Pack<I> index = LaneIndices<C>(std::make_index_sequence<kPackLanes<C>>());
  // All ones in the lanes below count (index - count wraps there), as bits: GCC 12 fails on
  // the comparison `index < count` where it knows count's range (an internal compiler error).
  const Pack<I> keep = Pack<I>{} - ((index - static_cast<I>(count)) >> (8 * sizeof(I) - 1));
  Pack<I> v_bits, fill_bits;
  const Pack<C> fills = Pack<C>{} + fill;
  std::memcpy(&v_bits, &v, sizeof(v));
  std::memcpy(&fill_bits, &fills, sizeof(fills));
  v_bits = (v_bits & keep) | (fill_bits & ~keep);
  std::memcpy(&v, &v_bits, sizeof(v));
  return v;
}

// Lanes from p[0..count), count <= kPackLanes<C>, converted from the element type T to the
// compute type C; lanes past count hold `fill`. Memory up to `readable_end` may be read: a
// short pack inside it is loaded whole and masked (assembling it lane by lane through memory
// stalls the load that follows).
template <typename C, typename T>
OFLITE_ISA_INLINE Pack<C> LoadPack(const T* p, size_t count, C fill, const T* readable_end) {
  Pack<C> v{};  // (lane stores into an unset vector read it, as GCC warns)
  if (count == kPackLanes<C> || readable_end - p >= static_cast<ptrdiff_t>(kPackLanes<C>)) {
    if constexpr (std::is_same_v<T, C>) {
      std::memcpy(&v, p, sizeof(v));
    } else {
      for (size_t l = 0; l < kPackLanes<C>; ++l) {
        v[l] = static_cast<C>(p[l]);
      }
    }
    return count == kPackLanes<C> ? v : KeepLanes<C>(v, count, fill);
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

// fn(c, count) for each pack of [0, n): count is kPackLanes<C> but for the last. The whole
// packs pass count as a constant, so the inlined fn drops its partial-pack branches there.
template <typename C, typename F>
OFLITE_ISA_INLINE void ForEachPack(size_t n, const F& fn) {
  size_t c = 0;
  for (; n - c >= kPackLanes<C>; c += kPackLanes<C>) {
    fn(c, kPackLanes<C>);
  }
  if (c < n) {
    fn(c, n - c);
  }
}

// v with its lanes rotated down by kBy: lane l holds v[(l + kBy) % kPackLanes<C>].
template <size_t kBy, typename C, size_t... kLane>
OFLITE_ISA_INLINE Pack<C> RotateLanes(Pack<C> v, std::index_sequence<kLane...>) {
  return __builtin_shufflevector(v, v, ((kLane + kBy) % sizeof...(kLane))...);
}

template <size_t kBy, typename C>
OFLITE_ISA_INLINE Pack<C> RotateLanes(Pack<C> v) {
  return RotateLanes<kBy, C>(v, std::make_index_sequence<kPackLanes<C>>());
}

// fold(v, half): v after op with its lanes rotated by half, for half = kPackLanes / 2 ... 1;
// lane 0 then holds op over all lanes (log2 of the lane count steps, not one per lane).
template <typename C, size_t kHalf = kPackLanes<C> / 2, typename Fold>
OFLITE_ISA_INLINE C FoldLanes(Pack<C> v, const Fold& fold) {
  v = fold(v, RotateLanes<kHalf, C>(v));
  if constexpr (kHalf > 1) {
    return FoldLanes<C, kHalf / 2>(v, fold);
  } else {
    return v[0];
  }
}

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CPU_PRIMITIVE_PACK_H_
