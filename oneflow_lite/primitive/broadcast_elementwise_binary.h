// BroadcastElementwiseBinary: dst = op(src0, src1) with NumPy broadcasting; all contiguous.
#ifndef ONEFLOW_LITE_PRIMITIVE_BROADCAST_ELEMENTWISE_BINARY_H_
#define ONEFLOW_LITE_PRIMITIVE_BROADCAST_ELEMENTWISE_BINARY_H_

#include <cstddef>
#include <cstdint>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/scalar.h"
#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/primitive/elementwise_op.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace primitive {

class BroadcastElementwiseBinary : public Primitive {
 public:
  // The operands' dims broadcast (checked by callers; ranks may differ and may be 0); dst has
  // the broadcast shape. Operands and dst are the factory's src and dst dtypes.
  virtual Maybe<void> Launch(ep::Stream* stream, size_t num_src0_dims, const int64_t* src0_dims,
                             const void* src0, size_t num_src1_dims, const int64_t* src1_dims,
                             const void* src1, void* dst) = 0;
  // dst[i] = op(src[i], scalar), or op(scalar, src[i]) when scalar_first, over count elements.
  // The scalar enters in the compute type (elementwise::ScalarAs): float for 16-bit dtypes, so
  // that float16 x * 1e-7 is not x times 1e-7 rounded to float16; exact for int64.
  virtual Maybe<void> LaunchWithScalar(ep::Stream* stream, const Scalar& scalar, bool scalar_first,
                                       const void* src, void* dst, size_t count) = 0;
};

// New(op, src dtype, dst dtype, max rank, attr): dst dtype is bool for comparisons and the src
// dtype otherwise; attr is leaky_relu_grad's alpha. nullptr when the device lacks the
// combination (e.g. sub on bool, div on integers).
class BroadcastElementwiseBinaryFactory
    : public Factory<BroadcastElementwiseBinary, BinaryOp, DataType, DataType, size_t, double> {
 public:
  static constexpr const char* kName = "broadcast_elementwise_binary";
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_BROADCAST_ELEMENTWISE_BINARY_H_
