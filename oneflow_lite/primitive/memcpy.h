// Memcpy: copy bytes between host and a device, or within one device.
#ifndef ONEFLOW_LITE_PRIMITIVE_MEMCPY_H_
#define ONEFLOW_LITE_PRIMITIVE_MEMCPY_H_

#include <cstddef>

#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace primitive {

// Directions are relative to the factory's device: kHostToDevice copies into it.
enum class MemcpyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };

class Memcpy : public Primitive {
 public:
  virtual Maybe<void> Launch(ep::Stream* stream, void* dst, const void* src, size_t bytes) = 0;
  // `rows` rows of `row_bytes` each, `src_stride` bytes apart in src and `dst_stride` apart in
  // dst (both at least row_bytes). The default copies row by row; a provider may do it at once.
  virtual Maybe<void> Launch2D(ep::Stream* stream, void* dst, size_t dst_stride, const void* src,
                               size_t src_stride, size_t row_bytes, size_t rows) {
    for (size_t r = 0; r < rows; ++r) {
      OFLITE_JUST(Launch(stream, static_cast<char*>(dst) + r * dst_stride,
                         static_cast<const char*>(src) + r * src_stride, row_bytes));
    }
    return Ok();
  }
};

class MemcpyFactory : public Factory<Memcpy, MemcpyKind> {
 public:
  static constexpr const char* kName = "memcpy";
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_MEMCPY_H_
