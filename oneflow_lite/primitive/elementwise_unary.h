// ElementwiseUnary: dst[i] = op(src[i]) over count contiguous elements.
#ifndef ONEFLOW_LITE_PRIMITIVE_ELEMENTWISE_UNARY_H_
#define ONEFLOW_LITE_PRIMITIVE_ELEMENTWISE_UNARY_H_

#include <cstddef>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/primitive/elementwise_op.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace primitive {

class ElementwiseUnary : public Primitive {
 public:
  virtual Maybe<void> Launch(ep::Stream* stream, const void* src, void* dst, size_t count) = 0;
};

// New(op, dtype, attr): src and dst share the dtype; attr is leaky_relu's alpha. nullptr when
// the device lacks the combination (e.g. exp on integers, neg on bool).
class ElementwiseUnaryFactory : public Factory<ElementwiseUnary, UnaryOp, DataType, double> {
 public:
  static constexpr const char* kName = "elementwise_unary";
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_ELEMENTWISE_UNARY_H_
