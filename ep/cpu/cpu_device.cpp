// The CPU execution provider: one device, a synchronous stream, an aligned heap allocator.
#include <cstdlib>

#include "oneflow_lite/ep/device.h"

namespace oflite {
namespace ep {
namespace {

class CpuStream final : public Stream {
 public:
  DeviceType device_type() const override { return DeviceType::kCPU; }
  Maybe<void> Sync() override { return Ok(); }  // CPU primitives finish inside Launch
};

class CpuAllocator final : public Allocator {
 public:
  // 64-byte alignment lets vectorized loops use aligned loads on every row start we hand out.
  static constexpr size_t kAlignment = 64;

  Maybe<void*> Allocate(size_t bytes) override {
    const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded < bytes) {  // wrapped around: cannot exist
      return OFLITE_ERROR(OutOfMemory) << "cpu: cannot allocate " << bytes << " bytes";
    }
    void* ptr = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
    OFLITE_CHECK_OR_RETURN(ptr != nullptr, OutOfMemory)
        << "cpu: cannot allocate " << bytes << " bytes (the system refused)";
    return ptr;
  }
  void Deallocate(void* ptr, size_t /*bytes*/) override { std::free(ptr); }
};

class CpuDevice final : public Device {
 public:
  oflite::Device device() const override { return oflite::Device::Cpu(); }
  Stream* default_stream() override { return &stream_; }
  Allocator* allocator() override { return &allocator_; }

 private:
  CpuStream stream_;
  CpuAllocator allocator_;
};

class CpuDeviceProvider final : public DeviceProvider {
 public:
  DeviceType type() const override { return DeviceType::kCPU; }
  int DeviceCount() override { return 1; }
  Maybe<Device*> GetDevice(int /*index*/) override { return static_cast<Device*>(&device_); }

 private:
  CpuDevice device_;
};

OFLITE_REGISTER_DEVICE_PROVIDER(CpuDeviceProvider);

}  // namespace
}  // namespace ep
}  // namespace oflite
