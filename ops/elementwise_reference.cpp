#include "ops/elementwise_reference.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "oneflow_lite/common/logging.h"
#include "oneflow_lite/common/type_promotion.h"

namespace oflite {
namespace {

constexpr double kPi = 3.14159265358979323846;

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
// erfc keeps the lower tail accurate where 1 + erf(x) would cancel.
double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double NormalPdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * kPi); }

// The tanh approximation of gelu: 0.5 x (1 + tanh(u)), u = k (x + c x^3).
constexpr double kGeluTanhC = 0.044715;
double GeluTanhK() { return std::sqrt(2 / kPi); }

template <typename I>
double SaturatingTruncate(double v) {
  if (std::isnan(v)) {
    return 0;
  }
  const double lowest = static_cast<double>(std::numeric_limits<I>::lowest());
  const double max = static_cast<double>(std::numeric_limits<I>::max());
  return std::fmin(std::fmax(std::trunc(v), lowest), max);
}

// A whole number v (|v| < 2^64, exact in double) modulo 2^bits into the integer dtype's range.
// Only exact steps: fmod, and adding or subtracting 2^bits to a remainder of the other sign.
double WrapInteger(double v, DataType dtype) {
  const int bits = static_cast<int>(DataTypeSize(dtype)) * 8;
  const double modulus = std::ldexp(1.0, bits);
  const double m = std::fmod(v, modulus);  // in (-2^bits, 2^bits), v's sign
  if (dtype == DataType::kUInt8) {
    return m < 0 ? m + modulus : m;
  }
  const double half = std::ldexp(1.0, bits - 1);
  return m >= half ? m - modulus : m < -half ? m + modulus : m;
}

}  // namespace

double ReferenceBinary(primitive::BinaryOp op, double a, double b, double attr) {
  using primitive::BinaryOp;
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    case BinaryOp::kDiv:
      return a / b;
    case BinaryOp::kMaximum:
      return (std::isnan(a) || std::isnan(b)) ? NAN : std::fmax(a, b);
    case BinaryOp::kMinimum:
      return (std::isnan(a) || std::isnan(b)) ? NAN : std::fmin(a, b);
    case BinaryOp::kPow:
      return std::pow(a, b);
    case BinaryOp::kEq:
      return a == b ? 1.0 : 0.0;
    case BinaryOp::kNe:
      return a != b ? 1.0 : 0.0;
    case BinaryOp::kLt:
      return a < b ? 1.0 : 0.0;
    case BinaryOp::kLe:
      return a <= b ? 1.0 : 0.0;
    case BinaryOp::kGt:
      return a > b ? 1.0 : 0.0;
    case BinaryOp::kGe:
      return a >= b ? 1.0 : 0.0;
    case BinaryOp::kReluGrad:  // (dy, y)
      return b > 0 ? a : 0.0;
    case BinaryOp::kSigmoidGrad:  // (dy, y)
      return a * b * (1 - b);
    case BinaryOp::kTanhGrad:  // (dy, y)
      return a * (1 - b * b);
    case BinaryOp::kGeluGrad:  // (dy, x): d/dx x Phi(x) = Phi(x) + x phi(x)
      return a * (NormalCdf(b) + b * NormalPdf(b));
    case BinaryOp::kGeluTanhGrad: {  // (dy, x)
      const double k = GeluTanhK();
      const double t = std::tanh(k * (b + kGeluTanhC * b * b * b));
      const double du_dx = k * (1 + 3 * kGeluTanhC * b * b);
      return a * (0.5 * (1 + t) + 0.5 * b * (1 - t * t) * du_dx);
    }
    case BinaryOp::kSiluGrad: {  // (dy, x)
      const double s = Sigmoid(b);
      return a * s * (1 + b * (1 - s));
    }
    case BinaryOp::kLeakyReluGrad:  // (dy, x)
      return b > 0 ? a : attr * a;
  }
  OFLITE_LOG(FATAL) << "ReferenceBinary: no case for op " << static_cast<int>(op);
  return NAN;
}

double ReferenceUnary(primitive::UnaryOp op, double x, double attr) {
  using primitive::UnaryOp;
  switch (op) {
    case UnaryOp::kNeg:
      return -x;
    case UnaryOp::kAbs:
      return std::fabs(x);
    case UnaryOp::kExp:
      return std::exp(x);
    case UnaryOp::kLog:
      return std::log(x);
    case UnaryOp::kSqrt:
      return std::sqrt(x);
    case UnaryOp::kRsqrt:
      return 1 / std::sqrt(x);
    case UnaryOp::kSigmoid:
      return Sigmoid(x);
    case UnaryOp::kTanh:
      return std::tanh(x);
    case UnaryOp::kRelu:
      return std::isnan(x) ? x : (x > 0 ? x : 0.0);
    case UnaryOp::kGelu:
      return x * NormalCdf(x);
    case UnaryOp::kGeluTanh:
      return 0.5 * x * (1 + std::tanh(GeluTanhK() * (x + kGeluTanhC * x * x * x)));
    case UnaryOp::kSilu:
      return x * Sigmoid(x);
    case UnaryOp::kLeakyRelu:
      return x > 0 ? x : attr * x;
  }
  OFLITE_LOG(FATAL) << "ReferenceUnary: no case for op " << static_cast<int>(op);
  return NAN;
}

double ReferenceCast(double v, DataType to) {
  switch (to) {
    case DataType::kBool:
      return v != 0 ? 1.0 : 0.0;  // NaN != 0
    case DataType::kInt8:
      return SaturatingTruncate<int8_t>(v);
    case DataType::kUInt8:
      return SaturatingTruncate<uint8_t>(v);
    case DataType::kInt32:
      return SaturatingTruncate<int32_t>(v);
    case DataType::kInt64:
      return SaturatingTruncate<int64_t>(v);
    case DataType::kFloat32:
      return static_cast<float>(v);
    case DataType::kFloat16:
      return static_cast<float>(float16(v));
    case DataType::kBFloat16:
      return static_cast<float>(bfloat16(v));
    case DataType::kFloat64:
      return v;
  }
  OFLITE_LOG(FATAL) << "ReferenceCast: invalid dtype " << static_cast<int>(to);
  return NAN;
}

double ReferenceCast(double v, DataType from, DataType to) {
  const bool whole_source = from == DataType::kBool || IsIntegralDataType(from);
  return whole_source && IsIntegralDataType(to) ? WrapInteger(v, to) : ReferenceCast(v, to);
}

namespace {
// mag rounded to nearest even at `bits` significant bits (exact in a double).
double RoundToSignificantBits(uint64_t mag, int bits) {
  int width = 0;
  while (width < 64 && (mag >> width) != 0) {
    ++width;
  }
  const int drop = width - bits;
  if (drop <= 0) {
    return static_cast<double>(mag);
  }
  uint64_t kept = mag >> drop;
  const uint64_t rest = mag & ((uint64_t{1} << drop) - 1), half = uint64_t{1} << (drop - 1);
  if (rest > half || (rest == half && (kept & 1) != 0)) {
    ++kept;
  }
  return std::ldexp(static_cast<double>(kept), drop);
}
}  // namespace

double ReferenceCastInt64(int64_t v, DataType to) {
  int bits = 0;
  double largest = 0;
  switch (to) {
    case DataType::kFloat16:
      bits = 11, largest = 65504.0;
      break;
    case DataType::kBFloat16:
      bits = 8, largest = std::ldexp(255.0, 120);
      break;
    case DataType::kFloat32:
      bits = 24, largest = std::numeric_limits<float>::max();
      break;
    case DataType::kFloat64:
      bits = 53, largest = std::numeric_limits<double>::max();
      break;
    default:
      OFLITE_LOG(FATAL) << "ReferenceCastInt64: " << to << " is not a floating dtype";
  }
  const uint64_t mag = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  double r = RoundToSignificantBits(mag, bits);
  r = r > largest ? std::numeric_limits<double>::infinity() : r;
  return v < 0 ? -r : r;
}

double ReferenceStore(double r, DataType out) {
  return IsIntegralDataType(out) ? WrapInteger(r, out) : ReferenceCast(r, out);
}

}  // namespace oflite
