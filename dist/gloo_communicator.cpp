#include "dist/gloo_communicator.h"

#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/context.h>

#include <cstring>
#include <sstream>

#include "dist/sum_reduction.h"
#include "oneflow_lite/ep/stream.h"

namespace oflite {
namespace dist {

const char* CollectiveName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllGather:
      return "AllGather";
    case CollectiveKind::kAllReduceSum:
      return "AllReduceSum";
    case CollectiveKind::kReduceScatterSum:
      return "ReduceScatterSum";
    case CollectiveKind::kAllToAll:
      return "AllToAll";
    case CollectiveKind::kBroadcast:
      return "Broadcast";
    case CollectiveKind::kBarrier:
      return "Barrier";
    case CollectiveKind::kAllGatherColumns:
      return "AllGatherColumns";
  }
  return "an unknown collective";
}

namespace {

int64_t Sum(const std::vector<int64_t>& counts) {
  int64_t total = 0;
  for (int64_t c : counts) {
    total += c;
  }
  return total;
}

std::string Join(const std::vector<int64_t>& values) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < values.size(); ++i) {
    out << (i > 0 ? ", " : "") << values[i];
  }
  out << "]";
  return out.str();
}

Maybe<void> ValidateCounts(const char* name, const char* argument,
                           const std::vector<int64_t>& counts, int size) {
  OFLITE_CHECK_OR_RETURN(static_cast<int>(counts.size()) == size, ValueError)
      << name << ": " << argument << " has " << counts.size() << " entries (expected one per rank, "
      << size << ")";
  for (size_t r = 0; r < counts.size(); ++r) {
    OFLITE_CHECK_OR_RETURN(counts[r] >= 0, ValueError)
        << name << ": " << argument << "[" << r << "] is " << counts[r] << " (expected >= 0)";
  }
  return Ok();
}

Maybe<void> CheckCpuStream(const char* name, ep::Stream* stream) {
  OFLITE_CHECK_OR_RETURN(stream == nullptr || stream->device_type() == DeviceType::kCPU, ValueError)
      << name << ": the CPU communicator got a " << DeviceTypeName(stream->device_type())
      << " stream (expected a CPU stream or none)";
  return Ok();
}

// The words each rank contributes to Agree: kind, dtype, root, count, whether the call is valid
// here, then one count per rank (AllToAll: sent to each), then AllToAll's received from each.
constexpr int kCallWords = 5;

void CopyCounts(const std::vector<int64_t>* counts, int size, int64_t* words) {
  if (counts != nullptr && static_cast<int>(counts->size()) == size) {
    std::copy(counts->begin(), counts->end(), words);
  }
}

std::vector<int64_t> CallWords(const CollectiveCall& call, int size, bool valid) {
  std::vector<int64_t> words(kCallWords + 2 * size, 0);
  words[0] = static_cast<int64_t>(call.kind);
  words[1] = static_cast<int64_t>(call.dtype);
  words[2] = call.root;
  words[3] = call.count;
  words[4] = valid ? 1 : 0;
  CopyCounts(call.counts, size, words.data() + kCallWords);
  CopyCounts(call.recv_counts, size, words.data() + kCallWords + size);
  return words;
}

std::string DataTypeText(int64_t value) {
  return IsValidDataType(static_cast<int>(value)) ? DataTypeName(static_cast<DataType>(value))
                                                  : "an invalid dtype";
}

}  // namespace

Maybe<void> ValidateCall(const CollectiveCall& call, int rank, int size, const void* in,
                         const void* out) {
  const char* name = CollectiveName(call.kind);
  OFLITE_CHECK_OR_RETURN(IsValidDataType(static_cast<int>(call.dtype)), ValueError)
      << name << ": dtype " << static_cast<int>(call.dtype) << " is not a DataType";
  const int64_t element = static_cast<int64_t>(DataTypeSize(call.dtype));
  int64_t in_elements = 0;
  int64_t out_elements = 0;
  switch (call.kind) {
    case CollectiveKind::kAllGather:
      OFLITE_JUST(ValidateCounts(name, "counts", *call.counts, size));
      in_elements = (*call.counts)[rank];
      out_elements = Sum(*call.counts);
      break;
    case CollectiveKind::kReduceScatterSum:
      OFLITE_JUST(ValidateCounts(name, "counts", *call.counts, size));
      in_elements = Sum(*call.counts);
      out_elements = (*call.counts)[rank];
      break;
    case CollectiveKind::kAllToAll:
      OFLITE_JUST(ValidateCounts(name, "send_counts", *call.counts, size));
      OFLITE_JUST(ValidateCounts(name, "recv_counts", *call.recv_counts, size));
      in_elements = Sum(*call.counts);
      out_elements = Sum(*call.recv_counts);
      OFLITE_CHECK_OR_RETURN((*call.counts)[rank] == (*call.recv_counts)[rank], ValueError)
          << name << ": rank " << rank << " sends itself send_counts[" << rank
          << "]=" << (*call.counts)[rank] << " elements but expects recv_counts[" << rank
          << "]=" << (*call.recv_counts)[rank];
      break;
    case CollectiveKind::kAllReduceSum:
    case CollectiveKind::kBroadcast:
      OFLITE_CHECK_OR_RETURN(call.count >= 0, ValueError)
          << name << ": count is " << call.count << " (expected >= 0)";
      in_elements = call.count;
      out_elements = call.count;
      break;
    case CollectiveKind::kBarrier:
      break;
    case CollectiveKind::kAllGatherColumns:
      OFLITE_JUST(ValidateCounts(name, "cols", *call.counts, size));
      OFLITE_CHECK_OR_RETURN(call.count >= 0, ValueError)
          << name << ": rows is " << call.count << " (expected >= 0)";
      out_elements = Sum(*call.counts);
      OFLITE_CHECK_OR_RETURN(out_elements == 0 || call.count <= INT64_MAX / out_elements,
                             ValueError)
          << name << ": " << call.count << " rows of " << out_elements
          << " columns overflow an element count";
      out_elements *= call.count;
      break;
  }
  if (call.kind == CollectiveKind::kBroadcast) {
    OFLITE_CHECK_OR_RETURN(call.root >= 0 && call.root < size, ValueError)
        << name << ": root " << call.root << " is not a rank (expected 0.." << size - 1 << ")";
  }
  OFLITE_CHECK_OR_RETURN(in_elements == 0 || in != nullptr, ValueError)
      << name << ": the input buffer is null but holds " << in_elements << " elements";
  OFLITE_CHECK_OR_RETURN(out_elements == 0 || out != nullptr, ValueError)
      << name << ": the output buffer is null but holds " << out_elements << " elements";
  OFLITE_CHECK_OR_RETURN(in_elements <= INT64_MAX / element && out_elements <= INT64_MAX / element,
                         ValueError)
      << name << ": " << std::max(in_elements, out_elements) << " elements overflow a byte count";
  return Ok();
}

GlooCommunicator::GlooCommunicator(std::shared_ptr<gloo::Context> context, int rank, int size,
                                   std::chrono::milliseconds timeout)
    : context_(std::move(context)), rank_(rank), size_(size), timeout_(timeout) {}

GlooCommunicator::~GlooCommunicator() = default;

template <typename Fn>
Maybe<void> GlooCommunicator::Guarded(CollectiveKind kind, Fn&& fn) {
  std::lock_guard<std::mutex> lock(mutex_);
  OFLITE_CHECK_OR_RETURN(failure_.empty(), DeviceError)
      << CollectiveName(kind) << ": the CPU communicator of rank " << rank_
      << " failed earlier and cannot be used again (" << failure_ << ")";
  try {
    return fn();
  } catch (const std::exception& e) {
    failure_ = e.what();
    return OFLITE_ERROR(DeviceError)
           << CollectiveName(kind) << " failed on rank " << rank_ << " of " << size_
           << " (gloo): a peer exited, broke its connection or did not take part within the "
           << timeout_.count() / 1000.0 << " s timeout: " << e.what();
  }
}

// What this rank can check alone. A call only this rank finds invalid still meets the others
// in AgreeLocked, so that all of them fail it.
Maybe<void> GlooCommunicator::CheckHere(const CollectiveCall& call, ep::Stream* stream,
                                        const void* in, const void* out) const {
  OFLITE_JUST(CheckCpuStream(CollectiveName(call.kind), stream));
  return ValidateCall(call, rank_, size_, in, out);
}

Maybe<void> GlooCommunicator::Agree(const CollectiveCall& call, bool valid) {
  return Guarded(call.kind, [&] { return AgreeLocked(call, valid); });
}

Maybe<void> GlooCommunicator::AgreeLocked(const CollectiveCall& call, bool valid) {
  if (size_ == 1) {
    return Ok();
  }
  const char* name = CollectiveName(call.kind);
  std::vector<int64_t> mine = CallWords(call, size_, valid);
  std::vector<int64_t> all(mine.size() * size_);
  gloo::AllgatherOptions options(context_);
  options.setInput(mine.data(), mine.size());
  options.setOutput(all.data(), all.size());
  options.setTag(NextTag());
  options.setTimeout(timeout_);
  gloo::allgather(options);
  const size_t stride = mine.size();
  if (!valid) {
    return Ok();  // every rank has seen this rank's flag; the caller reports its own reason
  }
  for (int p = 0; p < size_; ++p) {  // first, as every rank sees it: a call invalid somewhere
    OFLITE_CHECK_OR_RETURN(all[p * stride + 4] == 1, ValueError)
        << name << ": rank " << p << " passed arguments it found invalid (it reports which)";
  }
  for (int p = 0; p < size_ && call.kind == CollectiveKind::kAllToAll; ++p) {
    // The whole matrix, alike on every rank: what p sends q is what q expects from p.
    for (int q = 0; q < size_; ++q) {
      const int64_t sent = all[p * stride + kCallWords + q];
      const int64_t expected = all[q * stride + kCallWords + size_ + p];
      OFLITE_CHECK_OR_RETURN(sent == expected, ValueError)
          << name << ": rank " << p << " sends " << sent << " elements to rank " << q
          << ", which expects recv_counts[" << p << "]=" << expected;
    }
  }
  for (int p = 0; p < size_; ++p) {
    const int64_t* theirs = all.data() + p * stride;
    if (p == rank_) {
      continue;
    }
    OFLITE_CHECK_OR_RETURN(theirs[0] == mine[0], ValueError)
        << name << ": rank " << p << " called "
        << CollectiveName(static_cast<CollectiveKind>(theirs[0])) << " while this rank (" << rank_
        << ") called " << name << " (every rank must call the same collectives in "
        << "the same order)";
    OFLITE_CHECK_OR_RETURN(theirs[1] == mine[1], ValueError)
        << name << ": rank " << p << " passed dtype " << DataTypeText(theirs[1]) << ", this rank ("
        << rank_ << ") " << DataTypeText(mine[1]);
    OFLITE_CHECK_OR_RETURN(theirs[2] == mine[2], ValueError)
        << name << ": rank " << p << " passed root " << theirs[2] << ", this rank (" << rank_
        << ") " << mine[2];
    OFLITE_CHECK_OR_RETURN(theirs[3] == mine[3], ValueError)
        << name << ": rank " << p << " passed count " << theirs[3] << ", this rank (" << rank_
        << ") " << mine[3];
    const std::vector<int64_t> their_counts(theirs + kCallWords, theirs + kCallWords + size_);
    if (call.kind != CollectiveKind::kAllToAll && call.counts != nullptr) {
      OFLITE_CHECK_OR_RETURN(their_counts == *call.counts, ValueError)
          << name << ": rank " << p << " passed counts " << Join(their_counts) << ", this rank ("
          << rank_ << ") " << Join(*call.counts);
    }
  }
  return Ok();
}

Maybe<void> GlooCommunicator::AllGather(const void* in, void* out,
                                        const std::vector<int64_t>& counts, DataType dtype,
                                        ep::Stream* stream) {
  CollectiveCall call;
  call.kind = CollectiveKind::kAllGather;
  call.dtype = dtype;
  call.counts = &counts;
  const Maybe<void> valid = CheckHere(call, stream, in, out);
  return Guarded(call.kind, [&]() -> Maybe<void> {
    OFLITE_JUST(AgreeLocked(call, valid.ok()));
    OFLITE_JUST(valid);
    const size_t element = DataTypeSize(dtype);
    int64_t offset = 0;
    for (int r = 0; r < rank_; ++r) {
      offset += counts[r];
    }
    char* mine = static_cast<char*>(out) + offset * element;
    if (size_ == 1 || Sum(counts) == 0) {
      if (counts[rank_] > 0 && mine != in) {
        std::memmove(mine, in, counts[rank_] * element);
      }
      return Ok();
    }
    gloo::AllgathervOptions options(context_);
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (mine != in) {  // else the output holds this rank's block already
        options.setInput(const_cast<T*>(static_cast<const T*>(in)), counts[rank_]);
      }
      options.setOutput(static_cast<T*>(out), std::vector<size_t>(counts.begin(), counts.end()));
    });
    options.setTag(NextTag());
    options.setTimeout(timeout_);
    gloo::allgatherv(options);
    return Ok();
  });
}

Maybe<void> GlooCommunicator::AllReduceSum(const void* in, void* out, int64_t count, DataType dtype,
                                           ep::Stream* stream) {
  CollectiveCall call;
  call.kind = CollectiveKind::kAllReduceSum;
  call.dtype = dtype;
  call.count = count;
  const Maybe<void> valid = CheckHere(call, stream, in, out);
  return Guarded(call.kind, [&]() -> Maybe<void> {
    OFLITE_JUST(AgreeLocked(call, valid.ok()));
    OFLITE_JUST(valid);
    const size_t bytes = count * DataTypeSize(dtype);
    if (size_ == 1 || count == 0) {
      if (bytes > 0 && in != out) {
        std::memmove(out, in, bytes);
      }
      return Ok();
    }
    gloo::AllreduceOptions options(context_);
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      options.setOutput(static_cast<T*>(out), count);
      if (in != out) {
        options.setInput(const_cast<T*>(static_cast<const T*>(in)), count);
      }
    });
    options.setReduceFunction(SumFunctionFor(dtype));
    options.setTag(NextTag());
    options.setTimeout(timeout_);
    gloo::allreduce(options);
    return Ok();
  });
}

Maybe<void> GlooCommunicator::ReduceScatterSum(const void* in, void* out,
                                               const std::vector<int64_t>& counts, DataType dtype,
                                               ep::Stream* stream) {
  CollectiveCall call;
  call.kind = CollectiveKind::kReduceScatterSum;
  call.dtype = dtype;
  call.counts = &counts;
  const Maybe<void> valid = CheckHere(call, stream, in, out);
  return Guarded(call.kind, [&]() -> Maybe<void> {
    OFLITE_JUST(AgreeLocked(call, valid.ok()));
    OFLITE_JUST(valid);
    const size_t element = DataTypeSize(dtype);
    const int64_t block = counts[rank_];
    if (size_ == 1 || Sum(counts) == 0) {
      if (block > 0 && in != out) {
        std::memmove(out, in, block * element);
      }
      return Ok();
    }
    // Each rank receives every rank's copy of its own block (an all-to-all) and adds them in
    // rank order: each element is summed on one rank only, so the result does not depend on
    // the transport's order.
    std::vector<char> blocks(static_cast<size_t>(block) * size_ * element);
    gloo::AlltoallvOptions options(context_);
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      options.setInput(const_cast<T*>(static_cast<const T*>(in)), counts);
      options.setOutput(reinterpret_cast<T*>(blocks.data()), std::vector<int64_t>(size_, block));
    });
    options.setTag(NextTag());
    options.setTimeout(timeout_);
    gloo::alltoallv(options);
    if (block == 0) {
      return Ok();
    }
    const SumFunction sum = SumFunctionFor(dtype);
    const size_t block_bytes = block * element;
    std::memcpy(out, blocks.data(), block_bytes);
    for (int p = 1; p < size_; ++p) {
      sum(out, out, blocks.data() + p * block_bytes, block);
    }
    return Ok();
  });
}

Maybe<void> GlooCommunicator::AllToAll(const void* in, const std::vector<int64_t>& send_counts,
                                       void* out, const std::vector<int64_t>& recv_counts,
                                       DataType dtype, ep::Stream* stream) {
  CollectiveCall call;
  call.kind = CollectiveKind::kAllToAll;
  call.dtype = dtype;
  call.counts = &send_counts;
  call.recv_counts = &recv_counts;
  const Maybe<void> valid = CheckHere(call, stream, in, out);
  return Guarded(call.kind, [&]() -> Maybe<void> {
    OFLITE_JUST(AgreeLocked(call, valid.ok()));
    OFLITE_JUST(valid);
    const size_t element = DataTypeSize(dtype);
    // Every rank takes part, even one that sends and receives nothing: its peers wait for
    // its empty messages.
    if (size_ == 1) {
      if (send_counts[rank_] > 0 && in != out) {
        std::memmove(out, in, send_counts[rank_] * element);
      }
      return Ok();
    }
    gloo::AlltoallvOptions options(context_);
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      options.setInput(const_cast<T*>(static_cast<const T*>(in)), send_counts);
      options.setOutput(static_cast<T*>(out), recv_counts);
    });
    options.setTag(NextTag());
    options.setTimeout(timeout_);
    gloo::alltoallv(options);
    return Ok();
  });
}

Maybe<void> GlooCommunicator::Broadcast(void* buffer, int64_t count, DataType dtype, int root,
                                        ep::Stream* stream) {
  CollectiveCall call;
  call.kind = CollectiveKind::kBroadcast;
  call.dtype = dtype;
  call.count = count;
  call.root = root;
  const Maybe<void> valid = CheckHere(call, stream, buffer, buffer);
  return Guarded(call.kind, [&]() -> Maybe<void> {
    OFLITE_JUST(AgreeLocked(call, valid.ok()));
    OFLITE_JUST(valid);
    if (size_ == 1 || count == 0) {
      return Ok();
    }
    gloo::BroadcastOptions options(context_);
    options.setOutput(static_cast<uint8_t*>(buffer), count * DataTypeSize(dtype));
    options.setRoot(root);
    options.setTag(NextTag());
    options.setTimeout(timeout_);
    gloo::broadcast(options);
    return Ok();
  });
}

Maybe<void> GlooCommunicator::Barrier() {
  CollectiveCall call;
  call.kind = CollectiveKind::kBarrier;
  // Agreeing is an all-gather: no rank leaves it before every rank has entered it.
  return Agree(call);
}

}  // namespace dist
}  // namespace oflite
