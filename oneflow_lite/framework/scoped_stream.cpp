#include "oneflow_lite/framework/scoped_stream.h"

#include "oneflow_lite/common/logging.h"
#include "oneflow_lite/ep/device.h"

namespace oflite {

Maybe<ScopedStream> ScopedStream::Make(const Device& device, void* native_stream) {
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(device));
  ep::Stream* stream = nullptr;
  OFLITE_ASSIGN_OR_RETURN(stream, ep_device->ExternalStream(native_stream));
  return ScopedStream(ep_device, stream);
}

ScopedStream::ScopedStream(ep::Device* device, ep::Stream* stream)
    : device_(device), stream_(stream), thread_(std::this_thread::get_id()) {
  ep::PushThreadStream(device_, stream_);
}

ScopedStream::ScopedStream(ScopedStream&& other) noexcept
    : device_(other.device_), stream_(other.stream_), thread_(other.thread_) {
  other.stream_ = nullptr;
}

ScopedStream::~ScopedStream() {
  if (stream_ == nullptr) {
    return;
  }
  if (thread_ != std::this_thread::get_id()) {
    OFLITE_LOG(ERROR) << "ScopedStream of " << device_->device()
                      << " ended on another thread than the one that made it: the scope stays "
                         "in force on that thread";
    return;
  }
  ep::PopThreadStream(device_, stream_);
}

}  // namespace oflite
