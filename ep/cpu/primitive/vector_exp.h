// An exp the compiler can vectorize: std::exp is a library call per element, which no loop
// around it can widen without -ffast-math (and fast-math would also drop the NaN checks).
#ifndef ONEFLOW_LITE_EP_CPU_PRIMITIVE_VECTOR_EXP_H_
#define ONEFLOW_LITE_EP_CPU_PRIMITIVE_VECTOR_EXP_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace oflite {
namespace ep {

// e^x for float within 2 ulp: x = n ln2 + r with |r| <= ln2 / 2, e^r by a degree-6
// polynomial, 2^n put straight into the exponent bits. Below -87.3 the result is 0 (float
// would go subnormal there), +inf stays inf, NaN stays NaN; no branch and no float-to-int
// conversion, so it vectorizes and nothing overflows.
inline float VectorExp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float clamped = std::max(std::min(x, 88.7f), -87.3f);  // keeps NaN
  const float shifted = clamped * kLog2e + kRound;
  const float n = shifted - kRound;
  const float r = clamped - n * kLn2Hi - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits = 0;
  std::memcpy(&bits, &shifted, sizeof(bits));  // the low mantissa bits hold n
  const int32_t scale_bits = static_cast<int32_t>(static_cast<uint32_t>(bits + 127) << 23);
  float scale = 0;
  std::memcpy(&scale, &scale_bits, sizeof(scale));
  const float big = x > 88.7f ? INFINITY : p * scale;
  return x < -87.3f ? 0.0f : big;
}

inline double VectorExp(double x) { return std::exp(x); }  // double rows keep libm's accuracy

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CPU_PRIMITIVE_VECTOR_EXP_H_
