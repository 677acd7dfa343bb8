// The one functor table of the elementwise primitives, shared by the CPU and CUDA providers.
// Functors work on compute types only (bool, int8, uint8, int32, int64, float, double):
// providers load 16-bit floats as float and store results back with one rounding, so no
// functor is written per storage type or per device.
//
// BinaryFunctor<op>{attr}(a, b) and UnaryFunctor<op>{attr}(x); attr is leaky_relu's alpha and
// unused elsewhere. kBinarySupports<op, C> / kUnarySupports<op, C> say which compute types an
// op has: factories return nullptr for the rest.
#ifndef ONEFLOW_LITE_PRIMITIVE_ELEMENTWISE_FUNCTORS_H_
#define ONEFLOW_LITE_PRIMITIVE_ELEMENTWISE_FUNCTORS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "oneflow_lite/common/scalar.h"
#include "oneflow_lite/primitive/elementwise_op.h"

#if defined(__CUDACC__)
#define OFLITE_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define OFLITE_HOST_DEVICE inline
#endif

namespace oflite {
namespace primitive {
namespace elementwise {

// ---- math on float and double, the same calls on host and device ------------------------

OFLITE_HOST_DEVICE float Exp(float x) { return expf(x); }
OFLITE_HOST_DEVICE double Exp(double x) { return exp(x); }
OFLITE_HOST_DEVICE float Log(float x) { return logf(x); }
OFLITE_HOST_DEVICE double Log(double x) { return log(x); }
OFLITE_HOST_DEVICE float Sqrt(float x) { return sqrtf(x); }
OFLITE_HOST_DEVICE double Sqrt(double x) { return sqrt(x); }
OFLITE_HOST_DEVICE float Tanh(float x) { return tanhf(x); }
OFLITE_HOST_DEVICE double Tanh(double x) { return tanh(x); }
OFLITE_HOST_DEVICE float Reciprocal(float x) {
#if defined(__CUDA_ARCH__)
  return __frcp_rn(x);  // the hardware estimate refined, instead of a full division
#else
  return 1.0f / x;
#endif
}
OFLITE_HOST_DEVICE float Pow(float a, float b) { return powf(a, b); }
OFLITE_HOST_DEVICE double Pow(double a, double b) { return pow(a, b); }
OFLITE_HOST_DEVICE float Abs(float x) { return fabsf(x); }
OFLITE_HOST_DEVICE double Abs(double x) { return fabs(x); }

template <typename C>
constexpr bool kIsFloat = std::is_same_v<C, float> || std::is_same_v<C, double>;
template <typename C>
constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;

// Integer arithmetic wraps modulo 2^bits (as PyTorch's does in practice): signed overflow is
// undefined in C++, so it runs in the unsigned type.
template <typename C>
OFLITE_HOST_DEVICE C WrapAdd(C a, C b) {
  using U = std::make_unsigned_t<C>;
  return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename C>
OFLITE_HOST_DEVICE C WrapSub(C a, C b) {
  using U = std::make_unsigned_t<C>;
  return static_cast<C>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename C>
OFLITE_HOST_DEVICE C WrapMul(C a, C b) {
  using U = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;
  return static_cast<C>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

// Integer power by squaring; a negative exponent gives 1 / a^-b truncated: 1 for a = 1, +-1
// for a = -1, 0 otherwise (0 to a negative power is 0 too rather than a division by zero).
template <typename C>
OFLITE_HOST_DEVICE C IntPow(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b < 0) {
      if (a == 1) {
        return 1;
      }
      if (a == -1) {
        return (b % 2 == 0) ? C(1) : C(-1);
      }
      return 0;
    }
  }
  C result = 1;
  while (b > 0) {
    if (b & 1) {
      result = WrapMul(result, a);
    }
    a = WrapMul(a, a);
    b = static_cast<C>(b >> 1);
  }
  return result;
}

template <typename C>
OFLITE_HOST_DEVICE bool IsNan(C v) {
  return v != v;  // false for every integer and bool
}

template <typename C>
OFLITE_HOST_DEVICE C Sigmoid(C x) {
  return C(1) / (C(1) + Exp(-x));  // exp overflows to inf for x << 0: the result is 0, not NaN
}

constexpr double kSqrtHalf = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kGeluTanhCoef = 0.044715;

// The hardware's approximate reciprocal and exp2 on the device (one instruction each, relative
// errors about 1e-7; results below 2^-126 flush to 0), for results stored in 16 bits, whose
// rounding is far coarser. The host has the accurate functions only.
OFLITE_HOST_DEVICE float FastReciprocal(float x) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return 1.0f / x;
#endif
}
OFLITE_HOST_DEVICE float FastExp2(float x) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return exp2f(x);
#endif
}

// erfc(z) for z >= 0 as t * exp(-z^2 + P(t)), t = 1 / (1 + z / 2): P of degree 9 from Press et
// al., Numerical Recipes (erfcc; relative error 1.2e-7 in exact arithmetic, 4e-6 at most in
// float, in the far tail where -z^2 + P rounds). About 30 instructions where erfcf takes 70.
OFLITE_HOST_DEVICE float ErfcOfNonNegative(float z) {
  const float t = Reciprocal(1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = fmaf(p, t, -0.82215223f);
  p = fmaf(p, t, 1.48851587f);
  p = fmaf(p, t, -1.13520398f);
  p = fmaf(p, t, 0.27886807f);
  p = fmaf(p, t, -0.18628806f);
  p = fmaf(p, t, 0.09678418f);
  p = fmaf(p, t, 0.37409196f);
  p = fmaf(p, t, 1.00002368f);
  p = fmaf(p, t, -1.26551223f);
  return t * expf(fmaf(-z, z, p));
}
OFLITE_HOST_DEVICE double ErfcOfNonNegative(double z) { return erfc(z); }

// erfc(|x| / sqrt 2) / 2 in about 14 instructions, for results stored in 16 bits (gelu on
// 16-bit tensors is bound by instruction issue): the form above with P of degree 5, our
// least-squares fit over |x| <= 25 (relative error 2e-5), evaluated in log2 units with the
// halving folded in (Q = P log2 e - 1), and the approximate reciprocal and exp2.
OFLITE_HOST_DEVICE float FastHalfErfcOfScaled(float x) {
  const float t = FastReciprocal(fmaf(fabsf(x), 0.353553391f, 1.0f));  // 1 / (1 + |x| / sqrt 8)
  float q = 0.316455998f;
  q = fmaf(q, t, -0.982032016f);
  q = fmaf(q, t, 0.637785552f);
  q = fmaf(q, t, 0.391776145f);
  q = fmaf(q, t, 1.46274264f);
  q = fmaf(q, t, -2.82672448f);
  return t * FastExp2(fmaf(x * -0.72134752f, x, q));  // -x^2 / 2 in log2 units
}

// The standard normal CDF, erfc(-x / sqrt 2) / 2, from erfc of |x| on both sides so that
// neither tail cancels (1 + erf(x / sqrt 2) loses everything below x = -6 in float). kFast:
// for results stored in 16 bits.
template <bool kFast, typename C>
OFLITE_HOST_DEVICE C NormalCdf(C x) {
  C half_erfc;
  if constexpr (kFast && std::is_same_v<C, float>) {
    half_erfc = FastHalfErfcOfScaled(x);
  } else {
    half_erfc = C(0.5) * ErfcOfNonNegative(Abs(x) * C(kSqrtHalf));
  }
  return x < C(0) ? half_erfc : C(1) - half_erfc;
}

// ---- binary -------------------------------------------------------------------------------

template <BinaryOp op, typename C>
constexpr bool kBinarySupports = [] {
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kMul:
    case BinaryOp::kMaximum:
    case BinaryOp::kMinimum:
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
      return true;  // bool: add is or, mul is and, as in PyTorch
    case BinaryOp::kSub:
    case BinaryOp::kPow:
      return !std::is_same_v<C, bool>;  // PyTorch refuses bool subtraction
    default:
      return kIsFloat<C>;  // div (true division) and the gradients
  }
}();

// kHalfResult: results are stored as float16 or bfloat16, and gelu may use the fast erfc.
template <BinaryOp op, bool kHalfResult = false>
struct BinaryFunctor {
  double attr = 0;

  template <typename C>
  OFLITE_HOST_DEVICE auto operator()(C a, C b) const {
    if constexpr (op == BinaryOp::kEq) {
      return a == b;
    } else if constexpr (op == BinaryOp::kNe) {
      return a != b;
    } else if constexpr (op == BinaryOp::kLt) {
      return a < b;
    } else if constexpr (op == BinaryOp::kLe) {
      return a <= b;
    } else if constexpr (op == BinaryOp::kGt) {
      return a > b;
    } else if constexpr (op == BinaryOp::kGe) {
      return a >= b;
    } else {
      return static_cast<C>(Arithmetic(a, b));
    }
  }

 private:
  template <typename C>
  OFLITE_HOST_DEVICE C Arithmetic(C a, C b) const {
    if constexpr (op == BinaryOp::kAdd) {
      if constexpr (std::is_same_v<C, bool>) {
        return a || b;
      } else if constexpr (kIsInt<C>) {
        return WrapAdd(a, b);
      } else {
        return a + b;
      }
    } else if constexpr (op == BinaryOp::kSub) {
      if constexpr (kIsInt<C>) {
        return WrapSub(a, b);
      } else {
        return a - b;
      }
    } else if constexpr (op == BinaryOp::kMul) {
      if constexpr (std::is_same_v<C, bool>) {
        return a && b;
      } else if constexpr (kIsInt<C>) {
        return WrapMul(a, b);
      } else {
        return a * b;
      }
    } else if constexpr (op == BinaryOp::kDiv) {
      return a / b;  // IEEE: x / 0 is +-inf, 0 / 0 is NaN
    } else if constexpr (op == BinaryOp::kMaximum) {
      return IsNan(a) ? a : IsNan(b) ? b : (a > b ? a : b);  // NaN propagates
    } else if constexpr (op == BinaryOp::kMinimum) {
      return IsNan(a) ? a : IsNan(b) ? b : (a < b ? a : b);
    } else if constexpr (op == BinaryOp::kPow) {
      if constexpr (kIsInt<C>) {
        return IntPow(a, b);
      } else {
        return Pow(a, b);
      }
    } else if constexpr (op == BinaryOp::kReluGrad) {  // (dy, y)
      return b > C(0) ? a : C(0);
    } else if constexpr (op == BinaryOp::kSigmoidGrad) {  // (dy, y)
      return a * b * (C(1) - b);
    } else if constexpr (op == BinaryOp::kTanhGrad) {  // (dy, y)
      return a * (C(1) - b * b);
    } else if constexpr (op == BinaryOp::kGeluGrad) {  // (dy, x)
      const C cdf = NormalCdf<kHalfResult>(b);
      const C pdf = C(kInvSqrt2Pi) * Exp(C(-0.5) * b * b);
      return a * (cdf + b * pdf);
    } else if constexpr (op == BinaryOp::kGeluTanhGrad) {  // (dy, x)
      const C inner = C(kSqrt2OverPi) * (b + C(kGeluTanhCoef) * b * b * b);
      const C t = Tanh(inner);
      const C sech2 = C(1) - t * t;  // 0 where x^2 overflows d_inner: 0 * inf must not be NaN
      const C d_inner = C(kSqrt2OverPi) * (C(1) + C(3 * kGeluTanhCoef) * b * b);
      return a * (C(0.5) * (C(1) + t) + (sech2 == C(0) ? C(0) : C(0.5) * b * sech2 * d_inner));
    } else if constexpr (op == BinaryOp::kSiluGrad) {  // (dy, x)
      const C s = Sigmoid(b);
      return a * s * (C(1) + b * (C(1) - s));
    } else {
      static_assert(op == BinaryOp::kLeakyReluGrad, "every binary op has a case");
      return b > C(0) ? a : a * static_cast<C>(attr);  // (dy, x)
    }
  }
};

// ---- unary --------------------------------------------------------------------------------

template <UnaryOp op, typename C>
constexpr bool kUnarySupports = [] {
  switch (op) {
    case UnaryOp::kNeg:
    case UnaryOp::kAbs:
    case UnaryOp::kRelu:
      return !std::is_same_v<C, bool>;  // PyTorch refuses these on bool
    default:
      return kIsFloat<C>;
  }
}();

template <UnaryOp op, bool kHalfResult = false>
struct UnaryFunctor {
  double attr = 0;

  template <typename C>
  OFLITE_HOST_DEVICE C operator()(C x) const {
    if constexpr (op == UnaryOp::kNeg) {
      if constexpr (kIsInt<C>) {
        return WrapSub(C(0), x);
      } else {
        return -x;
      }
    } else if constexpr (op == UnaryOp::kAbs) {
      if constexpr (std::is_unsigned_v<C>) {
        return x;
      } else if constexpr (kIsInt<C>) {
        return x < C(0) ? WrapSub(C(0), x) : x;  // the most negative value stays itself
      } else {
        return Abs(x);
      }
    } else if constexpr (op == UnaryOp::kExp) {
      return Exp(x);
    } else if constexpr (op == UnaryOp::kLog) {
      return Log(x);
    } else if constexpr (op == UnaryOp::kSqrt) {
      return Sqrt(x);
    } else if constexpr (op == UnaryOp::kRsqrt) {
      return C(1) / Sqrt(x);
    } else if constexpr (op == UnaryOp::kSigmoid) {
      return Sigmoid(x);
    } else if constexpr (op == UnaryOp::kTanh) {
      return Tanh(x);
    } else if constexpr (op == UnaryOp::kRelu) {
      if constexpr (std::is_unsigned_v<C>) {
        return x;
      } else {
        return x < C(0) ? C(0) : x;  // NaN stays NaN
      }
    } else if constexpr (op == UnaryOp::kGelu) {
      return x * NormalCdf<kHalfResult>(x);
    } else if constexpr (op == UnaryOp::kGeluTanh) {
      return C(0.5) * x * (C(1) + Tanh(C(kSqrt2OverPi) * (x + C(kGeluTanhCoef) * x * x * x)));
    } else if constexpr (op == UnaryOp::kSilu) {
      return x * Sigmoid(x);
    } else {
      static_assert(op == UnaryOp::kLeakyRelu, "every unary op has a case");
      return x > C(0) ? x : x * static_cast<C>(attr);
    }
  }
};

// ---- cast between compute types ---------------------------------------------------------

// An integer type's limits as constants: numeric_limits' functions are host functions, which
// device code may not call.
template <typename T>
struct IntLimits {
  static constexpr T kLowest = std::numeric_limits<T>::lowest();
  static constexpr T kMax = std::numeric_limits<T>::max();
};

// To from From, both compute types. Floating to integer truncates toward zero as C++ does,
// with the cases C++ leaves undefined defined as CUDA's conversions define them: NaN gives 0,
// values beyond the integer's range (infinities included) saturate to its limits. Anything to
// bool is x != 0 (NaN gives true). Integer to integer wraps modulo 2^bits. Floating to
// floating rounds to nearest even (16-bit destinations: see the providers' store, which
// rounds once from double).
template <typename To, typename From>
OFLITE_HOST_DEVICE To CastValue(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (kIsInt<To> && kIsFloat<From>) {
    if (IsNan(v)) {
      return 0;
    }
    // Limits of To as From: the lowest is a power of two (exact); for the highest, compare
    // against 2^bits(-1), which is exact, and saturate at or above it.
    constexpr From kLow = static_cast<From>(IntLimits<To>::kLowest);
    constexpr From kHighExclusive =
        static_cast<From>(2) * static_cast<From>((IntLimits<To>::kMax / 2) + 1);
    if (v <= kLow) {
      return IntLimits<To>::kLowest;
    }
    if (v >= kHighExclusive) {
      return IntLimits<To>::kMax;
    }
    return static_cast<To>(v);
  } else if constexpr (kIsInt<To> && kIsInt<From>) {
    using U = std::make_unsigned_t<To>;
    return static_cast<To>(static_cast<U>(v));  // wraps; the conversion to To is modular
  } else {
    return static_cast<To>(v);
  }
}

// An int64 as a double rounded to odd: exact below 2^53; above, the low bits a double cannot
// hold are dropped and leave a sticky last bit, so that rounding the double to 16 bits rounds the
// integer itself once (a plain conversion rounds to 53 bits first and can make a false tie).
OFLITE_HOST_DEVICE double Int64ToDoubleRoundToOdd(int64_t v) {
  const uint64_t mag = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int drop = 0;
  while ((mag >> drop) >= (uint64_t{1} << 53)) {
    ++drop;  // at most 11
  }
  uint64_t kept = mag >> drop;
  if (drop > 0 && (mag & ((uint64_t{1} << drop) - 1)) != 0) {
    kept |= 1;
  }
  const double d = static_cast<double>(kept) * static_cast<double>(uint64_t{1} << drop);  // exact
  return v < 0 ? -d : d;
}

// A scalar operand as compute type C (host code): floating C takes the value (an integer
// scalar rounds to nearest); integer C takes an integer scalar modulo 2^bits, as integer
// arithmetic wraps, and a floating one as CastValue converts; bool C is value != 0.
template <typename C>
inline C ScalarAs(const Scalar& s) {
  if constexpr (std::is_same_v<C, bool>) {
    return s.is_float() ? s.ToDouble() != 0 : s.ToInt() != 0;
  } else if constexpr (kIsInt<C>) {
    return s.is_float() ? CastValue<C>(s.ToDouble()) : CastValue<C>(s.ToInt());
  } else {
    return s.is_float() ? static_cast<C>(s.ToDouble()) : static_cast<C>(s.ToInt());
  }
}

}  // namespace elementwise
}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_ELEMENTWISE_FUNCTORS_H_
