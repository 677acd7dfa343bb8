// The CPU execution provider: one device, a synchronous stream, a caching allocator over the
// aligned heap.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "ep/caching_allocator.h"
#include "oneflow_lite/ep/device.h"

namespace oflite {
namespace ep {
namespace {

class CpuStream final : public Stream {
 public:
  DeviceType device_type() const override { return DeviceType::kCPU; }
  Maybe<void> Sync() override { return Ok(); }  // CPU primitives finish inside Launch
};

// Host memory through the caching allocator: a freed tensor's block serves the next request of
// its size class instead of going back to the system.
class CpuAllocator final : public CachingAllocator {
 public:
  // 64-byte alignment lets vectorized loops use aligned loads on every row start we hand out.
  static constexpr size_t kAlignment = 64;
  static_assert(kSmallGranularity % kAlignment == 0, "aligned_alloc needs whole alignments");

  ~CpuAllocator() override { ReleaseCachedBlocks(); }

  // A zero-byte tensor still gets a real block, as before the cache: code that hands its pointer
  // to memset or memcpy with a zero size need not check for null.
  Maybe<void*> Allocate(size_t bytes, Stream* stream) override {
    return CachingAllocator::Allocate(bytes == 0 ? 1 : bytes, stream);
  }

 protected:
  Maybe<void*> DeviceMalloc(size_t bytes) override {
    return std::aligned_alloc(kAlignment, bytes);  // nullptr when the system refuses
  }
  Maybe<void> DeviceFree(void* ptr) override {
    std::free(ptr);
    return Ok();
  }
  std::string DescribeFreeMemory() override {
#if defined(_SC_AVPHYS_PAGES) && defined(_SC_PHYS_PAGES)
    // Physical memory only: swap and overcommit may still let a larger request through.
    const int64_t page = sysconf(_SC_PAGESIZE);
    const int64_t free_pages = sysconf(_SC_AVPHYS_PAGES);
    const int64_t total_pages = sysconf(_SC_PHYS_PAGES);
    if (page > 0 && free_pages >= 0 && total_pages > 0) {
      return std::to_string(free_pages * page) + " bytes free of " +
             std::to_string(total_pages * page);
    }
#endif
    return "free memory unknown";
  }
  std::string DeviceName() const override { return "cpu"; }
};

class CpuDevice final : public Device {
 public:
  oflite::Device device() const override { return oflite::Device::Cpu(); }
  Stream* default_stream() override { return &stream_; }
  // The CPU runs work when it is launched: it has one stream, and a null queue names it.
  Maybe<Stream*> ExternalStream(void* native) override {
    OFLITE_CHECK_OR_RETURN(native == nullptr, ValueError)
        << "cpu: the CPU has no streams of its own to run on (expected a null stream, got "
        << native << ")";
    return static_cast<Stream*>(&stream_);
  }

 protected:
  Allocator* builtin_allocator() override { return &allocator_; }

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
