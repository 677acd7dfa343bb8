// CUDA events for timing work on a CudaStream.
#include "ep/cuda/cuda_stream.h"
#include "oneflow_lite/ep/event.h"

namespace oflite {
namespace ep {
namespace {

class CudaEvent final : public Event {
 public:
  explicit CudaEvent(cudaEvent_t event) : event_(event) {}
  ~CudaEvent() override { cudaEventDestroy(event_); }

  Maybe<void> Record(Stream* stream) override {
    OFLITE_CHECK_OR_RETURN(stream != nullptr && stream->device_type() == DeviceType::kCUDA,
                           ValueError)
        << "cuda event: can only record on a cuda stream";
    auto* cuda_stream = static_cast<CudaStream*>(stream);
    OFLITE_JUST(cuda_stream->SetDevice());
    return CudaCheck(cudaEventRecord(event_, cuda_stream->cuda_stream()), "cudaEventRecord");
  }
  Maybe<void> Synchronize() override {
    return CudaCheck(cudaEventSynchronize(event_), "cudaEventSynchronize");
  }
  Maybe<float> ElapsedMsSince(const Event& start) const override {
    const auto* cuda_start = dynamic_cast<const CudaEvent*>(&start);
    OFLITE_CHECK_OR_RETURN(cuda_start != nullptr, ValueError)
        << "cuda event: the start event is not a cuda event";
    float ms = 0;
    OFLITE_JUST(
        CudaCheck(cudaEventElapsedTime(&ms, cuda_start->event_, event_), "cudaEventElapsedTime"));
    return ms;
  }

 private:
  cudaEvent_t event_;
};

Maybe<std::unique_ptr<Event>> NewCudaEvent(int device_index) {
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index), "cudaSetDevice"));
  cudaEvent_t event = nullptr;
  OFLITE_JUST(CudaCheck(cudaEventCreate(&event), "cudaEventCreate"));
  return std::unique_ptr<Event>(std::make_unique<CudaEvent>(event));
}

OFLITE_REGISTER_EVENT_FACTORY(DeviceType::kCUDA, NewCudaEvent);

}  // namespace
}  // namespace ep
}  // namespace oflite
