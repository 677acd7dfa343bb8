#include "oneflow_lite/ep/allocator.h"

#include <utility>

#include "oneflow_lite/ep/device.h"

namespace oflite {
namespace ep {

Maybe<AllocatorStats> GetAllocatorStats(const oflite::Device& device) {
  Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, GetDevice(device));
  return ep_device->allocator()->GetStats();
}

Maybe<void> EmptyCache(const oflite::Device& device) {
  Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, GetDevice(device));
  return ep_device->EmptyCache();
}

Maybe<void> SetAllocator(const oflite::Device& device, std::shared_ptr<Allocator> allocator) {
  Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, GetDevice(device));
  ep_device->SetAllocator(std::move(allocator));
  return Ok();
}

Maybe<std::shared_ptr<Allocator>> NewCudaPoolAllocator(const oflite::Device& device, void* pool) {
  OFLITE_CHECK_OR_RETURN(device.type() == DeviceType::kCUDA, NotImplemented)
      << "NewCudaPoolAllocator: device must be a cuda device, got " << device;
  Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, GetDevice(device));
  return ep_device->NewPoolAllocator(pool);
}

}  // namespace ep
}  // namespace oflite
