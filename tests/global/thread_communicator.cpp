#include "tests/global/thread_communicator.h"

#include <cstring>
#include <thread>

#include "dist/sum_reduction.h"
#include "oneflow_lite/framework/placement.h"

namespace oflite {
namespace test {
namespace {

// memcpy, but a count of 0 may come with null pointers (the buffers of empty shards).
void CopyBytes(void* dst, const void* src, size_t bytes) {
  if (bytes > 0) {
    std::memcpy(dst, src, bytes);
  }
}

// sum += in[offset, offset + count) as `dtype`, in the dtype's own arithmetic (the library's
// Gloo sums).
Maybe<void> Accumulate(const void* in, int64_t offset, int64_t count, DataType dtype,
                       std::vector<char>* sum) {
  const size_t element = DataTypeSize(dtype);
  dist::SumFunctionFor(dtype)(sum->data(), sum->data(),
                              static_cast<const char*>(in) + offset * element,
                              static_cast<size_t>(count));
  return Ok();
}

int64_t Sum(const std::vector<int64_t>& counts, size_t end) {
  int64_t total = 0;
  for (size_t i = 0; i < end && i < counts.size(); ++i) {
    total += counts[i];
  }
  return total;
}

}  // namespace

ThreadGroup::ThreadGroup(int size, std::chrono::milliseconds timeout)
    : size_(size),
      timeout_(timeout),
      slots_(static_cast<size_t>(size)),
      calls_(static_cast<size_t>(size)) {
  for (int r = 0; r < size; ++r) {
    communicators_.push_back(std::make_unique<ThreadCommunicator>(this, r));
  }
}

void ThreadGroup::Run(int size, const std::function<void(int, ThreadCommunicator*)>& body,
                      std::chrono::milliseconds timeout) {
  ThreadGroup group(size, timeout);
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&group, &body, r] {
      ScopedCommunicator scope(group.communicator(r));
      body(r, group.communicator(r));
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
}

Maybe<void> ThreadGroup::Meet(int rank, const std::string& what) {
  std::unique_lock<std::mutex> lock(mutex_);
  OFLITE_CHECK_OR_RETURN(!broken_, DeviceError)
      << "thread communicator: rank " << rank << " cannot run " << what << ": " << broken_by_;
  const int64_t generation = generation_;
  if (++waiting_ == size_) {
    waiting_ = 0;
    ++generation_;
    arrived_.notify_all();
    return Ok();
  }
  const bool met =
      arrived_.wait_for(lock, timeout_, [&] { return generation_ != generation || broken_; });
  if (met && generation_ != generation) {
    return Ok();
  }
  if (!broken_) {
    broken_ = true;
    broken_by_ = "rank " + std::to_string(rank) + " waited " + std::to_string(timeout_.count()) +
                 " ms in " + what + " for ranks that did not come";
    arrived_.notify_all();
  }
  return OFLITE_ERROR(DeviceError)
         << "thread communicator: " << what << " on rank " << rank << " failed: " << broken_by_;
}

Maybe<void> ThreadGroup::Collective(
    int rank, Slot slot, void* out,
    const std::function<Maybe<void>(const std::vector<Slot>&, std::vector<char>*)>& compute) {
  const std::string name = slot.name;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_[static_cast<size_t>(rank)] = std::move(slot);
  }
  OFLITE_JUST(Meet(rank, name));
  std::vector<Slot> slots;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slots = slots_;
  }
  std::vector<char> result;
  Maybe<void> computed = Ok();
  for (size_t p = 0; p < slots.size() && computed.ok(); ++p) {
    if (slots[p].name != name || slots[p].dtype != slots[0].dtype) {
      computed = OFLITE_ERROR(DeviceError)
                 << "thread communicator: rank " << p << " called " << slots[p].name << " of "
                 << slots[p].dtype << " while rank " << rank << " called " << name << " of "
                 << slots[static_cast<size_t>(rank)].dtype;
    }
  }
  if (computed.ok()) {
    computed = compute(slots, &result);
  }
  OFLITE_JUST(Meet(rank, name));  // every rank has read every input
  OFLITE_JUST(computed);
  if (out != nullptr && !result.empty()) {
    std::memcpy(out, result.data(), result.size());
  }
  ++calls_[static_cast<size_t>(rank)][name];
  return Ok();
}

int ThreadCommunicator::size() const { return group_->size(); }

int64_t ThreadCommunicator::calls(const std::string& name) const {
  const auto& calls = group_->calls_[static_cast<size_t>(rank_)];
  auto it = calls.find(name);
  return it == calls.end() ? 0 : it->second;
}

Maybe<void> ThreadCommunicator::AllGather(const void* in, void* out,
                                          const std::vector<int64_t>& counts, DataType dtype,
                                          ep::Stream* /*stream*/) {
  const size_t elem = DataTypeSize(dtype);
  return group_->Collective(
      rank_, {"all_gather", in, counts, 0, dtype, 0}, out,
      [&](const std::vector<ThreadGroup::Slot>& slots, std::vector<char>* result) -> Maybe<void> {
        OFLITE_CHECK_OR_RETURN(static_cast<int>(counts.size()) == size(), ValueError)
            << "all_gather: " << counts.size() << " counts for " << size() << " ranks";
        result->resize(static_cast<size_t>(Sum(counts, counts.size())) * elem);
        for (size_t p = 0; p < slots.size(); ++p) {
          OFLITE_CHECK_OR_RETURN(slots[p].counts == counts, ValueError)
              << "all_gather: rank " << p << " gave other counts than rank " << rank_;
          CopyBytes(result->data() + Sum(counts, p) * elem, slots[p].in,
                    static_cast<size_t>(counts[p]) * elem);
        }
        return Ok();
      });
}

Maybe<void> ThreadCommunicator::AllReduceSum(const void* in, void* out, int64_t count,
                                             DataType dtype, ep::Stream* /*stream*/) {
  return group_->Collective(
      rank_, {"all_reduce", in, {}, count, dtype, 0}, out,
      [&](const std::vector<ThreadGroup::Slot>& slots, std::vector<char>* result) -> Maybe<void> {
        result->assign(static_cast<size_t>(count) * DataTypeSize(dtype), 0);
        for (const ThreadGroup::Slot& slot : slots) {
          OFLITE_CHECK_OR_RETURN(slot.count == count, ValueError)
              << "all_reduce: ranks gave counts " << slot.count << " and " << count;
          OFLITE_JUST(Accumulate(slot.in, 0, count, dtype, result));
        }
        return Ok();
      });
}

Maybe<void> ThreadCommunicator::ReduceScatterSum(const void* in, void* out,
                                                 const std::vector<int64_t>& counts, DataType dtype,
                                                 ep::Stream* /*stream*/) {
  return group_->Collective(
      rank_, {"reduce_scatter", in, counts, 0, dtype, 0}, out,
      [&](const std::vector<ThreadGroup::Slot>& slots, std::vector<char>* result) -> Maybe<void> {
        OFLITE_CHECK_OR_RETURN(static_cast<int>(counts.size()) == size(), ValueError)
            << "reduce_scatter: " << counts.size() << " counts for " << size() << " ranks";
        const int64_t mine = counts[static_cast<size_t>(rank_)];
        result->assign(static_cast<size_t>(mine) * DataTypeSize(dtype), 0);
        for (size_t p = 0; p < slots.size(); ++p) {
          OFLITE_CHECK_OR_RETURN(slots[p].counts == counts, ValueError)
              << "reduce_scatter: rank " << p << " gave other counts than rank " << rank_;
          OFLITE_JUST(Accumulate(slots[p].in, Sum(counts, static_cast<size_t>(rank_)), mine, dtype,
                                 result));
        }
        return Ok();
      });
}

Maybe<void> ThreadCommunicator::AllToAll(const void* in, const std::vector<int64_t>& send_counts,
                                         void* out, const std::vector<int64_t>& recv_counts,
                                         DataType dtype, ep::Stream* /*stream*/) {
  const size_t elem = DataTypeSize(dtype);
  return group_->Collective(
      rank_, {"all_to_all", in, send_counts, 0, dtype, 0}, out,
      [&](const std::vector<ThreadGroup::Slot>& slots, std::vector<char>* result) -> Maybe<void> {
        OFLITE_CHECK_OR_RETURN(static_cast<int>(recv_counts.size()) == size(), ValueError)
            << "all_to_all: " << recv_counts.size() << " counts for " << size() << " ranks";
        result->resize(static_cast<size_t>(Sum(recv_counts, recv_counts.size())) * elem);
        const size_t me = static_cast<size_t>(rank_);
        for (size_t p = 0; p < slots.size(); ++p) {
          OFLITE_CHECK_OR_RETURN(
              slots[p].counts.size() == slots.size() && slots[p].counts[me] == recv_counts[p],
              ValueError)
              << "all_to_all: rank " << p << " sends rank " << rank_ << " "
              << (slots[p].counts.size() > me ? slots[p].counts[me] : -1)
              << " elements, it expects " << recv_counts[p];
          if (recv_counts[p] > 0) {  // an empty shard's pointer may be null
            CopyBytes(result->data() + Sum(recv_counts, p) * elem,
                      static_cast<const char*>(slots[p].in) + Sum(slots[p].counts, me) * elem,
                      static_cast<size_t>(recv_counts[p]) * elem);
          }
        }
        return Ok();
      });
}

Maybe<void> ThreadCommunicator::Broadcast(void* buffer, int64_t count, DataType dtype, int root,
                                          ep::Stream* /*stream*/) {
  return group_->Collective(
      rank_, {"broadcast", buffer, {}, count, dtype, root}, buffer,
      [&](const std::vector<ThreadGroup::Slot>& slots, std::vector<char>* result) -> Maybe<void> {
        OFLITE_CHECK_OR_RETURN(root >= 0 && root < size(), ValueError)
            << "broadcast: root " << root << " of " << size() << " ranks";
        const auto* src = static_cast<const char*>(slots[static_cast<size_t>(root)].in);
        result->assign(src, src + count * static_cast<int64_t>(DataTypeSize(dtype)));
        return Ok();
      });
}

Maybe<void> ThreadCommunicator::Barrier() {
  return group_->Collective(
      rank_, {"barrier", nullptr, {}, 0, DataType::kFloat32, 0}, nullptr,
      [](const std::vector<ThreadGroup::Slot>&, std::vector<char>*) { return Ok(); });
}

}  // namespace test
}  // namespace oflite
