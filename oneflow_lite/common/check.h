// OFLITE_CHECK(cond) << message: aborts with the message when cond is false. Only for broken
// preconditions of the API itself (Maybe::value() on an error, a dim index out of range), which
// are the caller's bugs; whatever a user can get wrong returns an Error instead.
#ifndef ONEFLOW_LITE_COMMON_CHECK_H_
#define ONEFLOW_LITE_COMMON_CHECK_H_

#include <sstream>

namespace oflite {
namespace detail {

// Collects the message; its destructor sends "check failed: cond: message" to the log sink
// (oneflow_lite/common/logging.h) as a fatal line from file:line, then aborts.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  [[noreturn]] ~CheckFailure();

  template <typename T>
  CheckFailure& operator<<(const T& value) {
    message_ << value;
    return *this;
  }

 private:
  const char* file_;
  int line_;
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
