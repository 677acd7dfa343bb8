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
#include <vector>

#include "dist/gloo_communicator.h"
#include "dist/peer_window.h"

namespace oflite {
namespace dist {

class PeerColumnGather {
 public:
  PeerColumnGather(GlooCommunicator* cpu, int device, std::chrono::milliseconds timeout);
  PeerColumnGather(const PeerColumnGather&) = delete;
  PeerColumnGather& operator=(const PeerColumnGather&) = delete;
  ~PeerColumnGather();

  // As AllGatherColumns, on `stream` of this rank's GPU; the arguments are checked.
  Maybe<bool> Run(const Communicator::BlockProducer& produce, int64_t rows,
                  const std::vector<int64_t>& cols, DataType dtype, void* out, cudaStream_t stream);

 private:
  // A window of at least `bytes` a rank (collective); false when the ranks cannot share one.
  Maybe<bool> Ready(size_t bytes);
  Maybe<void> MakeStreams();
  Maybe<void> Queue(const Communicator::BlockProducer& produce, int64_t rows,
                    const std::vector<int64_t>& cols, size_t element, char* out,
                    cudaStream_t stream, uint32_t seq);
  Maybe<void> WaitForHost(uint32_t seq);

  GlooCommunicator* cpu_;
  int device_;
  std::chrono::milliseconds timeout_;
  bool unavailable_ = false;  // decided once, alike on every rank
  bool failed_ = false;       // a call failed part-way: the ranks' call counts may differ
  std::unique_ptr<PeerWindow> window_;
  uint32_t seq_ = 0;                        // calls made, the same on every rank
  std::vector<cudaStream_t> copy_streams_;  // one a rank: pulls from peers, the own copy
  std::vector<cudaEvent_t> copied_;         // one a rank's copy stream
  std::vector<cudaEvent_t> chunk_made_;     // one a chunk, on the caller's stream
  cudaEvent_t begin_ = nullptr;
  cudaEvent_t end_ = nullptr;
};

}  // namespace dist
}  // namespace oflite

#endif  // OFLITE_WITH_NCCL
#endif  // ONEFLOW_LITE_DIST_PEER_COLUMN_GATHER_H_
