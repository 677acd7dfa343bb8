// Join: "a, b, c" from anything streamable, for the lists error messages show.
#ifndef ONEFLOW_LITE_COMMON_JOIN_H_
#define ONEFLOW_LITE_COMMON_JOIN_H_

#include <sstream>
#include <string>

namespace oflite {

template <typename Range>
std::string Join(const Range& items, const char* separator = ", ") {
  std::ostringstream out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) {
      out << separator;
    }
    out << item;
    first = false;
  }
  return out.str();
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_JOIN_H_
