// PeerWindow: one buffer of device memory per rank that every rank of the group can read and
// write, plus 32-bit flags in it that streams set and wait for (CUDA's stream memory
// operations, which the GPU's front end runs, so a wait holds no SM while kernels run). Each
// rank maps the others' buffers through CUDA IPC handles, exchanged once when the window opens:
// the ranks are processes of one host (internal).
#ifndef ONEFLOW_LITE_DIST_PEER_WINDOW_H_
#define ONEFLOW_LITE_DIST_PEER_WINDOW_H_

#if OFLITE_WITH_NCCL
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dist/gloo_communicator.h"

namespace oflite {
namespace dist {

struct WindowRecord;  // what a rank tells the others about its window when it opens

class PeerWindow {
 public:
  // Collective over `cpu`: every rank allocates `bytes` of data and `flags` flags (zeroed) on
  // GPU `device` and maps every peer's. Returns nullptr on every rank alike, with the reason in
  // `why_not`, where some rank cannot reach another's memory (no peer access between the GPUs,
  // ranks on different hosts or in one process, no stream memory operations) or cannot
  // allocate.
  static Maybe<std::unique_ptr<PeerWindow>> Open(GlooCommunicator* cpu, int device, size_t bytes,
                                                 int flags, std::string* why_not);
  PeerWindow(const PeerWindow&) = delete;
  PeerWindow& operator=(const PeerWindow&) = delete;
  ~PeerWindow();

  size_t bytes() const { return bytes_; }
  // Rank r's data as this rank addresses it.
  char* data(int r) const { return peers_[static_cast<size_t>(r)].data; }
  // The GPU holding rank r's window, as this process numbers GPUs.
  int device(int r) const { return peers_[static_cast<size_t>(r)].device; }
  // Queues, on `stream`: flag `index` of rank `owner`'s window = value, once the stream's earlier
  // writes are visible to the group.
  Maybe<void> Signal(cudaStream_t stream, int owner, int index, uint32_t value) const;
  // Queues, on `stream`: wait until this rank's flag `index` has reached `value` (a cyclic >=).
  Maybe<void> Wait(cudaStream_t stream, int index, uint32_t value) const;
  // Sets every flag of this rank's window to `value`, releasing the waits queued on it for
  // values up to it (after a peer failed); best effort, on a stream of its own.
  void ReleaseWaits(uint32_t value) const;

 private:
  struct Peer {
    char* data = nullptr;
    uint32_t* flags = nullptr;
    int device = -1;          // the GPU holding it, as this process numbers GPUs
    bool opened_ipc = false;  // mapped by cudaIpcOpenMemHandle, closed on destruction
  };
  PeerWindow(int rank, int device, size_t bytes, int flags)
      : rank_(rank), device_(device), bytes_(bytes), flags_(flags) {}
  Maybe<void> Allocate();
  // What this rank can tell alone about reaching rank r described by `them`; empty when it can.
  std::string Map(int r, const WindowRecord& mine, const WindowRecord& them);

  int rank_;
  int device_;
  size_t bytes_;
  int flags_;
  void* base_ = nullptr;  // this rank's allocation: flags, then data
  std::vector<Peer> peers_;
};

}  // namespace dist
}  // namespace oflite

#endif  // OFLITE_WITH_NCCL
#endif  // ONEFLOW_LITE_DIST_PEER_WINDOW_H_
