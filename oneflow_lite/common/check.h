// OFLITE_CHECK(cond) << message: aborts with the message when cond is false. Only for broken
// preconditions of the API itself (Maybe::value() on an error, a dim index out of range), which
// are the caller's bugs; whatever a user can get wrong returns an Error instead.
#ifndef ONEFLOW_LITE_COMMON_CHECK_H_
#define ONEFLOW_LITE_COMMON_CHECK_H_

#include <sstream>

namespace oflite {
namespace detail {

// Collects the message; its destructor prints "file:line: check failed: cond: message" to
// stderr and aborts.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  ~CheckFailure();

  template <typename T>
  CheckFailure& operator<<(const T& value) {
    message_ << value;
    return *this;
  }

 private:
  std::ostringstream message_;
};

}  // namespace detail
}  // namespace oflite

// `if (cond) {} else`: a following `else` cannot bind to the macro's if.
#define OFLITE_CHECK(cond) \
  if (cond) {              \
  } else                   \
    ::oflite::detail::CheckFailure(__FILE__, __LINE__, #cond)

#endif  // ONEFLOW_LITE_COMMON_CHECK_H_
