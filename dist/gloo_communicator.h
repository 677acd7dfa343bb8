// The CPU communicator: Gloo's collectives over its TCP transport (internal to the library).
#ifndef ONEFLOW_LITE_DIST_GLOO_COMMUNICATOR_H_
#define ONEFLOW_LITE_DIST_GLOO_COMMUNICATOR_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "oneflow_lite/dist/communicator.h"

namespace gloo {
class Context;
}  // namespace gloo

namespace oflite {
namespace dist {

enum class CollectiveKind : int64_t {
  kAllGather = 1,
  kAllReduceSum,
  kReduceScatterSum,
  kAllToAll,
  kBroadcast,
  kBarrier,
  kAllGatherColumns,  // Communicator::AllGatherColumns: counts are the columns, count the rows
};
const char* CollectiveName(CollectiveKind kind);

// What one rank passes to a collective, which every rank must agree on.
struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::kBarrier;
  DataType dtype = DataType::kUInt8;
  int root = 0;
  int64_t count = 0;                             // AllReduceSum, Broadcast; rows of columns
  const std::vector<int64_t>* counts = nullptr;  // AllGather, ReduceScatterSum; AllToAll: sends
  const std::vector<int64_t>* recv_counts = nullptr;  // AllToAll
};

// Checks what a rank can check alone (a valid dtype, one non-negative count per rank, a root
// in range, buffers present): ValueError naming the collective and the argument.
Maybe<void> ValidateCall(const CollectiveCall& call, int rank, int size, const void* in,
                         const void* out);

class GlooCommunicator final : public Communicator {
 public:
  // `context` is connected to every peer; null for a world of 1, where nothing is sent.
  GlooCommunicator(std::shared_ptr<gloo::Context> context, int rank, int size,
                   std::chrono::milliseconds timeout);
  ~GlooCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  DeviceType device_type() const override { return DeviceType::kCPU; }

  Maybe<void> AllGather(const void* in, void* out, const std::vector<int64_t>& counts,
                        DataType dtype, ep::Stream* stream) override;
  Maybe<void> AllReduceSum(const void* in, void* out, int64_t count, DataType dtype,
                           ep::Stream* stream) override;
  Maybe<void> ReduceScatterSum(const void* in, void* out, const std::vector<int64_t>& counts,
                               DataType dtype, ep::Stream* stream) override;
  Maybe<void> AllToAll(const void* in, const std::vector<int64_t>& send_counts, void* out,
                       const std::vector<int64_t>& recv_counts, DataType dtype,
                       ep::Stream* stream) override;
  Maybe<void> Broadcast(void* buffer, int64_t count, DataType dtype, int root,
                        ep::Stream* stream) override;
  Maybe<void> Barrier() override;

  // Every rank exchanges what it passes to a collective (kind, dtype, root, counts) before any
  // data moves, so that ranks that disagree get a ValueError naming the rank and the argument
  // instead of a transport error, a hang or an abort. The NCCL communicator checks its calls
  // with it too.
  Maybe<void> Agree(const CollectiveCall& call, bool valid = true);

 private:
  // Runs fn (returning Maybe<void>) under the lock; a Gloo exception becomes a DeviceError
  // naming the collective, and fails every later call.
  template <typename Fn>
  Maybe<void> Guarded(CollectiveKind kind, Fn&& fn);
  Maybe<void> AgreeLocked(const CollectiveCall& call, bool valid);
  Maybe<void> CheckHere(const CollectiveCall& call, ep::Stream* stream, const void* in,
                        const void* out) const;
  uint32_t NextTag() { return next_tag_++; }

  std::shared_ptr<gloo::Context> context_;
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;  // one collective at a time: every rank must call them in one order
  uint32_t next_tag_ = 0;
  std::string failure_;  // the first transport error; the connections are unusable after it
};

}  // namespace dist
}  // namespace oflite

#endif  // ONEFLOW_LITE_DIST_GLOO_COMMUNICATOR_H_
