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

Maybe<void> CheckGradPair(const char* call, const Shape& y_shape, DataType y_dtype,
                          const Shape& dy_shape, DataType dy_dtype) {
  OFLITE_CHECK_OR_RETURN(y_shape == dy_shape, ValueError)
      << call << ": y and dy must have the same shape, got y " << y_shape << " and dy " << dy_shape;
  OFLITE_CHECK_OR_RETURN(y_dtype == dy_dtype, TypeError)
      << call << ": y and dy must have the same dtype, got y " << y_dtype << " and dy " << dy_dtype;
  return Ok();
}

}  // namespace functional
}  // namespace oflite
