// The CUDA communicator's AllGatherColumns (oneflow_lite/dist/communicator.h) over a PeerWindow:
// this rank's block is made in row chunks into its window, and each rank's copy engines pull
// every peer's chunk into their columns of the output while the next chunk is made (internal).
//
// Per call s, on rank r with the caller's stream x:
//   x:       wait until every peer acknowledged call s-1 (it has read r's window), then for
//            each chunk: produce it into the window, signal "chunk c of call s" to every peer;
//   pull p:  for each chunk: wait for p's signal, copy p's rows into p's columns of out;
//            then acknowledge call s in p's window;
//   own:     after each chunk on x, copy r's rows into r's columns of out;
//   x waits for the pulls and the own copy, and the host waits for x (the world's timeout).
// x's waits at the start need nothing more from r (the peers' reads of call s-1 were queued
// then), and all of x's work is queued before the copy streams' waits on peers, so a copy stream
// that shares a hardware queue with x cannot hold x behind a peer.
#ifndef ONEFLOW_LITE_DIST_PEER_COLUMN_GATHER_H_
#define ONEFLOW_LITE_DIST_PEER_COLUMN_GATHER_H_

#if OFLITE_WITH_NCCL
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dist/gloo_communicator.h"
#include "dist/peer_window.h"

namespace oflite {
namespace dist {

class PeerColumnGather {
 public:
  static constexpr int kMaxChunks = 16;  // the most row chunks a call is made in

  PeerColumnGather(GlooCommunicator* cpu, int device, std::chrono::milliseconds timeout);
  PeerColumnGather(const PeerColumnGather&) = delete;
  PeerColumnGather& operator=(const PeerColumnGather&) = delete;
  ~PeerColumnGather();

  // As AllGatherColumns, on `stream` of this rank's GPU; the arguments are checked.
  Maybe<bool> Run(const Communicator::BlockProducer& produce, int64_t rows,
                  const std::vector<int64_t>& cols, DataType dtype, void* out, cudaStream_t stream);

 private:
  struct Layout;
  // A window of at least `bytes` a rank (collective); false when the ranks cannot share one.
  Maybe<bool> Ready(size_t bytes);
  Maybe<void> MakeStreams();
  // The caller's stream: the producer's chunks into this rank's window, each signalled.
  Maybe<void> QueueProducer(const Communicator::BlockProducer& produce, const Layout& layout,
                            cudaStream_t stream, uint32_t seq);
  // The copy streams: every rank's chunks into its columns of out, joined into the caller's.
  Maybe<void> QueueCopies(const Layout& layout, char* out, cudaStream_t stream, uint32_t seq);
  Maybe<void> WaitForHost(uint32_t seq);
  std::string MissingRanks();  // "1, 3": the ranks whose blocks have not all been copied

  cudaEvent_t begin() const { return events_[0]; }
  cudaEvent_t end() const { return events_[1]; }
  cudaEvent_t made(int chunk) const { return events_[2 + static_cast<size_t>(chunk)]; }
  cudaEvent_t copied(int rank) const { return events_[2 + kMaxChunks + static_cast<size_t>(rank)]; }

  GlooCommunicator* cpu_;
  int device_;
  std::chrono::milliseconds timeout_;
  bool unavailable_ = false;  // decided alike on every rank: at the first call, or a regrowth
  bool failed_ = false;       // a call failed part-way: the ranks' call counts may differ
  std::unique_ptr<PeerWindow> window_;
  uint32_t seq_ = 0;                        // calls made on the window, the same on every rank
  std::vector<cudaStream_t> copy_streams_;  // one a rank: pulls from peers, the own copy
  std::vector<cudaEvent_t> events_;         // begin, end, made a chunk, copied a rank
};

}  // namespace dist
}  // namespace oflite

#endif  // OFLITE_WITH_NCCL
#endif  // ONEFLOW_LITE_DIST_PEER_COLUMN_GATHER_H_
