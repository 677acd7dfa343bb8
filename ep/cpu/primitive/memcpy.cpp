// CPU Memcpy: host and device memory are the same memory.
#include "oneflow_lite/primitive/memcpy.h"

#include <cstring>

namespace oflite {
namespace ep {
namespace {

class CpuMemcpy final : public primitive::Memcpy {
 public:
  std::string name() const override { return "cpu.memcpy"; }
  Maybe<void> Launch(Stream* /*stream*/, void* dst, const void* src, size_t bytes) override {
    if (bytes > 0) {
      std::memcpy(dst, src, bytes);
    }
    return Ok();
  }
};

class CpuMemcpyFactory final : public primitive::MemcpyFactory {
 public:
  std::unique_ptr<primitive::Memcpy> New(primitive::MemcpyKind /*kind*/) override {
    return std::make_unique<CpuMemcpy>();
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::MemcpyFactory, CpuMemcpyFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
