#include "oneflow_lite/common/device.h"

#include <cctype>

namespace oflite {

const char* DeviceTypeName(DeviceType type) {
  switch (type) {
    case DeviceType::kCPU:
      return "cpu";
    case DeviceType::kCUDA:
      return "cuda";
  }
  return "invalid";
}

Maybe<Device> Device::Parse(const std::string& text) {
  const size_t colon = text.find(':');
  const std::string type_name = text.substr(0, colon);
  DeviceType type;
  if (type_name == "cpu") {
    type = DeviceType::kCPU;
  } else if (type_name == "cuda") {
    type = DeviceType::kCUDA;
  } else {
    return OFLITE_ERROR(ValueError)
           << "invalid device string '" << text << "' (expected 'cpu', 'cuda' or 'cuda:N')";
  }
  if (colon == std::string::npos) {
    return Device(type, 0);
  }
  const std::string index_text = text.substr(colon + 1);
  bool digits = !index_text.empty() && index_text.size() <= 6;
  for (char c : index_text) {
    digits = digits && std::isdigit(static_cast<unsigned char>(c));
  }
  OFLITE_CHECK_OR_RETURN(digits, ValueError)
      << "invalid device string '" << text << "': the index after ':' must be a number";
  const int index = std::stoi(index_text);
  OFLITE_CHECK_OR_RETURN(type != DeviceType::kCPU || index == 0, ValueError)
      << "invalid device string '" << text << "': there is only one cpu device, cpu:0";
  return Device(type, index);
}

std::string Device::ToString() const {
  if (!IsValidDeviceType(type_)) {
    return "<invalid device type " + std::to_string(static_cast<int>(type_)) + ">";
  }
  if (type_ == DeviceType::kCPU) {
    return "cpu";
  }
  return std::string(DeviceTypeName(type_)) + ":" + std::to_string(index_);
}

}  // namespace oflite
