#include "oneflow_lite/common/check.h"

#include "oneflow_lite/common/logging.h"

namespace oflite {
namespace detail {

CheckFailure::CheckFailure(const char* file, int line, const char* condition)
    : file_(file), line_(line) {
  message_ << "check failed: " << condition << ": ";
}

CheckFailure::~CheckFailure() { SendFatalLogLine(file_, line_, message_.str()); }

}  // namespace detail
}  // namespace oflite
