// Scalar: a number passed where a tensor could be (x + 2.5, 2.5 - x). It keeps its kind (bool,
// integer or floating) because type promotion depends on it: a scalar never widens a tensor's
// dtype within its kind, but an integer tensor plus a floating scalar is floating.
#ifndef ONEFLOW_LITE_COMMON_SCALAR_H_
#define ONEFLOW_LITE_COMMON_SCALAR_H_

#include <cstdint>
#include <ostream>
#include <type_traits>

namespace oflite {

class Scalar {
 public:
  enum class Kind { kBool, kInt, kFloat };

  Scalar(bool v) : kind_(Kind::kBool), i_(v ? 1 : 0), d_(v ? 1 : 0) {}  // NOLINT: implicit
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>,
                                         int> = 0>
  Scalar(T v)  // NOLINT: implicit, so that Add(x, 2) reads naturally
      : kind_(Kind::kInt), i_(static_cast<int64_t>(v)), d_(static_cast<double>(v)) {}
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v)  // NOLINT: implicit
      : kind_(Kind::kFloat), i_(static_cast<int64_t>(0)), d_(static_cast<double>(v)) {}

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_float() const { return kind_ == Kind::kFloat; }
  // The value as a double (exact for floats and for integers up to 2^53 in magnitude).
  double ToDouble() const { return d_; }
  // The value of a bool or integer scalar.
  int64_t ToInt() const { return i_; }

 private:
  Kind kind_;
  int64_t i_;
  double d_;
};

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.is_bool()) {
    return os << (s.ToInt() != 0 ? "true" : "false");
  }
  if (s.is_int()) {
    return os << s.ToInt();
  }
  return os << s.ToDouble();
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_SCALAR_H_
