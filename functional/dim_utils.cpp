#include "functional/dim_utils.h"

#include <algorithm>

namespace oflite {
namespace functional {

Maybe<int64_t> WrapDim(const char* call, const std::string& arg, int64_t dim, int64_t rank) {
  const int64_t extent = std::max<int64_t>(rank, 1);
  OFLITE_CHECK_OR_RETURN(dim >= -extent && dim < extent, IndexError)
      << call << ": " << arg << " " << dim << " is out of range for a tensor of rank " << rank
      << " (expected " << -extent << ".." << extent - 1 << ")";
  return dim < 0 ? dim + extent : dim;
}

}  // namespace functional
}  // namespace oflite
