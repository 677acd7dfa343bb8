// Result dtypes of mixed-dtype math, as PyTorch promotes (torch.result_type) for the dtypes
// oflite has. Categories order bool < integer < floating: a higher category wins; within a
// category the wider type wins. Departures, forced by the dtype list: int8 with uint8 gives
// int32 (PyTorch: int16, which oflite lacks). float16 with bfloat16 gives float32 as in PyTorch.
#ifndef ONEFLOW_LITE_COMMON_TYPE_PROMOTION_H_
#define ONEFLOW_LITE_COMMON_TYPE_PROMOTION_H_

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/scalar.h"

namespace oflite {

bool IsIntegralDataType(DataType data_type);  // int8, uint8, int32, int64 (not bool)

// Tensor with tensor.
DataType PromoteTypes(DataType a, DataType b);
// Tensor with scalar: the scalar only decides the category. An integer or bool tensor with a
// floating scalar gives float32 (PyTorch's default dtype); a bool tensor with an integer
// scalar gives int64; otherwise the tensor keeps its dtype.
DataType PromoteWithScalar(DataType tensor, const Scalar& scalar);
// A tensor with dims with a rank-0 tensor: the rank-0 one decides only when its category is
// higher, and then with its own dtype (float32 (3,) with float64 () stays float32; int32 (3,)
// with float64 () gives float64).
DataType PromoteWithZeroDim(DataType tensor, DataType zero_dim);

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_TYPE_PROMOTION_H_
