#include "oneflow_lite/primitive/batch_matmul.h"

namespace oflite {
namespace primitive {

Maybe<void> CheckBatchStrides(const std::string& primitive, size_t batch, int64_t stride_a,
                              int64_t stride_b, int64_t stride_c) {
  OFLITE_CHECK_OR_RETURN(stride_a >= 0 && stride_b >= 0 && stride_c >= 0, ValueError)
      << primitive << ": negative batch stride (" << stride_a << ", " << stride_b << ", "
      << stride_c << ")";
  OFLITE_CHECK_OR_RETURN(batch <= 1 || stride_c != 0, ValueError)
      << primitive << ": stride_c 0 with batch " << batch
      << " would write every problem's result to the same c";
  return Ok();
}

}  // namespace primitive
}  // namespace oflite
