// Stream: an ordered queue of work on one device. On the CPU work runs when launched.
#ifndef ONEFLOW_LITE_EP_STREAM_H_
#define ONEFLOW_LITE_EP_STREAM_H_

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace ep {

class Stream {
 public:
  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  virtual ~Stream() = default;

  virtual DeviceType device_type() const = 0;
  // Waits until everything launched on the stream has finished; reports asynchronous errors.
  virtual Maybe<void> Sync() = 0;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_STREAM_H_
