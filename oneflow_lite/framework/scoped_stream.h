// ScopedStream: while one lives, the calls this thread makes on a device run on a stream the
// caller owns (a cudaStream_t, e.g. PyTorch's current stream) instead of the runtime's own, and
// the tensors they make take memory for that stream. Other threads are unaffected.
//
//   OFLITE_ASSIGN_OR_RETURN(auto scope, ScopedStream::Make(Device::Cuda(0), my_stream));
//   OFLITE_ASSIGN_OR_RETURN(y, functional::Softmax(x, -1));  // queued on my_stream
//
// The caller keeps the stream alive while work or tensors made on it may still use it.
#ifndef ONEFLOW_LITE_FRAMEWORK_SCOPED_STREAM_H_
#define ONEFLOW_LITE_FRAMEWORK_SCOPED_STREAM_H_

#include <thread>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"

namespace oflite {

namespace ep {
class Device;
class Stream;
}  // namespace ep

class ScopedStream {
 public:
  // `native_stream`: a live cudaStream_t of that GPU (nullptr: CUDA's legacy default stream;
  // CUDA cannot check a handle that is not a stream at all: that is undefined behaviour, as in
  // CUDA itself); on the CPU only nullptr, which changes nothing. ValueError for a stream of
  // another device or cudaStreamPerThread, DeviceError for a device that is not available.
  static Maybe<ScopedStream> Make(const Device& device, void* native_stream);

  ScopedStream(ScopedStream&& other) noexcept;
  ScopedStream& operator=(ScopedStream&&) = delete;
  ScopedStream(const ScopedStream&) = delete;
  ScopedStream& operator=(const ScopedStream&) = delete;
  // Scopes nest; one thread's scopes may end in any order, but on the thread that made them:
  // ended on another thread, a scope cannot reach its thread's list, logs an error and stays.
  ~ScopedStream();

 private:
  ScopedStream(ep::Device* device, ep::Stream* stream);
  ep::Device* device_;
  ep::Stream* stream_;  // null once moved from
  std::thread::id thread_;
};

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_SCOPED_STREAM_H_
