#include "oneflow_lite/ep/allocator.h"

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
  return ep_device->allocator()->EmptyCache();
}

}  // namespace ep
}  // namespace oflite
