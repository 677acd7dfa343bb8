// Event: a point in a stream's work, for timing. On CUDA it is a cudaEvent (the time the GPU
// reached it); on the CPU, the host clock when recorded (CPU streams run work at launch).
#ifndef ONEFLOW_LITE_EP_EVENT_H_
#define ONEFLOW_LITE_EP_EVENT_H_

#include <functional>
#include <memory>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/ep/stream.h"

namespace oflite {
namespace ep {

class Event {
 public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  virtual ~Event() = default;

  virtual Maybe<void> Record(Stream* stream) = 0;
  // Waits until the stream has reached the recorded point.
  virtual Maybe<void> Synchronize() = 0;
  // Milliseconds from `start` to this event; both recorded and reached.
  virtual Maybe<float> ElapsedMsSince(const Event& start) const = 0;
};

using EventFactory = std::function<Maybe<std::unique_ptr<Event>>(int device_index)>;
void RegisterEventFactory(DeviceType type, EventFactory factory);
// NotImplemented when the device type has no events.
Maybe<std::unique_ptr<Event>> NewEvent(const oflite::Device& device);

}  // namespace ep
}  // namespace oflite

#define OFLITE_REGISTER_EVENT_FACTORY(device_type, factory)                          \
  static const bool OFLITE_CONCAT(oflite_event_factory_registered_, __LINE__) = [] { \
    ::oflite::ep::RegisterEventFactory(device_type, factory);                        \
    return true;                                                                     \
  }()

#endif  // ONEFLOW_LITE_EP_EVENT_H_
