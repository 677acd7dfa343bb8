// An exp the compiler can vectorize: std::exp is a library call per element, which no loop
// around it can widen without -ffast-math (and fast-math would also drop the NaN checks).
#ifndef ONEFLOW_LITE_EP_CPU_PRIMITIVE_VECTOR_EXP_H_
#define ONEFLOW_LITE_EP_CPU_PRIMITIVE_VECTOR_EXP_H_

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ep/cpu/primitive/isa_clones.h"
#include "ep/cpu/primitive/pack.h"

namespace oflite {
namespace ep {

// e^x for each lane of a float pack within 1 ulp (1.2 without FMA): x = n ln2 + r with
// |r| <= ln2 / 2, e^r by a degree-6 minimax polynomial, 2^n put straight into the exponent bits.
// x is clamped first, so that n stays in [-127, 128]: n = -127 gives exponent bits 0 (e^x = 0
// below -88, where float goes subnormal), n = 128 gives inf (from 88.38 on, within a factor of
// 1.42 of float's max). NaN passes the clamps (comparisons with it are false) and stays NaN; no
// selects after the polynomial, and no float-to-int conversion, so nothing overflows.
// kNonPositive: every lane is <= 0 or NaN (softmax's x - max), so the upper clamp is left out.
template <bool kNonPositive = false>
OFLITE_ISA_INLINE Pack<float> VectorExp(Pack<float> x) {
  using F = Pack<float>;
  const F hi = F{} + 88.8f, lo = F{} + -88.0f;
  const F round = F{} + 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  F clamped = x;
  if constexpr (!kNonPositive) {
    clamped = x > hi ? hi : x;
  }
  clamped = clamped < lo ? lo : clamped;
  const F shifted = clamped * 1.44269504088896341f + round;
  const F n = shifted - round;
  const F r = clamped - n * 0.693359375f - n * -2.12194440e-4f;
  // 1 + r + r^2 q(r), q of degree 4 fitted to relative error 3e-9 on |r| <= ln2 / 2.
  F p = F{} + 1.381461276e-03f;
  p = p * r + 8.368710056e-03f;
  p = p * r + 4.166838899e-02f;
  p = p * r + 1.666652113e-01f;
  p = p * r + 4.999999404e-01f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  Pack<uint32_t> bits;
  std::memcpy(&bits, &shifted, sizeof(bits));  // the low mantissa bits hold n
  bits = (bits + 127u) << 23u;
  F scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

// double keeps libm's accuracy, lane by lane.
template <bool kNonPositive = false>
OFLITE_ISA_INLINE Pack<double> VectorExp(Pack<double> x) {
  for (size_t l = 0; l < kPackLanes<double>; ++l) {
    x[l] = std::exp(x[l]);
  }
  return x;
}

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CPU_PRIMITIVE_VECTOR_EXP_H_
