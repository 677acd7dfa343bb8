// Error: what went wrong (a kind and a message) and where (a chain of context frames).
#ifndef ONEFLOW_LITE_COMMON_ERROR_H_
#define ONEFLOW_LITE_COMMON_ERROR_H_

#include <sstream>
#include <string>
#include <vector>

namespace oflite {

// The kinds mirror the Python exceptions a OneFlow or PyTorch user already knows.
enum class ErrorKind {
  kValueError,
  kTypeError,
  kIndexError,
  kNotImplemented,
  kDeviceError,
  kOutOfMemory,
  kRuntimeError,
};

const char* ErrorKindName(ErrorKind kind);

class Error {
 public:
  Error(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  // Innermost frame first: where the error was raised, then each caller that passed it on.
  const std::vector<std::string>& context() const { return context_; }

  void AddContext(const char* file, int line, const char* function);
  // "ValueError: <message>" followed by the context frames, one per line.
  std::string ToString() const;

 private:
  ErrorKind kind_;
  std::string message_;
  std::vector<std::string> context_;
};

// Collects a message with operator<< and converts to any Maybe<T> (see maybe.h).
class ErrorBuilder {
 public:
  ErrorBuilder(ErrorKind kind, const char* file, int line, const char* function)
      : kind_(kind), file_(file), line_(line), function_(function) {}

  template <typename T>
  ErrorBuilder& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

  Error Build() const {
    Error error(kind_, stream_.str());
    error.AddContext(file_, line_, function_);
    return error;
  }

 private:
  ErrorKind kind_;
  const char* file_;
  int line_;
  const char* function_;
  std::ostringstream stream_;
};

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_ERROR_H_
