#include "oneflow_lite/common/check.h"

#include <cstdio>
#include <cstdlib>

namespace oflite {
namespace detail {

CheckFailure::CheckFailure(const char* file, int line, const char* condition) {
  message_ << file << ":" << line << ": check failed: " << condition << ": ";
}

CheckFailure::~CheckFailure() {
  std::fprintf(stderr, "%s\n", message_.str().c_str());
  std::abort();
}

}  // namespace detail
}  // namespace oflite
