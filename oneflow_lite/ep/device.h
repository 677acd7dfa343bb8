// ep::Device: one execution device (the CPU, one GPU) with its stream and allocator, and the
// per-device-type providers that make them. Providers register themselves at load time.
#ifndef ONEFLOW_LITE_EP_DEVICE_H_
#define ONEFLOW_LITE_EP_DEVICE_H_

#include <memory>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/ep/allocator.h"
#include "oneflow_lite/ep/stream.h"

namespace oflite {
namespace ep {

class Device {
 public:
  Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  virtual ~Device() = default;

  virtual oflite::Device device() const = 0;
  virtual Stream* default_stream() = 0;
  virtual Allocator* allocator() = 0;
};

class DeviceProvider {
 public:
  DeviceProvider() = default;
  DeviceProvider(const DeviceProvider&) = delete;
  DeviceProvider& operator=(const DeviceProvider&) = delete;
  virtual ~DeviceProvider() = default;

  virtual DeviceType type() const = 0;
  // Devices visible now; 0 when the hardware or driver is absent.
  virtual int DeviceCount() = 0;
  // Created on first use and kept for the life of the process.
  virtual Maybe<Device*> GetDevice(int index) = 0;
};

void RegisterDeviceProvider(std::unique_ptr<DeviceProvider> provider);
// Nullptr when no provider of that type was built in.
DeviceProvider* FindDeviceProvider(DeviceType type);
// DeviceError when the type was not built in, no such device exists, or it cannot start.
Maybe<Device*> GetDevice(const oflite::Device& device);
// Devices of a type visible now; 0 when the provider is not built in.
int DeviceCount(DeviceType type);

}  // namespace ep
}  // namespace oflite

#define OFLITE_REGISTER_DEVICE_PROVIDER(ProviderClass)                                 \
  static const bool OFLITE_CONCAT(oflite_device_provider_registered_, __LINE__) = [] { \
    ::oflite::ep::RegisterDeviceProvider(std::make_unique<ProviderClass>());           \
    return true;                                                                       \
  }()

#endif  // ONEFLOW_LITE_EP_DEVICE_H_
