#include "oneflow_lite/common/error.h"

namespace oflite {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kValueError:
      return "ValueError";
    case ErrorKind::kTypeError:
      return "TypeError";
    case ErrorKind::kIndexError:
      return "IndexError";
    case ErrorKind::kNotImplemented:
      return "NotImplemented";
    case ErrorKind::kDeviceError:
      return "DeviceError";
    case ErrorKind::kOutOfMemory:
      return "OutOfMemory";
    case ErrorKind::kRuntimeError:
      return "RuntimeError";
  }
  return "UnknownError";
}

void Error::AddContext(const char* file, int line, const char* function) {
  std::ostringstream frame;
  frame << function << " (" << file << ":" << line << ")";
  context_.push_back(frame.str());
}

std::string Error::ToString() const {
  std::string text = std::string(ErrorKindName(kind_)) + ": " + message_;
  for (const std::string& frame : context_) {
    text += "\n  at " + frame;
  }
  return text;
}

}  // namespace oflite
