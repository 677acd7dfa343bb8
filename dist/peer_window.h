// PeerWindow: one buffer of device memory per rank that every rank of the group can read and
// write, plus 32-bit flags in it that streams set and wait for (CUDA's stream memory
// operations, which the GPU's front end runs, so a wait holds no SM while kernels run). Each
// rank maps the others' buffers through CUDA IPC handles, exchanged once when the window opens:
// the ranks are processes of one host (internal).
#ifndef ONEFLOW_LITE_DIST_PEER_WINDOW_H_
#define ONEFLOW_LITE_DIST_PEER_WINDOW_H_

#if OFLITE_WITH_NCCL
#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dist/gloo_communicator.h"

namespace oflite {
namespace dist {

struct WindowRecord;  // what a rank tells the others about its window when it opens

struct WindowOptions {
  size_t bytes = 0;     // data a rank
  int flags = 0;        // flags a rank, zeroed
  int64_t setting = 0;  // what every rank must pass alike (the caller's settings)
  std::string decline;  // non-empty: this rank does not take part, and why
};

class PeerWindow {
 public:
  // Collective over `cpu`: every rank allocates its window on GPU `device` and maps every
  // peer's. Returns nullptr on every rank alike, with the reason in `why_not`, where some rank
  // declines, passes another setting, cannot allocate or cannot reach another's memory (another
  // host or the same process, no peer access between the GPUs, no stream memory operations).
  static Maybe<std::unique_ptr<PeerWindow>> Open(GlooCommunicator* cpu, int device,
                                                 const WindowOptions& options,
                                                 std::string* why_not);
  PeerWindow(const PeerWindow&) = delete;
  PeerWindow& operator=(const PeerWindow&) = delete;
  ~PeerWindow();

  size_t bytes() const { return bytes_; }
  // Rank r's data as this rank addresses it.
  char* data(int r) const { return peers_[static_cast<size_t>(r)].data; }
  // Queues, on `stream`: flag `index` of rank `owner`'s window = value, once the stream's earlier
  // writes are visible to the group.
  Maybe<void> Signal(cudaStream_t stream, int owner, int index, uint32_t value) const;
  // Queues, on `stream`: wait until this rank's flag `index` has reached `value` (a cyclic >=).
  Maybe<void> Wait(cudaStream_t stream, int index, uint32_t value) const;
  // Whether this rank's flags [first, first + count) all reach `value` within `timeout`, read
  // from the host (on the window's own stream). After false, Keep() the window: the read may
  // still land in its host buffer.
  bool FlagsReach(int first, int count, uint32_t value, std::chrono::milliseconds timeout) const;
  // Sets every flag of this rank's window to `value`, releasing the waits queued on it for
  // values up to it (after a peer failed); best effort, on the window's own stream, which may
  // share a hardware queue with a blocked one.
  void ReleaseWaits(uint32_t value) const;
  // Leaves the window allocated and mapped at destruction (a peer may still read it).
  void Keep() { kept_ = true; }

 private:
  struct Peer {
    char* data = nullptr;
    uint32_t* flags = nullptr;
    bool opened_ipc = false;  // mapped by cudaIpcOpenMemHandle, closed on destruction
  };
  PeerWindow(int rank, int device, size_t bytes, int flags)
      : rank_(rank), device_(device), bytes_(bytes), flags_(flags) {}
  // Allocates and describes this rank's window; the reason it cannot, or "".
  std::string Prepare(const WindowOptions& options, WindowRecord* mine);
  // Maps every peer's window; the first reason one cannot be, or "".
  std::string MapAll(const std::vector<WindowRecord>& all);
  std::string Map(int r, const WindowRecord& mine, const WindowRecord& them);

  int rank_;
  int device_;
  size_t bytes_;
  int flags_;
  void* base_ = nullptr;            // this rank's allocation: flags, then data
  cudaStream_t stream_ = nullptr;   // the window's own: zeroing, reading and releasing flags
  uint32_t* host_flags_ = nullptr;  // pinned: where FlagsReach reads this rank's flags
  bool kept_ = false;
  std::vector<Peer> peers_;
};

}  // namespace dist
}  // namespace oflite

#endif  // OFLITE_WITH_NCCL
#endif  // ONEFLOW_LITE_DIST_PEER_WINDOW_H_
