// Host-side IEEE half (float16) and bfloat16: storage types that convert to and from float
// with round-to-nearest-even, keeping NaN a NaN and saturating to infinity like hardware does.
#ifndef ONEFLOW_LITE_COMMON_FLOAT16_H_
#define ONEFLOW_LITE_COMMON_FLOAT16_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace oflite {

namespace detail {
inline uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}
inline float BitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

inline uint16_t FloatToHalfBits(float f) {
  const uint32_t bits = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {  // NaN: keep it quiet and keep the top payload bits
    return sign | 0x7e00u | static_cast<uint16_t>((magnitude >> 13) & 0x3ffu);
  }
  // 65520 is halfway between the largest half (65504) and 2^16; the tie goes to even = inf.
  if (magnitude >= 0x477ff000u) {
    return sign | 0x7c00u;
  }
  if (magnitude < 0x38800000u) {
    // Below 2^-14 the result is subnormal: adding 0.5 makes the float unit in the last place
    // exactly 2^-24 (the half subnormal step), so the FPU does the nearest-even rounding.
    const float shifted = BitsToFloat(magnitude) + 0.5f;
    return sign | static_cast<uint16_t>(FloatBits(shifted) - 0x3f000000u);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to even;
  // a carry out of the mantissa correctly bumps the exponent.
  const uint32_t odd = (magnitude >> 13) & 1u;
  const uint32_t rounded = magnitude - 0x38000000u + 0xfffu + odd;
  return sign | static_cast<uint16_t>(rounded >> 13);
}

inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) {
    return BitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  return BitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t FloatToBfloat16Bits(float f) {
  const uint32_t bits = FloatBits(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN: truncate but force the quiet bit
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  const uint32_t odd = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7fffu + odd) >> 16);
}

inline float Bfloat16BitsToFloat(uint16_t b) { return BitsToFloat(static_cast<uint32_t>(b) << 16); }

// double -> float rounded to odd: truncate, then set the last bit when anything was dropped.
// Rounding that float to 16 bits then equals rounding the double directly (float keeps far more
// than the 2 extra bits this needs); plain double -> float -> 16 bits would round twice and
// could land on a false tie.
inline float DoubleToFloatRoundToOdd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(f) || std::isinf(f) || static_cast<double>(f) == d) {
    return f;
  }
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) {
    f = std::nextafter(f, 0.0f);
  }
  return BitsToFloat(FloatBits(f) | 1u);
}
}  // namespace detail

// The two half types differ only in their bit conversions.
template <uint16_t (*kFromFloat)(float), float (*kToFloat)(uint16_t)>
struct HalfPrecision {
  uint16_t bits = 0;

  HalfPrecision() = default;
  explicit HalfPrecision(float f) : bits(kFromFloat(f)) {}
  explicit HalfPrecision(double d) : HalfPrecision(detail::DoubleToFloatRoundToOdd(d)) {}
  static HalfPrecision FromBits(uint16_t b) {
    HalfPrecision h;
    h.bits = b;
    return h;
  }
  operator float() const { return kToFloat(bits); }  // NOLINT: behaves like a float
};

using float16 = HalfPrecision<detail::FloatToHalfBits, detail::HalfBitsToFloat>;
using bfloat16 = HalfPrecision<detail::FloatToBfloat16Bits, detail::Bfloat16BitsToFloat>;

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2, "half types must be 2 bytes");

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_FLOAT16_H_
