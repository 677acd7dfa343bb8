#include <array>

#include "oneflow_lite/common/check.h"
#include "oneflow_lite/ep/device.h"

namespace oflite {
namespace ep {

namespace {
// Never destroyed: at process exit the CUDA libraries may have torn down their own state first,
// and destroying a stream's cuBLASLt handle from a static destructor then freed memory twice
// (two H200s, 2 runs of 3). The process' end reclaims what the providers hold.
std::array<std::unique_ptr<DeviceProvider>, kDeviceTypeCount>& Providers() {
  static auto* providers = new std::array<std::unique_ptr<DeviceProvider>, kDeviceTypeCount>();
  return *providers;
}
}  // namespace

void RegisterDeviceProvider(std::unique_ptr<DeviceProvider> provider) {
  auto& slot = Providers()[static_cast<size_t>(provider->type())];
  OFLITE_CHECK(slot == nullptr) << "two device providers registered for "
                                << DeviceTypeName(provider->type());
  slot = std::move(provider);
}

DeviceProvider* FindDeviceProvider(DeviceType type) {
  const auto index = static_cast<size_t>(type);
  return index < Providers().size() ? Providers()[index].get() : nullptr;
}

Maybe<Device*> GetDevice(const oflite::Device& device) {
  OFLITE_CHECK_OR_RETURN(IsValidDeviceType(device.type()), ValueError)
      << "invalid device: type value " << static_cast<int>(device.type())
      << " names no device type (expected cpu or cuda)";
  DeviceProvider* provider = FindDeviceProvider(device.type());
  OFLITE_CHECK_OR_RETURN(provider != nullptr, DeviceError)
      << "device " << device << " is not available: oneflow_lite was built without "
      << DeviceTypeName(device.type()) << " support";
  const int count = provider->DeviceCount();
  OFLITE_CHECK_OR_RETURN(device.index() >= 0 && device.index() < count, DeviceError)
      << "device " << device << " is not available: " << count << " "
      << DeviceTypeName(device.type()) << " device(s) visible";
  return provider->GetDevice(device.index());
}

int DeviceCount(DeviceType type) {
  DeviceProvider* provider = FindDeviceProvider(type);
  return provider == nullptr ? 0 : provider->DeviceCount();
}

}  // namespace ep
}  // namespace oflite
