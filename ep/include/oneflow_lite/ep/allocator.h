// Allocator: device memory for tensors. Allocate fails with OutOfMemory, never aborts.
#ifndef ONEFLOW_LITE_EP_ALLOCATOR_H_
#define ONEFLOW_LITE_EP_ALLOCATOR_H_

#include <cstddef>

#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace ep {

class Allocator {
 public:
  Allocator() = default;
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;
  virtual ~Allocator() = default;

  // A zero-byte request returns a valid pointer-or-null that Deallocate accepts.
  virtual Maybe<void*> Allocate(size_t bytes) = 0;
  virtual void Deallocate(void* ptr, size_t bytes) = 0;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_ALLOCATOR_H_
