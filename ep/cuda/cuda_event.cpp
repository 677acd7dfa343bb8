#include "ep/cuda/cuda_event.h"

#include "ep/cuda/cuda_stream.h"

namespace oflite {
namespace ep {

Maybe<std::unique_ptr<CudaEvent>> CudaEvent::Create(int device_index, bool timing) {
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index), "cudaSetDevice"));
  cudaEvent_t event = nullptr;
  OFLITE_JUST(CudaCheck(
      cudaEventCreateWithFlags(&event, timing ? cudaEventDefault : cudaEventDisableTiming),
      "cudaEventCreateWithFlags"));
  return std::unique_ptr<CudaEvent>(new CudaEvent(event));
}

// Released by CUDA once work waiting for it is past.
CudaEvent::~CudaEvent() { cudaEventDestroy(event_); }

Maybe<void> CudaEvent::Record(Stream* stream) {
  OFLITE_CHECK_OR_RETURN(stream != nullptr && stream->device_type() == DeviceType::kCUDA,
                         ValueError)
      << "cuda event: can only record on a cuda stream";
  auto* cuda_stream = static_cast<CudaStream*>(stream);
  OFLITE_JUST(cuda_stream->SetDevice());
  return CudaCheck(cudaEventRecord(event_, cuda_stream->cuda_stream()), "cudaEventRecord");
}

Maybe<void> CudaEvent::Synchronize() {
  return CudaCheck(cudaEventSynchronize(event_), "cudaEventSynchronize");
}

Maybe<float> CudaEvent::ElapsedMsSince(const Event& start) const {
  const auto* cuda_start = dynamic_cast<const CudaEvent*>(&start);
  OFLITE_CHECK_OR_RETURN(cuda_start != nullptr, ValueError)
      << "cuda event: the start event is not a cuda event";
  float ms = 0;
  OFLITE_JUST(
      CudaCheck(cudaEventElapsedTime(&ms, cuda_start->event_, event_), "cudaEventElapsedTime"));
  return ms;
}

namespace {
Maybe<std::unique_ptr<Event>> NewCudaEvent(int device_index) {
  std::unique_ptr<CudaEvent> event;
  OFLITE_ASSIGN_OR_RETURN(event, CudaEvent::Create(device_index, /*timing=*/true));
  return std::unique_ptr<Event>(std::move(event));
}

OFLITE_REGISTER_EVENT_FACTORY(DeviceType::kCUDA, NewCudaEvent);
}  // namespace

}  // namespace ep
}  // namespace oflite
