// ep::Device: one execution device (the CPU, one GPU) with its streams and allocator, and the
// per-device-type providers that make them. Providers register themselves at load time.
#ifndef ONEFLOW_LITE_EP_DEVICE_H_
#define ONEFLOW_LITE_EP_DEVICE_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

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
  // The runtime's own stream of the device.
  virtual Stream* default_stream() = 0;
  // The stream this thread's work on the device goes to: the innermost ScopedStream's for this
  // device (oneflow_lite/ep/scoped_stream.h), else the default stream.
  Stream* stream();
  // A stream over a queue the caller owns (a cudaStream_t on CUDA, nullptr for CUDA's legacy
  // default stream), kept per queue for the life of the process; ValueError when `native` is
  // not one of this device's queues.
  virtual Maybe<Stream*> ExternalStream(void* native) = 0;

  // The allocator new tensors on the device take memory from: the caller's (SetAllocator) or
  // the built-in one.
  Allocator* allocator() {
    Allocator* set = allocator_.load(std::memory_order_acquire);
    return set != nullptr ? set : builtin_allocator();
  }
  // nullptr restores the built-in allocator; the device keeps `allocator` alive until exit.
  void SetAllocator(std::shared_ptr<Allocator> allocator);
  // Gives cached memory back: the current allocator's and, when the caller's replaced it, the
  // built-in one's (whose blocks would otherwise stay cached).
  Maybe<void> EmptyCache();
  // An allocator over one of the device's stream-ordered memory pools; NotImplemented where
  // the device has none.
  virtual Maybe<std::shared_ptr<Allocator>> NewPoolAllocator(void* pool);

 protected:
  virtual Allocator* builtin_allocator() = 0;

 private:
  std::atomic<Allocator*> allocator_{nullptr};
  std::mutex kept_mutex_;
  std::vector<std::shared_ptr<Allocator>> kept_allocators_;
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

// This thread's stream overrides, for ScopedStream (oneflow_lite/framework/scoped_stream.h):
// Push makes `stream` the device's stream on this thread; Pop removes the innermost entry of
// that pair, so scopes of one thread may end in any order.
void PushThreadStream(Device* device, Stream* stream);
void PopThreadStream(Device* device, Stream* stream);

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
