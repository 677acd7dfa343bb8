// Maybe<T>: a value or an Error. Every function a user can reach returns one.
//
// Macros (portable: no GNU statement-expressions, so unwrapping is a statement):
//   OFLITE_JUST(expr);                        return expr's error (adding a frame) if it failed
//   OFLITE_ASSIGN_OR_RETURN(lhs, expr);       unwrap expr's value into lhs, or return its error
//   OFLITE_CHECK_OR_RETURN(cond, Kind) << ..; return a Kind error unless cond holds
//   return OFLITE_ERROR(Kind) << ...;         make an error of Kind (ValueError, TypeError, ...)
#ifndef ONEFLOW_LITE_COMMON_MAYBE_H_
#define ONEFLOW_LITE_COMMON_MAYBE_H_

#include <memory>
#include <type_traits>
#include <utility>
#include <variant>

#include "oneflow_lite/common/check.h"
#include "oneflow_lite/common/error.h"

namespace oflite {

template <typename T>
class [[nodiscard]] Maybe {
 public:
  Maybe(const T& value) : state_(value) {}                                   // NOLINT
  Maybe(T&& value) : state_(std::move(value)) {}                             // NOLINT
  Maybe(Error error) : state_(std::make_shared<Error>(std::move(error))) {}  // NOLINT
  Maybe(const ErrorBuilder& builder) : Maybe(builder.Build()) {}             // NOLINT
  Maybe(std::shared_ptr<Error> error) : state_(std::move(error)) {}          // NOLINT
  // Lets `return other_maybe_of_convertible_type;` work, e.g. Maybe<Derived> -> Maybe<Base>.
  template <typename U,
            typename = std::enable_if_t<std::is_convertible_v<U, T> && !std::is_same_v<U, T>>>
  Maybe(Maybe<U> other)  // NOLINT
      : state_(other.ok() ? State(T(std::move(other).value())) : State(other.error_ptr())) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    OFLITE_CHECK(ok()) << "Maybe::value() on an error: " << error().ToString();
    return std::get<0>(state_);
  }
  T&& value() && {
    OFLITE_CHECK(ok()) << "Maybe::value() on an error: " << error().ToString();
    return std::get<0>(std::move(state_));
  }
  const Error& error() const {
    OFLITE_CHECK(!ok()) << "Maybe::error() on a value";
    return *std::get<1>(state_);
  }
  const std::shared_ptr<Error>& error_ptr() const { return std::get<1>(state_); }

 private:
  using State = std::variant<T, std::shared_ptr<Error>>;
  State state_;
};

template <>
class [[nodiscard]] Maybe<void> {
 public:
  Maybe() = default;
  Maybe(Error error) : error_(std::make_shared<Error>(std::move(error))) {}  // NOLINT
  Maybe(const ErrorBuilder& builder) : Maybe(builder.Build()) {}             // NOLINT
  Maybe(std::shared_ptr<Error> error) : error_(std::move(error)) {}          // NOLINT

  bool ok() const { return error_ == nullptr; }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    OFLITE_CHECK(!ok()) << "Maybe::error() on a success";
    return *error_;
  }
  const std::shared_ptr<Error>& error_ptr() const { return error_; }

 private:
  std::shared_ptr<Error> error_;
};

inline Maybe<void> Ok() { return Maybe<void>(); }

namespace detail {
// Adds the caller's frame to a failed Maybe's error and hands the error on.
template <typename M>
std::shared_ptr<Error> PassOn(const M& maybe, const char* file, int line, const char* function) {
  maybe.error_ptr()->AddContext(file, line, function);
  return maybe.error_ptr();
}
}  // namespace detail

}  // namespace oflite

#define OFLITE_CONCAT_INNER(a, b) a##b
#define OFLITE_CONCAT(a, b) OFLITE_CONCAT_INNER(a, b)

#define OFLITE_JUST(expr)                                                                \
  do {                                                                                   \
    const auto& oflite_just_result = (expr);                                             \
    if (!oflite_just_result.ok()) {                                                      \
      return ::oflite::detail::PassOn(oflite_just_result, __FILE__, __LINE__, __func__); \
    }                                                                                    \
  } while (false)

#define OFLITE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                    \
  auto tmp = (expr);                                                    \
  if (!tmp.ok()) {                                                      \
    return ::oflite::detail::PassOn(tmp, __FILE__, __LINE__, __func__); \
  }                                                                     \
  lhs = std::move(tmp).value()

#define OFLITE_ASSIGN_OR_RETURN(lhs, expr) \
  OFLITE_ASSIGN_OR_RETURN_IMPL(OFLITE_CONCAT(oflite_maybe_, __LINE__), lhs, expr)

#define OFLITE_ERROR(kind) \
  ::oflite::ErrorBuilder(::oflite::ErrorKind::k##kind, __FILE__, __LINE__, __func__)

// `if (cond) {} else return ...` keeps a following `else` from binding to the macro's if.
#define OFLITE_CHECK_OR_RETURN(cond, kind) \
  if (cond) {                              \
  } else                                   \
    return OFLITE_ERROR(kind)

#endif  // ONEFLOW_LITE_COMMON_MAYBE_H_
