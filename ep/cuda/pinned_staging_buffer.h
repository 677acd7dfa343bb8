// PinnedStagingBuffer: the page-locked host memory that copies of pageable host memory go
// through. The copy engines read and write only page-locked memory, so a pageable buffer is
// copied in chunks of kChunkBytes through kSlots slots: while the DMA of one chunk runs, the
// host copies the next chunk into (or the previous one out of) the other slot. An event per
// slot, recorded after the DMA that last used it, is what the host waits on before touching
// that slot again. One buffer per device stream, reused by every copy on it.
#ifndef ONEFLOW_LITE_EP_CUDA_PINNED_STAGING_BUFFER_H_
#define ONEFLOW_LITE_EP_CUDA_PINNED_STAGING_BUFFER_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <mutex>

#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace ep {

class PinnedStagingBuffer {
 public:
  static constexpr size_t kChunkBytes = size_t{4} << 20;
  static constexpr int kSlots = 2;

  // Allocates the pinned slots and their events on device_index (made current).
  static Maybe<std::unique_ptr<PinnedStagingBuffer>> Create(int device_index);
  PinnedStagingBuffer(const PinnedStagingBuffer&) = delete;
  PinnedStagingBuffer& operator=(const PinnedStagingBuffer&) = delete;
  ~PinnedStagingBuffer();

  // Pageable host src -> device dst. Returns once src has been read: the host may reuse it,
  // while the last chunks may still be on their way to dst in stream order.
  Maybe<void> CopyToDevice(cudaStream_t stream, void* dst, const void* src, size_t bytes);
  // Device src -> pageable host dst, in stream order after the work queued before it.
  // Returns once dst holds every byte.
  Maybe<void> CopyToHost(cudaStream_t stream, void* dst, const void* src, size_t bytes);

 private:
  PinnedStagingBuffer() = default;
  char* slot(int index) const { return host_ + static_cast<size_t>(index) * kChunkBytes; }

  std::mutex mutex_;  // one copy at a time uses the slots
  char* host_ = nullptr;
  cudaEvent_t events_[kSlots] = {};
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PINNED_STAGING_BUFFER_H_
