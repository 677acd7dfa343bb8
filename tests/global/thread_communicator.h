// A communicator for tests: the ranks of one group are threads of this process sharing memory.
// Each collective publishes every rank's buffers, meets at a barrier, lets each rank compute
// its own output from the others' inputs, and meets again before anyone may reuse a buffer.
// A rank that does not come within the timeout makes the call fail on every rank that came
// (DeviceError), and the group stays broken: no call hangs.
#ifndef ONEFLOW_LITE_TESTS_GLOBAL_THREAD_COMMUNICATOR_H_
#define ONEFLOW_LITE_TESTS_GLOBAL_THREAD_COMMUNICATOR_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "oneflow_lite/dist/communicator.h"

namespace oflite {
namespace test {

class ThreadGroup;

class ThreadCommunicator : public dist::Communicator {
 public:
  ThreadCommunicator(ThreadGroup* group, int rank) : group_(group), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override;
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

  // Collectives this rank has completed, by name ("all_gather", ...).
  int64_t calls(const std::string& name) const;

 private:
  ThreadGroup* group_;
  int rank_;
};

class ThreadGroup {
 public:
  explicit ThreadGroup(int size, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;

  int size() const { return size_; }
  ThreadCommunicator* communicator(int rank) { return communicators_[rank].get(); }

  // Runs body(rank, communicator) on `size` threads, each inside a ScopedCommunicator of its
  // rank, and returns when all have finished.
  static void Run(int size, const std::function<void(int rank, ThreadCommunicator*)>& body,
                  std::chrono::milliseconds timeout = std::chrono::seconds(20));

 private:
  friend class ThreadCommunicator;

  // What one rank brings to a collective.
  struct Slot {
    std::string name;
    const void* in = nullptr;
    std::vector<int64_t> counts;  // the collective's counts as this rank gave them
    int64_t count = 0;
    DataType dtype = DataType::kFloat32;
    int root = 0;
  };

  // Waits until every rank has arrived; DeviceError naming `what` after the timeout.
  Maybe<void> Meet(int rank, const std::string& what);
  // Publishes `slot`, meets, lets `compute` make this rank's output from every rank's slot,
  // meets again (every input read), then copies the output to `out`.
  Maybe<void> Collective(
      int rank, Slot slot, void* out,
      const std::function<Maybe<void>(const std::vector<Slot>&, std::vector<char>*)>& compute);

  const int size_;
  const std::chrono::milliseconds timeout_;
  std::vector<std::unique_ptr<ThreadCommunicator>> communicators_;
  std::vector<Slot> slots_;
  std::vector<std::map<std::string, int64_t>> calls_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  int waiting_ = 0;
  int64_t generation_ = 0;
  bool broken_ = false;
  std::string broken_by_;
};

}  // namespace test
}  // namespace oflite

#endif  // ONEFLOW_LITE_TESTS_GLOBAL_THREAD_COMMUNICATOR_H_
