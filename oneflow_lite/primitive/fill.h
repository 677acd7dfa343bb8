// Fill: set every element of a buffer to one value, converted to the buffer's dtype.
#ifndef ONEFLOW_LITE_PRIMITIVE_FILL_H_
#define ONEFLOW_LITE_PRIMITIVE_FILL_H_

#include <cstddef>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace primitive {

class Fill : public Primitive {
 public:
  // value is converted as static_cast<T>(value) (bool: value != 0).
  virtual Maybe<void> Launch(ep::Stream* stream, void* dst, double value, size_t count) = 0;
};

class FillFactory : public Factory<Fill, DataType> {
 public:
  static constexpr const char* kName = "fill";
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_FILL_H_
