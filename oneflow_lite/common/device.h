// Device: where a tensor lives, "cpu" or "cuda:N", parsed from the strings users write.
#ifndef ONEFLOW_LITE_COMMON_DEVICE_H_
#define ONEFLOW_LITE_COMMON_DEVICE_H_

#include <ostream>
#include <string>

#include "oneflow_lite/common/maybe.h"

namespace oflite {

enum class DeviceType { kCPU = 0, kCUDA = 1 };
constexpr int kDeviceTypeCount = 2;
constexpr DeviceType kAllDeviceTypes[] = {DeviceType::kCPU, DeviceType::kCUDA};

const char* DeviceTypeName(DeviceType type);  // "cpu", "cuda"; "invalid" for other values
// False for a value cast from an integer that names no device type.
inline bool IsValidDeviceType(DeviceType type) {
  return static_cast<int>(type) >= 0 && static_cast<int>(type) < kDeviceTypeCount;
}

class Device {
 public:
  Device() = default;  // cpu
  Device(DeviceType type, int index) : type_(type), index_(index) {}
  static Device Cpu() { return Device(DeviceType::kCPU, 0); }
  static Device Cuda(int index = 0) { return Device(DeviceType::kCUDA, index); }
  // "cpu", "cpu:0", "cuda", "cuda:1"; ValueError for anything else.
  static Maybe<Device> Parse(const std::string& text);

  DeviceType type() const { return type_; }
  int index() const { return index_; }
  std::string ToString() const;  // "cpu", "cuda:1"

  bool operator==(const Device& other) const {
    return type_ == other.type_ && index_ == other.index_;
  }
  bool operator!=(const Device& other) const { return !(*this == other); }

 private:
  DeviceType type_ = DeviceType::kCPU;
  int index_ = 0;
};

inline std::ostream& operator<<(std::ostream& os, const Device& device) {
  return os << device.ToString();
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_DEVICE_H_
