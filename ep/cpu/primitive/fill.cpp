// CPU Fill for every dtype.
#include "oneflow_lite/primitive/fill.h"

#include <algorithm>
#include <string>

namespace oflite {
namespace ep {
namespace {

template <typename T>
class CpuFill final : public primitive::Fill {
 public:
  std::string name() const override {
    return std::string("cpu.fill<") + DataTypeName(kDataTypeOf<T>) + ">";
  }
  Maybe<void> Launch(Stream* /*stream*/, void* dst, double value, size_t count) override {
    T* out = static_cast<T*>(dst);
    std::fill(out, out + count, static_cast<T>(value));
    return Ok();
  }
};

class CpuFillFactory final : public primitive::FillFactory {
 public:
  std::unique_ptr<primitive::Fill> New(DataType data_type) override {
    return VisitDataType(data_type, [](auto tag) -> std::unique_ptr<primitive::Fill> {
      return std::make_unique<CpuFill<typename decltype(tag)::type>>();
    });
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::FillFactory, CpuFillFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
