// CPU Permute for every dtype: elements move as opaque words of their size (1, 2, 4, 8 bytes),
// so one instantiation per size serves all dtypes.
#include "primitive/permute.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace oflite {
namespace ep {
namespace {

template <typename Word>
class CpuPermute final : public primitive::Permute {
 public:
  explicit CpuPermute(DataType data_type) : data_type_(data_type) {}
  std::string name() const override {
    return std::string("cpu.permute<") + DataTypeName(data_type_) + ">";
  }

  Maybe<void> Launch(Stream* /*stream*/, size_t num_dims, const int64_t* src_dims, const void* src,
                     const int64_t* perm, void* dst) override {
    const auto* in = static_cast<const Word*>(src);
    auto* out = static_cast<Word*>(dst);
    int64_t count = 1;
    for (size_t i = 0; i < num_dims; ++i) {
      count *= src_dims[i];
    }
    if (count == 0) {
      return Ok();
    }
    // Walk dst in order with an odometer over its dims, stepping src by the permuted strides.
    std::vector<int64_t> src_strides(num_dims), dst_dims(num_dims), step(num_dims),
        index(num_dims, 0);
    int64_t stride = 1;
    for (size_t i = num_dims; i-- > 0;) {
      src_strides[i] = stride;
      stride *= src_dims[i];
    }
    for (size_t i = 0; i < num_dims; ++i) {
      dst_dims[i] = src_dims[perm[i]];
      step[i] = src_strides[perm[i]];
    }
    int64_t src_offset = 0;
    for (int64_t n = 0; n < count; ++n) {
      out[n] = in[src_offset];
      for (size_t i = num_dims; i-- > 0;) {  // advance the odometer
        src_offset += step[i];
        if (++index[i] < dst_dims[i]) {
          break;
        }
        src_offset -= step[i] * dst_dims[i];
        index[i] = 0;
      }
    }
    return Ok();
  }

 private:
  DataType data_type_;
};

class CpuPermuteFactory final : public primitive::PermuteFactory {
 public:
  std::unique_ptr<primitive::Permute> New(DataType data_type, size_t /*max_num_dims*/) override {
    switch (DataTypeSize(data_type)) {
      case 1:
        return std::make_unique<CpuPermute<uint8_t>>(data_type);
      case 2:
        return std::make_unique<CpuPermute<uint16_t>>(data_type);
      case 4:
        return std::make_unique<CpuPermute<uint32_t>>(data_type);
      case 8:
        return std::make_unique<CpuPermute<uint64_t>>(data_type);
      default:
        return nullptr;
    }
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::PermuteFactory, CpuPermuteFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
