// float16 and bfloat16: conversions to and from float, checked against references that do not
// share the library's bit tricks: the compiler's _Float16 and a plain round-to-nearest-even
// written in double.
#include "oneflow_lite/common/float16.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#if defined(__FLT16_MAX__)
#define OFLITE_TEST_HAVE_FLOAT16 1
#else
#define OFLITE_TEST_HAVE_FLOAT16 0
#endif

namespace oflite {
namespace {

uint32_t Bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

std::string Hex(uint32_t bits) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", bits);
  return text;
}

// Round-to-nearest-even of a finite non-negative double to a binary format with
// `mantissa_bits` stored fraction bits and `exponent_bits` exponent bits; returns the bit
// pattern (without sign), infinity when the rounded value does not fit.
uint16_t ReferenceRound(double a, int mantissa_bits, int exponent_bits) {
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const int min_exponent = 1 - bias;
  int exponent = min_exponent;
  if (a >= std::ldexp(1.0, min_exponent)) {
    int frexp_exponent = 0;
    std::frexp(a, &frexp_exponent);  // a = m * 2^e, m in [0.5, 1)
    exponent = frexp_exponent - 1;   // a in [2^exponent, 2^(exponent+1))
  }
  // a / ulp is exact: dividing by a power of two.
  const double scaled = a / std::ldexp(1.0, exponent - mantissa_bits);
  double n = std::floor(scaled);
  const double rest = scaled - n;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(n, 2.0) != 0.0)) {
    n += 1.0;
  }
  // Subnormals and the first binade share the ulp; in both, bits = n there. Above, n holds the
  // implicit leading one, which the exponent field absorbs.
  const uint64_t bits =
      (static_cast<uint64_t>(exponent + bias - 1) << mantissa_bits) + static_cast<uint64_t>(n);
  const uint64_t infinity = static_cast<uint64_t>((1 << exponent_bits) - 1) << mantissa_bits;
  return static_cast<uint16_t>(bits >= infinity ? infinity : bits);
}

// Reference for a float: sign handled here, NaN reported through *is_nan.
uint16_t ReferenceFromFloat(float f, int mantissa_bits, int exponent_bits, bool* is_nan) {
  *is_nan = std::isnan(f);
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const uint16_t infinity = static_cast<uint16_t>(((1 << exponent_bits) - 1) << mantissa_bits);
  if (*is_nan) {
    return sign | infinity | 1;
  }
  if (std::isinf(f)) {
    return sign | infinity;
  }
  return sign | ReferenceRound(std::fabs(static_cast<double>(f)), mantissa_bits, exponent_bits);
}

uint16_t ReferenceHalf(float f, bool* is_nan) { return ReferenceFromFloat(f, 10, 5, is_nan); }
uint16_t ReferenceBfloat16(float f, bool* is_nan) { return ReferenceFromFloat(f, 7, 8, is_nan); }

// Decodes a 16-bit pattern to double from the format's definition.
double Decode(uint16_t bits, int mantissa_bits, int exponent_bits) {
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const int exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1);
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == (1 << exponent_bits) - 1) {
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  }
  if (exponent == 0) {
    return sign * std::ldexp(mantissa, 1 - bias - mantissa_bits);
  }
  return sign * std::ldexp(1.0 + std::ldexp(mantissa, -mantissa_bits), exponent - bias);
}

bool IsHalfNan(uint16_t bits) { return (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0; }
bool IsBfloat16Nan(uint16_t bits) { return (bits & 0x7f80) == 0x7f80 && (bits & 0x007f) != 0; }

#if OFLITE_TEST_HAVE_FLOAT16
uint16_t CompilerHalf(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return bits;
}
uint16_t CompilerHalfFromDouble(double d) {
  const _Float16 h = static_cast<_Float16>(d);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return bits;
}
float CompilerHalfToFloat(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof(bits));
  return static_cast<float>(h);
}
#endif

// --- float16 ---------------------------------------------------------------------------------

TEST(Float16Test, ToFloatMatchesTheFormatDefinitionForAllPatterns) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const float f = float16::FromBits(bits);
    const double expected = Decode(bits, 10, 5);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(f)) << Hex(b);
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), expected) << Hex(b);
    ASSERT_EQ(std::signbit(f), (bits & 0x8000) != 0) << Hex(b);  // -0 stays -0
#if OFLITE_TEST_HAVE_FLOAT16
    ASSERT_EQ(Bits(f), Bits(CompilerHalfToFloat(bits))) << Hex(b);
#endif
  }
}

TEST(Float16Test, RoundTripOfAllPatterns) {
  int nan_count = 0;
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const float f = float16::FromBits(bits);
    const float16 back(f);
    if (IsHalfNan(bits)) {
      ++nan_count;
      EXPECT_TRUE(IsHalfNan(back.bits)) << Hex(b) << " -> " << Hex(back.bits);
      EXPECT_EQ(back.bits & 0x8000, bits & 0x8000) << Hex(b);
    } else {
      ASSERT_EQ(back.bits, bits) << Hex(b);
    }
  }
  EXPECT_EQ(nan_count, 2 * 1023);
}

// Checks one float against the references; returns false on a mismatch (reported).
bool CheckHalf(float f) {
  const uint32_t in = Bits(f);
  const uint16_t actual = float16(f).bits;
  bool is_nan = false;
  const uint16_t reference = ReferenceHalf(f, &is_nan);
  if (is_nan) {
    EXPECT_TRUE(IsHalfNan(actual)) << Hex(in) << " -> " << Hex(actual);
    EXPECT_EQ(actual & 0x8000, reference & 0x8000) << Hex(in);
    return IsHalfNan(actual);
  }
#if OFLITE_TEST_HAVE_FLOAT16
  const uint16_t compiler = CompilerHalf(f);
  EXPECT_EQ(compiler, reference) << "references disagree on " << Hex(in) << " = " << f;
  EXPECT_EQ(actual, compiler) << Hex(in) << " = " << f;
  return actual == compiler && actual == reference;
#else
  EXPECT_EQ(actual, reference) << Hex(in) << " = " << f;
  return actual == reference;
#endif
}

TEST(Float16Test, FromFloatMatchesReferencesOnSampledPatterns) {
  // Every 97th float32 pattern across all 2^32 (97 is odd, so every low bit pattern occurs).
  int failures = 0;
  uint64_t checked = 0;
  for (uint64_t b = 0; b <= 0xffffffffu && failures < 20; b += 97) {
    if (!CheckHalf(FromBits(static_cast<uint32_t>(b)))) {
      ++failures;
    }
    ++checked;
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(checked, 44000000u);
}

TEST(Float16Test, FromFloatRoundsTiesToEvenAroundEveryHalfValue) {
  // For each pair of neighbouring halves (h, h + 1), the exact midpoint (exact in float) goes
  // to the even one; one float ulp either side goes to the nearer one.
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const double lo = Decode(static_cast<uint16_t>(h), 10, 5);
    const double hi = (h + 1 == 0x7c00) ? 65536.0 : Decode(static_cast<uint16_t>(h + 1), 10, 5);
    const float mid = static_cast<float>((lo + hi) / 2);
    ASSERT_EQ(static_cast<double>(mid), (lo + hi) / 2) << "midpoint not exact at " << Hex(h);
    const uint16_t even = (h % 2 == 0) ? h : h + 1;
    for (uint16_t sign : {uint16_t{0}, uint16_t{0x8000}}) {
      const float s = sign ? -1.0f : 1.0f;
      ASSERT_EQ(float16(s * mid).bits, sign | even) << "tie above " << Hex(h);
      ASSERT_EQ(float16(s * std::nextafter(mid, 0.0f)).bits, sign | h) << "below " << Hex(h);
      ASSERT_EQ(float16(s * std::nextafter(mid, 1e30f)).bits, sign | (h + 1)) << "above " << Hex(h);
      ASSERT_EQ(float16(s * static_cast<float>(lo)).bits, sign | h) << Hex(h);
    }
  }
}

TEST(Float16Test, FromFloatSpecificValues) {
  const float two_m24 = std::ldexp(1.0f, -24);  // smallest subnormal half
  const float two_m25 = std::ldexp(1.0f, -25);
  EXPECT_EQ(float16(0.0f).bits, 0x0000);
  EXPECT_EQ(float16(-0.0f).bits, 0x8000);
  EXPECT_EQ(float16(1.0f).bits, 0x3c00);
  EXPECT_EQ(float16(-2.0f).bits, 0xc000);
  EXPECT_EQ(float16(0.5f).bits, 0x3800);
  EXPECT_EQ(float16(1.5f).bits, 0x3e00);
  EXPECT_EQ(float16(65504.0f).bits, 0x7bff);   // largest half
  EXPECT_EQ(float16(65519.99f).bits, 0x7bff);  // just below the tie
  EXPECT_EQ(float16(65520.0f).bits, 0x7c00);   // tie to even: infinity
  EXPECT_EQ(float16(-65520.0f).bits, 0xfc00);
  EXPECT_EQ(float16(1e6f).bits, 0x7c00);
  EXPECT_EQ(float16(FLT_MAX).bits, 0x7c00);
  EXPECT_EQ(float16(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_EQ(float16(-std::numeric_limits<float>::infinity()).bits, 0xfc00);
  EXPECT_EQ(float16(two_m24).bits, 0x0001);
  EXPECT_EQ(float16(two_m25).bits, 0x0000);  // tie between 0 and 2^-24: 0
  EXPECT_EQ(float16(-two_m25).bits, 0x8000);
  EXPECT_EQ(float16(std::nextafter(two_m25, 1.0f)).bits, 0x0001);
  EXPECT_EQ(float16(3 * two_m25).bits, 0x0002);                          // tie between 1 and 2: 2
  EXPECT_EQ(float16(5 * two_m25).bits, 0x0002);                          // tie between 2 and 3: 2
  EXPECT_EQ(float16(std::ldexp(1.0f, -14)).bits, 0x0400);                // smallest normal
  EXPECT_EQ(float16(std::ldexp(1.0f, -14) - two_m25).bits, 0x0400);      // tie 0x3ff/0x400
  EXPECT_EQ(float16(std::ldexp(1.0f, -14) - 3 * two_m25).bits, 0x03fe);  // tie 0x3fe/0x3ff
  EXPECT_EQ(float16(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00);         // tie: even
  EXPECT_EQ(float16(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3c02);     // tie: even
  EXPECT_EQ(float16(2048.0f + 1.0f).bits, 0x6800);                       // 2049 -> 2048 (tie, even)
  EXPECT_EQ(float16(2048.0f + 3.0f).bits, 0x6802);                       // 2051 -> 2052 (tie, even)
  EXPECT_EQ(float16(1e-10f).bits, 0x0000);
  EXPECT_TRUE(IsHalfNan(float16(std::numeric_limits<float>::quiet_NaN()).bits));
  EXPECT_TRUE(IsHalfNan(float16(FromBits(0x7f800001u)).bits));  // signalling, low payload
  EXPECT_TRUE(IsHalfNan(float16(FromBits(0xffc00000u)).bits));
  EXPECT_TRUE(std::isnan(static_cast<float>(float16(std::nanf("")))));
}

TEST(Float16Test, ConvertsBackToFloatImplicitly) {
  const float16 h(0.333333f);
  const float f = h;
  EXPECT_EQ(f, static_cast<float>(Decode(h.bits, 10, 5)));
  EXPECT_EQ(float16::FromBits(0x3555).bits, 0x3555);
  EXPECT_EQ(static_cast<float>(float16::FromBits(0x7bff)), 65504.0f);
  EXPECT_EQ(static_cast<float>(float16::FromBits(0x0001)), std::ldexp(1.0f, -24));
  EXPECT_EQ(static_cast<float>(float16()), 0.0f);
}

TEST(Float16Test, FromDoubleRoundsOnce) {
  // Just above the tie between 1 and 1 + 2^-10: the nearest half is the upper one. Rounding to
  // float first lands exactly on the tie and then goes to even (1.0), which is wrong.
  const double above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(float16(above_tie).bits, 0x3c01);
  const double below_tie = 1.0 + 3 * std::ldexp(1.0, -11) - std::ldexp(1.0, -40);
  EXPECT_EQ(float16(below_tie).bits, 0x3c01);
  EXPECT_EQ(float16(0.5).bits, 0x3800);
  EXPECT_EQ(float16(65520.0).bits, 0x7c00);
  EXPECT_EQ(float16(65519.999999).bits, 0x7bff);
#if OFLITE_TEST_HAVE_FLOAT16
  EXPECT_EQ(CompilerHalfFromDouble(above_tie), 0x3c01);
  EXPECT_EQ(CompilerHalfFromDouble(below_tie), 0x3c01);
#endif
}

// --- bfloat16 --------------------------------------------------------------------------------

TEST(Bfloat16Test, ToFloatIsTheUpperHalfOfTheFloat) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const float f = bfloat16::FromBits(bits);
    const double expected = Decode(bits, 7, 8);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(f)) << Hex(b);
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), expected) << Hex(b);
    ASSERT_EQ(Bits(f), b << 16) << Hex(b);
  }
}

TEST(Bfloat16Test, RoundTripOfAllPatterns) {
  int nan_count = 0;
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const bfloat16 back(static_cast<float>(bfloat16::FromBits(bits)));
    if (IsBfloat16Nan(bits)) {
      ++nan_count;
      EXPECT_TRUE(IsBfloat16Nan(back.bits)) << Hex(b) << " -> " << Hex(back.bits);
      EXPECT_EQ(back.bits & 0x8000, bits & 0x8000) << Hex(b);
    } else {
      ASSERT_EQ(back.bits, bits) << Hex(b);
    }
  }
  EXPECT_EQ(nan_count, 2 * 127);
}

bool CheckBfloat16(float f) {
  const uint16_t actual = bfloat16(f).bits;
  bool is_nan = false;
  const uint16_t reference = ReferenceBfloat16(f, &is_nan);
  if (is_nan) {
    EXPECT_TRUE(IsBfloat16Nan(actual)) << Hex(Bits(f)) << " -> " << Hex(actual);
    EXPECT_EQ(actual & 0x8000, reference & 0x8000) << Hex(Bits(f));
    return IsBfloat16Nan(actual);
  }
  EXPECT_EQ(actual, reference) << Hex(Bits(f)) << " = " << f;
  return actual == reference;
}

TEST(Bfloat16Test, FromFloatMatchesReferenceOnSampledPatterns) {
  int failures = 0;
  uint64_t checked = 0;
  for (uint64_t b = 0; b <= 0xffffffffu && failures < 20; b += 97) {
    if (!CheckBfloat16(FromBits(static_cast<uint32_t>(b)))) {
      ++failures;
    }
    ++checked;
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(checked, 44000000u);
}

TEST(Bfloat16Test, FromFloatRoundsTiesToEvenAroundEveryValue) {
  for (uint32_t h = 0; h < 0x7f80; ++h) {
    // Midpoint of h and h + 1 in float bits: h's pattern with the dropped half set to 0x8000.
    const float mid = FromBits((h << 16) | 0x8000u);
    const uint16_t even = (h % 2 == 0) ? h : h + 1;
    for (uint16_t sign : {uint16_t{0}, uint16_t{0x8000}}) {
      const float s = sign ? -1.0f : 1.0f;
      ASSERT_EQ(bfloat16(s * mid).bits, sign | even) << "tie above " << Hex(h);
      ASSERT_EQ(bfloat16(s * FromBits((h << 16) | 0x7fffu)).bits, sign | h) << Hex(h);
      ASSERT_EQ(bfloat16(s * FromBits((h << 16) | 0x8001u)).bits, sign | (h + 1)) << Hex(h);
      ASSERT_EQ(bfloat16(s * FromBits(h << 16)).bits, sign | h) << Hex(h);
    }
  }
}

TEST(Bfloat16Test, FromFloatSpecificValues) {
  EXPECT_EQ(bfloat16(0.0f).bits, 0x0000);
  EXPECT_EQ(bfloat16(-0.0f).bits, 0x8000);
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(bfloat16(1.5f).bits, 0x3fc0);
  EXPECT_EQ(bfloat16(-2.0f).bits, 0xc000);
  EXPECT_EQ(bfloat16(1.0f + std::ldexp(1.0f, -8)).bits, 0x3f80);      // tie: even
  EXPECT_EQ(bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)).bits, 0x3f82);  // tie: even
  EXPECT_EQ(bfloat16(256.0f + 1.0f).bits, 0x4380);                    // 257 -> 256
  EXPECT_EQ(bfloat16(256.0f + 3.0f).bits, 0x4382);                    // 259 -> 260
  // Largest bfloat16 is 0x7f7f = (2 - 2^-7) * 2^127; the tie with 2^128 goes to infinity.
  EXPECT_EQ(bfloat16(FromBits(0x7f7f0000u)).bits, 0x7f7f);
  EXPECT_EQ(bfloat16(FromBits(0x7f7f7fffu)).bits, 0x7f7f);
  EXPECT_EQ(bfloat16(FromBits(0x7f7f8000u)).bits, 0x7f80);
  EXPECT_EQ(bfloat16(FLT_MAX).bits, 0x7f80);
  EXPECT_EQ(bfloat16(-FLT_MAX).bits, 0xff80);
  EXPECT_EQ(bfloat16(std::numeric_limits<float>::infinity()).bits, 0x7f80);
  EXPECT_EQ(bfloat16(-std::numeric_limits<float>::infinity()).bits, 0xff80);
  // Subnormal floats round like any other: ties to even in the last kept bit.
  EXPECT_EQ(bfloat16(FromBits(0x00008000u)).bits, 0x0000);
  EXPECT_EQ(bfloat16(FromBits(0x00018000u)).bits, 0x0002);
  EXPECT_EQ(bfloat16(FromBits(0x00008001u)).bits, 0x0001);
  EXPECT_TRUE(IsBfloat16Nan(bfloat16(std::numeric_limits<float>::quiet_NaN()).bits));
  // A NaN whose payload lies only in the dropped bits must not become infinity.
  EXPECT_TRUE(IsBfloat16Nan(bfloat16(FromBits(0x7f800001u)).bits));
  EXPECT_TRUE(IsBfloat16Nan(bfloat16(FromBits(0xff80ffffu)).bits));
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(std::nanf("")))));
}

TEST(Bfloat16Test, FromDoubleRoundsOnce) {
  // Just above the tie between 1 and 1 + 2^-7: rounding to float first would land on the tie.
  const double above_tie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(bfloat16(above_tie).bits, 0x3f81);
  const double below_tie = 1.0 + 3 * std::ldexp(1.0, -8) - std::ldexp(1.0, -40);
  EXPECT_EQ(bfloat16(below_tie).bits, 0x3f81);
  EXPECT_EQ(bfloat16(1.5).bits, 0x3fc0);
}

}  // namespace
}  // namespace oflite
