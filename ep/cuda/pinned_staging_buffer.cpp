#include "ep/cuda/pinned_staging_buffer.h"

#include <algorithm>
#include <cstring>

#include "ep/cuda/cuda_stream.h"

namespace oflite {
namespace ep {

Maybe<std::unique_ptr<PinnedStagingBuffer>> PinnedStagingBuffer::Create(int device_index) {
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index), "cudaSetDevice"));
  std::unique_ptr<PinnedStagingBuffer> buffer(new PinnedStagingBuffer());
  void* host = nullptr;
  OFLITE_JUST(
      CudaCheck(cudaHostAlloc(&host, kSlots * kChunkBytes, cudaHostAllocDefault), "cudaHostAlloc"));
  buffer->host_ = static_cast<char*>(host);
  for (cudaEvent_t& event : buffer->events_) {
    OFLITE_JUST(CudaCheck(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
                          "cudaEventCreateWithFlags"));
  }
  return buffer;
}

PinnedStagingBuffer::~PinnedStagingBuffer() {
  // At process exit the CUDA runtime may already be gone: errors here change nothing.
  for (cudaEvent_t event : events_) {
    if (event != nullptr) {
      cudaEventDestroy(event);
    }
  }
  if (host_ != nullptr) {
    cudaFreeHost(host_);
  }
}

Maybe<void> PinnedStagingBuffer::CopyToDevice(cudaStream_t stream, void* dst, const void* src,
                                              size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t offset = 0, chunk = 0; offset < bytes; offset += kChunkBytes, ++chunk) {
    const int index = static_cast<int>(chunk % kSlots);
    const size_t size = std::min(kChunkBytes, bytes - offset);
    // The DMA that last read this slot (this copy's or an earlier one's) must be done.
    OFLITE_JUST(CudaCheck(cudaEventSynchronize(events_[index]), "cudaEventSynchronize"));
    std::memcpy(slot(index), static_cast<const char*>(src) + offset, size);
    OFLITE_JUST(CudaCheck(cudaMemcpyAsync(static_cast<char*>(dst) + offset, slot(index), size,
                                          cudaMemcpyHostToDevice, stream),
                          "cudaMemcpyAsync (host to device)"));
    OFLITE_JUST(CudaCheck(cudaEventRecord(events_[index], stream), "cudaEventRecord"));
  }
  return Ok();
}

Maybe<void> PinnedStagingBuffer::CopyToHost(cudaStream_t stream, void* dst, const void* src,
                                            size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
  // Queues chunk's DMA into its slot. Stream order puts it after any earlier DMA that read the
  // slot, and the host finished reading the slot's previous chunk before asking for this one.
  auto issue = [&](size_t chunk) -> Maybe<void> {
    const int index = static_cast<int>(chunk % kSlots);
    const size_t offset = chunk * kChunkBytes;
    const size_t size = std::min(kChunkBytes, bytes - offset);
    OFLITE_JUST(CudaCheck(cudaMemcpyAsync(slot(index), static_cast<const char*>(src) + offset, size,
                                          cudaMemcpyDeviceToHost, stream),
                          "cudaMemcpyAsync (device to host)"));
    return CudaCheck(cudaEventRecord(events_[index], stream), "cudaEventRecord");
  };
  if (chunks > 0) {
    OFLITE_JUST(issue(0));
  }
  for (size_t chunk = 0; chunk < chunks; ++chunk) {
    if (chunk + 1 < chunks) {
      OFLITE_JUST(issue(chunk + 1));  // in flight while this chunk is copied out
    }
    const int index = static_cast<int>(chunk % kSlots);
    const size_t offset = chunk * kChunkBytes;
    const size_t size = std::min(kChunkBytes, bytes - offset);
    OFLITE_JUST(CudaCheck(cudaEventSynchronize(events_[index]), "cudaEventSynchronize"));
    std::memcpy(static_cast<char*>(dst) + offset, slot(index), size);
  }
  return Ok();
}

}  // namespace ep
}  // namespace oflite
