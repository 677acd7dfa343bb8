// CudaEvent: a cudaEvent_t as an ep::Event, for timing (oflite bench) and for one stream to wait
// for another's work (CudaStream::RecordEvent / WaitEvent).
#ifndef ONEFLOW_LITE_EP_CUDA_CUDA_EVENT_H_
#define ONEFLOW_LITE_EP_CUDA_CUDA_EVENT_H_

#include <cuda_runtime.h>

#include <memory>

#include "oneflow_lite/ep/event.h"

namespace oflite {
namespace ep {

class CudaEvent final : public Event {
 public:
  // `timing` false: a lighter event that cannot measure (ElapsedMsSince fails), for ordering.
  static Maybe<std::unique_ptr<CudaEvent>> Create(int device_index, bool timing);
  ~CudaEvent() override;

  Maybe<void> Record(Stream* stream) override;
  Maybe<void> Synchronize() override;
  Maybe<float> ElapsedMsSince(const Event& start) const override;
  cudaEvent_t native() const { return event_; }

 private:
  explicit CudaEvent(cudaEvent_t event) : event_(event) {}
  cudaEvent_t event_;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_CUDA_EVENT_H_
