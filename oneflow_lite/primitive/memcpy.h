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
};

class MemcpyFactory : public Factory<Memcpy, MemcpyKind> {
 public:
  static constexpr const char* kName = "memcpy";
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_MEMCPY_H_
