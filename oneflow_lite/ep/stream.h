// Stream: an ordered queue of work on one device. On the CPU work runs when launched.
#ifndef ONEFLOW_LITE_EP_STREAM_H_
#define ONEFLOW_LITE_EP_STREAM_H_

#include <memory>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace ep {

class Event;

class Stream {
 public:
  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  virtual ~Stream() = default;

  virtual DeviceType device_type() const = 0;
  // Waits until everything launched on the stream has finished; reports asynchronous errors.
  virtual Maybe<void> Sync() = 0;
  // For kernels that launch their own device code (op libraries, docs/ADDING_AN_OP.md): makes
  // the stream's device current and returns the provider's own queue, a cudaStream_t on CUDA
  // (cast it back); nullptr on the CPU, where work runs when launched. Typed as void* so that
  // this header needs no device headers.
  virtual Maybe<void*> NativeHandle() { return static_cast<void*>(nullptr); }
  // An event at the end of the work queued on this stream so far, for other streams to wait for
  // (WaitEvent) or to record again later (Event::Record); null on the CPU, whose work is done
  // when launched.
  virtual Maybe<std::unique_ptr<Event>> RecordEvent();
  // Work queued on this stream from now on runs after `event` is reached; the host does not
  // wait.
  virtual Maybe<void> WaitEvent(Event* /*event*/) { return Ok(); }
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_STREAM_H_
