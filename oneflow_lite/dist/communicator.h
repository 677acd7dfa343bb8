// Collectives among the ranks of a process group, on one device type: the engines under global
// tensors (Gloo for CPU memory, NCCL for CUDA memory). Every rank of the group calls each
// collective in the same order with matching arguments. A peer that fails, leaves or never
// comes makes the call fail on every live rank within the group's timeout (an Error of kind
// kDeviceError naming the collective and the peer where known), never hang.
//
// Buffers are flat arrays of `dtype` elements; per-rank counts allow uneven splits. Data for
// rank r lies at the offset of the counts before r (the boxing layer permutes a split axis to
// the outside first).
#ifndef ONEFLOW_LITE_DIST_COMMUNICATOR_H_
#define ONEFLOW_LITE_DIST_COMMUNICATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace ep {
class Stream;
}  // namespace ep

namespace dist {

class Communicator {
 public:
  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // The device type whose memory the buffers are in (kCPU for Gloo, kCUDA for NCCL).
  virtual DeviceType device_type() const = 0;

  // out (sum of counts) = every rank's `in` (counts[rank] elements), in rank order.
  virtual Maybe<void> AllGather(const void* in, void* out, const std::vector<int64_t>& counts,
                                DataType dtype, ep::Stream* stream) = 0;
  // out (count elements) = the elementwise sum of every rank's `in` (count elements).
  virtual Maybe<void> AllReduceSum(const void* in, void* out, int64_t count, DataType dtype,
                                   ep::Stream* stream) = 0;
  // out (counts[rank] elements) = this rank's block of the elementwise sum of every rank's `in`
  // (sum of counts elements).
  virtual Maybe<void> ReduceScatterSum(const void* in, void* out,
                                       const std::vector<int64_t>& counts, DataType dtype,
                                       ep::Stream* stream) = 0;
  // Rank r sends send_counts[p] elements (at the offset of the counts before p) to each p and
  // receives recv_counts[p] from each p into `out` in rank order.
  virtual Maybe<void> AllToAll(const void* in, const std::vector<int64_t>& send_counts, void* out,
                               const std::vector<int64_t>& recv_counts, DataType dtype,
                               ep::Stream* stream) = 0;
  // `buffer` (count elements) on every rank = root's.
  virtual Maybe<void> Broadcast(void* buffer, int64_t count, DataType dtype, int root,
                                ep::Stream* stream) = 0;
  virtual Maybe<void> Barrier() = 0;

  // Writes rows [row, row + count) of this rank's block, contiguous (count x its columns), to
  // `dst`, queued on the stream the gather was given.
  using BlockProducer = std::function<Maybe<void>(int64_t row, int64_t count, void* dst)>;
  // out (rows x sum of cols, row-major) on every rank = the ranks' blocks side by side, rank r's
  // rows x cols[r], this rank's made by `produce`, which may be called for several row ranges in
  // turn so that each range travels while the next is made (the all-gather after a matmul whose
  // output is split over columns). Returns false, having called nothing, where the communicator
  // has no such path: every rank then gets false alike, and the caller gathers another way.
  virtual Maybe<bool> AllGatherColumns(const BlockProducer& /*produce*/, int64_t /*rows*/,
                                       const std::vector<int64_t>& /*cols*/, DataType /*dtype*/,
                                       void* /*out*/, ep::Stream* /*stream*/) {
    return false;
  }

  // Expires when the communicator is destroyed, so that holders of its address (global
  // tensors) can tell it is gone instead of using freed memory.
  std::weak_ptr<const void> lifetime() const { return lifetime_; }

 private:
  std::shared_ptr<const void> lifetime_ = std::make_shared<char>(0);
};

}  // namespace dist
}  // namespace oflite

#endif  // ONEFLOW_LITE_DIST_COMMUNICATOR_H_
