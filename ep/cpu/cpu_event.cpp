// CPU events: the host clock at Record (CPU primitives finish inside Launch).
#include <chrono>

#include "oneflow_lite/ep/event.h"

namespace oflite {
namespace ep {
namespace {

class CpuEvent final : public Event {
 public:
  Maybe<void> Record(Stream* /*stream*/) override {
    time_ = std::chrono::steady_clock::now();
    return Ok();
  }
  Maybe<void> Synchronize() override { return Ok(); }
  Maybe<float> ElapsedMsSince(const Event& start) const override {
    const auto* begin = dynamic_cast<const CpuEvent*>(&start);
    OFLITE_CHECK_OR_RETURN(begin != nullptr, ValueError)
        << "cpu event: the start event is not a cpu event";
    return std::chrono::duration<float, std::milli>(time_ - begin->time_).count();
  }

 private:
  std::chrono::steady_clock::time_point time_;
};

OFLITE_REGISTER_EVENT_FACTORY(DeviceType::kCPU, [](int) -> Maybe<std::unique_ptr<Event>> {
  return std::unique_ptr<Event>(std::make_unique<CpuEvent>());
});

}  // namespace
}  // namespace ep
}  // namespace oflite
