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

// e^x for each lane of a float pack within 2 ulp: x = n ln2 + r with |r| <= ln2 / 2, e^r by a
// degree-6 polynomial, 2^n put straight into the exponent bits. Below -87.3 the result is 0 (float
// would go subnormal there), above 88.37 inf, NaN stays NaN; selects only and no float-to-int
// conversion, so nothing overflows.
OFLITE_ISA_INLINE Pack<float> VectorExp(Pack<float> x) {
  using F = Pack<float>;
  // Above 127.5 ln 2, n would be 128 and 2^n overflow: inf there, though e^x stays finite up
  // to 88.72 (softmax's and log_softmax's arguments are at most 0).
  const F hi = F{} + 88.37f, lo = F{} + -87.3f;
  const F round = F{} + 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  F clamped = x > hi ? hi : x;        // comparisons with NaN are false: NaN is kept
  clamped = clamped < lo ? lo : clamped;
  const F shifted = clamped * 1.44269504088896341f + round;
  const F n = shifted - round;
  const F r = clamped - n * 0.693359375f - n * -2.12194440e-4f;
  F p = F{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  Pack<uint32_t> bits;
  std::memcpy(&bits, &shifted, sizeof(bits));  // the low mantissa bits hold n
  bits = (bits + 127u) << 23u;
  F scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  // Both tests on x before any select: GCC scalarizes a select whose mask it must recompute
  // from a value another select produced.
  const auto above = x > hi;
  const auto below = x < lo;
  F result = p * scale;
  result = above ? F{} + INFINITY : result;
  return below ? F{} : result;
}

// double keeps libm's accuracy, lane by lane.
OFLITE_ISA_INLINE Pack<double> VectorExp(Pack<double> x) {
  for (size_t l = 0; l < kPackLanes<double>; ++l) {
    x[l] = std::exp(x[l]);
  }
  return x;
}

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CPU_PRIMITIVE_VECTOR_EXP_H_
