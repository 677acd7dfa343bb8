#include <array>

#include "oneflow_lite/ep/event.h"

namespace oflite {
namespace ep {

namespace {
std::array<EventFactory, kDeviceTypeCount>& Factories() {
  static std::array<EventFactory, kDeviceTypeCount> factories;
  return factories;
}
}  // namespace

void RegisterEventFactory(DeviceType type, EventFactory factory) {
  Factories()[static_cast<size_t>(type)] = std::move(factory);
}

Maybe<std::unique_ptr<Event>> NewEvent(const oflite::Device& device) {
  const auto index = static_cast<size_t>(device.type());
  OFLITE_CHECK_OR_RETURN(index < Factories().size() && Factories()[index], NotImplemented)
      << "no events for device " << device;
  return Factories()[index](device.index());
}

// Streams whose work is done when launched have nothing for another stream to wait for.
Maybe<std::unique_ptr<Event>> Stream::RecordEvent() { return std::unique_ptr<Event>(); }

}  // namespace ep
}  // namespace oflite
