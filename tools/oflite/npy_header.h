// The header of a NumPy .npy file: a Python dict literal with the keys 'descr', 'fortran_order'
// and 'shape', read as numpy.lib.format does it (ast.literal_eval, then the key and value checks).
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_NPY_HEADER_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_NPY_HEADER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace npy {

struct Header {
  std::string descr;  // e.g. "<f4"
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// One linear pass, no recursion. Accepts a subset of what NumPy accepts (single- or
// double-quoted strings without escapes, decimal integers, no comments; only spaces and tabs
// before the dict, and spaces, tabs and then line ends after it) and refuses everything NumPy
// refuses: other or missing keys, a value of the wrong type, bytes outside printable ASCII and
// whitespace. A key given twice keeps its last value, as a Python dict does.
// ValueError messages do not name the file; the caller adds it.
Maybe<Header> ParseHeader(std::string_view text);

}  // namespace npy
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_NPY_HEADER_H_
