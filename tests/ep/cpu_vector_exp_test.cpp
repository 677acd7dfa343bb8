// The CPU softmax's vectorized exp: its accuracy against libm in double over the whole range
// where float's e^x is normal, and its special values. Built here for the baseline ISA (no FMA),
// where its error bound is the widest.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ep/cpu/primitive/vector_exp.h"

namespace oflite {
namespace test {
namespace {

using ep::kPackLanes;
using ep::Pack;

// e^x of one value, through a pack.
float PackExp(float x) {
  Pack<float> v{};
  v += x;
  return ep::VectorExp(v)[0];
}

// Every 61st float of [-87.3, 88.3] (about 17 million values, signs and exponents alike) is
// within 1.25 ulp of e^x in double.
TEST(CpuVectorExp, WithinItsUlpBoundWhereTheResultIsNormal) {
  double worst = 0;
  float worst_x = 0;
  Pack<float> xs{};
  size_t filled = 0;
  const auto check = [&]() {
    const Pack<float> ys = ep::VectorExp(xs);
    for (size_t l = 0; l < filled; ++l) {
      const double exact = std::exp(static_cast<double>(xs[l]));
      const double ulp = std::ldexp(1.0, std::ilogb(static_cast<float>(exact)) - 23);
      const double error = std::fabs(static_cast<double>(ys[l]) - exact) / ulp;
      if (!(error <= worst)) {  // NaN would land here too
        worst = error;
        worst_x = xs[l];
      }
    }
    filled = 0;
  };
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 61) {
    float x;
    const uint32_t b = static_cast<uint32_t>(bits);
    std::memcpy(&x, &b, sizeof(x));
    if (!(x >= -87.3f && x <= 88.3f)) {
      continue;
    }
    xs[filled++] = x;
    if (filled == kPackLanes<float>) {
      check();
    }
  }
  check();
  EXPECT_LE(worst, 1.25) << "at x = " << worst_x;
}

TEST(CpuVectorExp, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(PackExp(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(PackExp(inf), inf);
  EXPECT_EQ(PackExp(-inf), 0.0f);
  EXPECT_EQ(PackExp(0.0f), 1.0f);
  EXPECT_EQ(PackExp(-0.0f), 1.0f);
  EXPECT_EQ(PackExp(-1000.0f), 0.0f);
  EXPECT_EQ(PackExp(-88.0f), 0.0f);  // below float's normal range: flushed
  EXPECT_EQ(PackExp(1000.0f), inf);
  EXPECT_EQ(PackExp(88.5f), inf);  // from 88.38 on, as vector_exp.h says
  // Just below float's smallest normal (e^-87.5 = 9.98e-39): kept, not flushed.
  EXPECT_NEAR(PackExp(-87.5f), std::exp(-87.5), 0x1p-149);
  EXPECT_FLOAT_EQ(PackExp(88.3f), static_cast<float>(std::exp(static_cast<double>(88.3f))));
}

// The softmax variant, which leaves out the upper clamp, agrees bit for bit wherever its
// contract holds: every float <= 0 (every 7th), -inf, NaN.
TEST(CpuVectorExp, NonPositiveVariantMatchesOnItsDomain) {
  Pack<float> xs{};
  size_t filled = 0, mismatches = 0;
  float first_mismatch = 0;
  const auto check = [&]() {
    const Pack<float> general = ep::VectorExp(xs);
    const Pack<float> variant = ep::VectorExp</*kNonPositive=*/true>(xs);
    for (size_t l = 0; l < filled; ++l) {
      const float a = general[l], b = variant[l];  // (a vector lane has no address)
      if (std::memcmp(&a, &b, sizeof(float)) != 0) {
        first_mismatch = mismatches++ == 0 ? xs[l] : first_mismatch;
      }
    }
    filled = 0;
  };
  const auto add = [&](float x) {
    xs[filled++] = x;
    if (filled == kPackLanes<float>) {
      check();
    }
  };
  for (uint64_t bits = 0x80000000u; bits <= 0xff800000u; bits += 7) {  // -0 down to -inf
    float x;
    const uint32_t b = static_cast<uint32_t>(bits);
    std::memcpy(&x, &b, sizeof(x));
    add(x);
  }
  add(0.0f);
  add(-std::numeric_limits<float>::infinity());
  add(std::numeric_limits<float>::quiet_NaN());
  add(-std::numeric_limits<float>::quiet_NaN());
  check();
  EXPECT_EQ(mismatches, 0u) << "first at x = " << first_mismatch;
}

}  // namespace
}  // namespace test
}  // namespace oflite
