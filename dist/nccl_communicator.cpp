// NCCL for CUDA memory. Each collective is queued on the caller's stream and then waited for on
// the host, polling the stream and NCCL's asynchronous error: a peer that fails or never comes
// makes NCCL hang in its kernels, and only ncclCommAbort frees them, so the wait ends at the
// world's timeout by aborting the communicator (later calls fail at once).
// The communicator is blocking, with every connection made at creation (docs/DESIGN.md, "The
// dist layer"); OFLITE_NCCL_BLOCKING=0 makes it nonblocking.
#include "dist/nccl_communicator.h"

#if OFLITE_WITH_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "dist/peer_column_gather.h"
#include "oneflow_lite/ep/stream.h"
#endif

namespace oflite {
namespace dist {

#if !OFLITE_WITH_NCCL

void PrepareNcclEnvironment() {}

Maybe<std::unique_ptr<Communicator>> NewNcclCommunicator(GlooCommunicator* /*cpu*/,
                                                         int /*local_rank*/,
                                                         std::chrono::milliseconds /*timeout*/) {
  return OFLITE_ERROR(NotImplemented)
         << "dist::GetCommunicator(cuda): this build of oneflow_lite has no NCCL (configured "
            "without CUDA, or NCCL was not found with the CUDA toolkit)";
}

#else

namespace {

ncclDataType_t NcclType(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
      return ncclFloat32;
    case DataType::kFloat64:
      return ncclFloat64;
    case DataType::kFloat16:
      return ncclFloat16;
    case DataType::kBFloat16:
      return ncclBfloat16;
    case DataType::kInt8:
      return ncclInt8;
    case DataType::kUInt8:
    case DataType::kBool:  // bytes holding 0 or 1
      return ncclUint8;
    case DataType::kInt32:
      return ncclInt32;
    case DataType::kInt64:
      return ncclInt64;
  }
  return ncclUint8;
}

// A bool sum is a logical or: the maximum of bytes holding 0 or 1.
ncclRedOp_t SumOp(DataType dtype) { return dtype == DataType::kBool ? ncclMax : ncclSum; }

using Clock = std::chrono::steady_clock;
constexpr auto kSpinFor = std::chrono::milliseconds(20);

// The cross-rank agreement check costs a round trip through the CPU group on every call, as
// much as a fifth of a 256 MB collective's time on NVLink; on NCCL it is on only when
// OFLITE_DIST_CHECK_CALLS=1 (global tensors check shapes and SBPs when they are made, and a
// mismatched call still ends in the timeout's error, not a hang).
bool CheckCallsEnabled() {
  const char* value = std::getenv("OFLITE_DIST_CHECK_CALLS");
  return value != nullptr && std::string(value) == "1";
}

Maybe<void> CheckCuda(cudaError_t error, const char* what) {
  OFLITE_CHECK_OR_RETURN(error == cudaSuccess, DeviceError)
      << "dist::GetCommunicator(cuda): " << what << ": " << cudaGetErrorString(error);
  return Ok();
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(GlooCommunicator* cpu, ncclComm_t comm, int device, cudaEvent_t done,
                   std::chrono::milliseconds timeout)
      : cpu_(cpu),
        comm_(comm),
        device_(device),
        done_(done),
        timeout_(timeout),
        check_calls_(CheckCallsEnabled()) {}
  ~NcclCommunicator() override {
    gather_.reset();
    int caller = -1;  // the destroying thread's current device, given back at the end
    cudaGetDevice(&caller);
    cudaSetDevice(device_);
    if (comm_ != nullptr) {
      // Abort rather than destroy: destroying waits for peers, which may be gone.
      ncclCommAbort(comm_);
    }
    cudaEventDestroy(done_);
    if (caller >= 0) {
      cudaSetDevice(caller);
    }
  }

  int rank() const override { return cpu_->rank(); }
  int size() const override { return cpu_->size(); }
  DeviceType device_type() const override { return DeviceType::kCUDA; }

  Maybe<void> AllGather(const void* in, void* out, const std::vector<int64_t>& counts,
                        DataType dtype, ep::Stream* stream) override {
    std::lock_guard<std::mutex> lock(mutex_);  // one collective at a time, in call order
    CollectiveCall call;
    call.kind = CollectiveKind::kAllGather;
    call.dtype = dtype;
    call.counts = &counts;
    cudaStream_t s = nullptr;
    OFLITE_JUST(Prepare(call, in, out, stream, &s));
    const size_t element = DataTypeSize(dtype);
    const bool even =
        std::all_of(counts.begin(), counts.end(), [&](int64_t c) { return c == counts[0]; });
    return Run(call.kind, s, [&]() {
      if (even) {
        return ncclAllGather(in, out, counts[0], NcclType(dtype), comm_, s);
      }
      // Uneven blocks: each rank broadcasts its own into place.
      ncclResult_t result = ncclGroupStart();
      int64_t offset = 0;
      for (int r = 0; r < size() && result == ncclSuccess; ++r) {
        if (counts[r] > 0) {
          result = ncclBroadcast(in, static_cast<char*>(out) + offset * element, counts[r],
                                 NcclType(dtype), r, comm_, s);
        }
        offset += counts[r];
      }
      const ncclResult_t end = ncclGroupEnd();
      return result != ncclSuccess ? result : end;
    });
  }

  Maybe<void> AllReduceSum(const void* in, void* out, int64_t count, DataType dtype,
                           ep::Stream* stream) override {
    std::lock_guard<std::mutex> lock(mutex_);  // one collective at a time, in call order
    CollectiveCall call;
    call.kind = CollectiveKind::kAllReduceSum;
    call.dtype = dtype;
    call.count = count;
    cudaStream_t s = nullptr;
    OFLITE_JUST(Prepare(call, in, out, stream, &s));
    return Run(call.kind, s, [&]() {
      return ncclAllReduce(in, out, count, NcclType(dtype), SumOp(dtype), comm_, s);
    });
  }

  Maybe<void> ReduceScatterSum(const void* in, void* out, const std::vector<int64_t>& counts,
                               DataType dtype, ep::Stream* stream) override {
    std::lock_guard<std::mutex> lock(mutex_);  // one collective at a time, in call order
    CollectiveCall call;
    call.kind = CollectiveKind::kReduceScatterSum;
    call.dtype = dtype;
    call.counts = &counts;
    cudaStream_t s = nullptr;
    OFLITE_JUST(Prepare(call, in, out, stream, &s));
    const size_t element = DataTypeSize(dtype);
    const bool even =
        std::all_of(counts.begin(), counts.end(), [&](int64_t c) { return c == counts[0]; });
    return Run(call.kind, s, [&]() {
      if (even) {
        return ncclReduceScatter(in, out, counts[0], NcclType(dtype), SumOp(dtype), comm_, s);
      }
      // Uneven blocks: block r reduced onto rank r.
      ncclResult_t result = ncclGroupStart();
      int64_t offset = 0;
      for (int r = 0; r < size() && result == ncclSuccess; ++r) {
        const char* block = static_cast<const char*>(in) + offset * element;
        if (counts[r] > 0) {
          void* target = r == rank() ? out : const_cast<char*>(block);  // used on the root only
          result = ncclReduce(block, target, counts[r], NcclType(dtype), SumOp(dtype), r, comm_, s);
        }
        offset += counts[r];
      }
      const ncclResult_t end = ncclGroupEnd();
      return result != ncclSuccess ? result : end;
    });
  }

  Maybe<void> AllToAll(const void* in, const std::vector<int64_t>& send_counts, void* out,
                       const std::vector<int64_t>& recv_counts, DataType dtype,
                       ep::Stream* stream) override {
    std::lock_guard<std::mutex> lock(mutex_);  // one collective at a time, in call order
    CollectiveCall call;
    call.kind = CollectiveKind::kAllToAll;
    call.dtype = dtype;
    call.counts = &send_counts;
    call.recv_counts = &recv_counts;
    cudaStream_t s = nullptr;
    OFLITE_JUST(Prepare(call, in, out, stream, &s));
    const size_t element = DataTypeSize(dtype);
    return Run(call.kind, s, [&]() {
      ncclResult_t result = ncclGroupStart();
      int64_t send_offset = 0;
      int64_t recv_offset = 0;
      for (int p = 0; p < size() && result == ncclSuccess; ++p) {
        if (send_counts[p] > 0) {
          result = ncclSend(static_cast<const char*>(in) + send_offset * element, send_counts[p],
                            NcclType(dtype), p, comm_, s);
        }
        if (result == ncclSuccess && recv_counts[p] > 0) {
          result = ncclRecv(static_cast<char*>(out) + recv_offset * element, recv_counts[p],
                            NcclType(dtype), p, comm_, s);
        }
        send_offset += send_counts[p];
        recv_offset += recv_counts[p];
      }
      const ncclResult_t end = ncclGroupEnd();
      return result != ncclSuccess ? result : end;
    });
  }

  Maybe<void> Broadcast(void* buffer, int64_t count, DataType dtype, int root,
                        ep::Stream* stream) override {
    std::lock_guard<std::mutex> lock(mutex_);  // one collective at a time, in call order
    CollectiveCall call;
    call.kind = CollectiveKind::kBroadcast;
    call.dtype = dtype;
    call.count = count;
    call.root = root;
    cudaStream_t s = nullptr;
    OFLITE_JUST(Prepare(call, buffer, buffer, stream, &s));
    return Run(call.kind, s, [&]() {
      return ncclBroadcast(buffer, buffer, count, NcclType(dtype), root, comm_, s);
    });
  }

  // Over peer windows (dist/peer_column_gather.h) where every rank can map every other's GPU
  // memory; false otherwise, decided alike on every rank at the first call.
  Maybe<bool> AllGatherColumns(const BlockProducer& produce, int64_t rows,
                               const std::vector<int64_t>& cols, DataType dtype, void* out,
                               ep::Stream* stream) override {
    std::lock_guard<std::mutex> lock(mutex_);  // one collective at a time, in call order
    CollectiveCall call;
    call.kind = CollectiveKind::kAllGatherColumns;
    call.dtype = dtype;
    call.count = rows;
    call.counts = &cols;
    cudaStream_t s = nullptr;
    OFLITE_JUST(Prepare(call, nullptr, out, stream, &s));
    if (gather_ == nullptr) {
      gather_ = std::make_unique<PeerColumnGather>(cpu_, device_, timeout_);
    }
    return gather_->Run(produce, rows, cols, dtype, out, s);
  }

  // On the host, through the CPU communicator: work queued on streams before it is not waited
  // for (each collective here has finished when it returns).
  Maybe<void> Barrier() override { return cpu_->Barrier(); }

  // Runs each collective once on a few elements, and a send and a receive with every peer, so
  // that the connections NCCL makes on first use are made now, while every rank is here.
  Maybe<void> WarmUp() {
    cudaStream_t s = nullptr;
    float* buffer = nullptr;
    const int n = size();
    Maybe<void> result =
        CheckCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    if (result.ok()) {
      result = CheckCuda(cudaMalloc(&buffer, sizeof(float) * 4 * n), "cudaMalloc");
    }
    if (result.ok()) {
      result = CheckCuda(cudaMemsetAsync(buffer, 0, sizeof(float) * 4 * n, s), "cudaMemset");
    }
    float* in = buffer;
    float* out = buffer + 2 * n;
    const std::pair<CollectiveKind, std::function<ncclResult_t()>> steps[] = {
        {CollectiveKind::kAllReduceSum,
         [&] { return ncclAllReduce(in, out, 1, ncclFloat32, ncclSum, comm_, s); }},
        {CollectiveKind::kAllGather,
         [&] { return ncclAllGather(in, out, 1, ncclFloat32, comm_, s); }},
        {CollectiveKind::kReduceScatterSum,
         [&] { return ncclReduceScatter(in, out, 1, ncclFloat32, ncclSum, comm_, s); }},
        {CollectiveKind::kBroadcast,
         [&] { return ncclBroadcast(in, out, 1, ncclFloat32, 0, comm_, s); }},
        {CollectiveKind::kAllToAll, [&] {
           ncclResult_t r = ncclGroupStart();
           for (int p = 0; p < n && r == ncclSuccess; ++p) {
             r = ncclSend(in + p, 1, ncclFloat32, p, comm_, s);
             if (r == ncclSuccess) {
               r = ncclRecv(out + p, 1, ncclFloat32, p, comm_, s);
             }
           }
           const ncclResult_t end = ncclGroupEnd();
           return r != ncclSuccess ? r : end;
         }}};
    for (const auto& step : steps) {
      if (result.ok()) {
        result = Run(step.first, s, step.second);
      }
    }
    cudaFree(buffer);
    cudaStreamDestroy(s);
    return result;
  }

 private:
  // Checks the call here and across ranks, and finds the caller's stream on this rank's GPU.
  Maybe<void> Prepare(const CollectiveCall& call, const void* in, const void* out,
                      ep::Stream* stream, cudaStream_t* s) {
    const char* name = CollectiveName(call.kind);
    OFLITE_CHECK_OR_RETURN(stream != nullptr && stream->device_type() == DeviceType::kCUDA,
                           ValueError)
        << name << ": the CUDA communicator needs a CUDA stream (got "
        << (stream == nullptr ? "none" : DeviceTypeName(stream->device_type())) << ")";
    OFLITE_JUST(ValidateCall(call, rank(), size(), in, out));
    OFLITE_CHECK_OR_RETURN(comm_ != nullptr, DeviceError)
        << name << ": the NCCL communicator of rank " << rank()
        << " was aborted after an earlier failure and cannot be used again";
    if (check_calls_) {
      OFLITE_JUST(cpu_->Agree(call));
    }
    void* handle = nullptr;
    OFLITE_ASSIGN_OR_RETURN(handle, stream->NativeHandle());  // makes its device current
    int current = -1;
    cudaGetDevice(&current);
    OFLITE_CHECK_OR_RETURN(current == device_, ValueError)
        << name << ": the stream is on cuda:" << current << " but rank " << rank()
        << "'s communicator is on cuda:" << device_ << " (its LOCAL_RANK)";
    *s = static_cast<cudaStream_t>(handle);
    return Ok();
  }

  Maybe<void> Fail(CollectiveKind kind, const std::string& what) {
    ncclCommAbort(comm_);
    comm_ = nullptr;
    return OFLITE_ERROR(DeviceError)
           << CollectiveName(kind) << " failed on rank " << rank() << " of " << size()
           << " (nccl): " << what << "; the communicator was aborted";
  }

  // Queues the collective, then waits for it: NCCL's errors and the timeout abort the
  // communicator.
  Maybe<void> Run(CollectiveKind kind, cudaStream_t s, const std::function<ncclResult_t()>& queue) {
    const auto start = Clock::now();
    const auto deadline = start + timeout_;
    const ncclResult_t result = queue();
    if (result != ncclSuccess && result != ncclInProgress) {
      return Fail(kind, NcclText(result));
    }
    // A nonblocking communicator may still be queuing: the stream holds the work only once
    // NCCL's state leaves ncclInProgress.
    bool recorded = false;
    for (;;) {
      ncclResult_t state = ncclSuccess;
      ncclCommGetAsyncError(comm_, &state);
      if (state != ncclSuccess && state != ncclInProgress) {
        return Fail(kind, NcclText(state));
      }
      if (state == ncclSuccess && !recorded) {
        const cudaError_t record = cudaEventRecord(done_, s);
        if (record != cudaSuccess) {
          return Fail(kind, std::string("cudaEventRecord: ") + cudaGetErrorString(record));
        }
        recorded = true;
      }
      if (recorded) {
        const cudaError_t query = cudaEventQuery(done_);
        if (query == cudaSuccess) {
          return Ok();
        }
        if (query != cudaErrorNotReady) {
          return Fail(kind, std::string("CUDA: ") + cudaGetErrorString(query));
        }
      }
      if (Clock::now() > deadline) {
        return Fail(kind, "did not complete within the " +
                              std::to_string(timeout_.count() / 1000.0) +
                              " s timeout (a peer failed, exited or did not take part)");
      }
      // Yield for the first milliseconds, as a device synchronize spins: a sleep's wake-up
      // would add tens of microseconds to every collective.
      if (Clock::now() - start > kSpinFor) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      } else {
        std::this_thread::yield();
      }
    }
  }

  std::string NcclText(ncclResult_t result) const {
    const char* last = ncclGetLastError(comm_);
    return std::string(ncclGetErrorString(result)) +
           (last != nullptr && last[0] != '\0' ? std::string(": ") + last : std::string());
  }

  GlooCommunicator* cpu_;
  ncclComm_t comm_;
  int device_;
  cudaEvent_t done_;
  std::chrono::milliseconds timeout_;
  bool check_calls_;  // the cross-rank check of each call's arguments (OFLITE_DIST_CHECK_CALLS)
  std::mutex mutex_;  // threads sharing the communicator queue whole collectives, one by one
  std::unique_ptr<PeerColumnGather> gather_;  // made at the first AllGatherColumns
};

bool g_blocking = true;  // OFLITE_NCCL_BLOCKING, read once by PrepareNcclEnvironment
constexpr int kCtas = 64;

}  // namespace

void PrepareNcclEnvironment() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* blocking = std::getenv("OFLITE_NCCL_BLOCKING");
    g_blocking = blocking == nullptr || std::string(blocking) != "0";
    if (g_blocking) {
      setenv("NCCL_RUNTIME_CONNECT", "0", 0);
    }
  });
}

Maybe<std::unique_ptr<Communicator>> NewNcclCommunicator(GlooCommunicator* cpu, int local_rank,
                                                         std::chrono::milliseconds timeout) {
  PrepareNcclEnvironment();  // before NCCL's first call (ncclGetUniqueId)
  int devices = 0;
  const cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess) {
    devices = 0;
  }
  // Rank 0 makes NCCL's unique id and sends it with whether it could: a rank that cannot take
  // part still joins the broadcast, so that no peer waits for it.
  struct Bootstrap {
    int32_t ok;
    ncclUniqueId id;
  } bootstrap;
  std::memset(&bootstrap, 0, sizeof(bootstrap));
  std::string local_problem;
  if (local_rank >= devices) {
    local_problem = "LOCAL_RANK " + std::to_string(local_rank) + " has no GPU (" +
                    std::to_string(devices) + " visible; one GPU per rank)";
  } else if (cudaSetDevice(local_rank) != cudaSuccess) {
    local_problem = "cudaSetDevice(" + std::to_string(local_rank) + ") failed";
  }
  if (cpu->rank() == 0) {
    bootstrap.ok = local_problem.empty() && ncclGetUniqueId(&bootstrap.id) == ncclSuccess;
  }
  OFLITE_JUST(cpu->Broadcast(&bootstrap, sizeof(bootstrap), DataType::kUInt8, 0, nullptr));
  // Every rank learns whether any rank cannot take part, so that none waits for it.
  int32_t problems = local_problem.empty() ? 0 : 1;
  OFLITE_JUST(cpu->AllReduceSum(&problems, &problems, 1, DataType::kInt32, nullptr));
  OFLITE_CHECK_OR_RETURN(local_problem.empty(), DeviceError)
      << "dist::GetCommunicator(cuda): rank " << cpu->rank() << ": " << local_problem;
  OFLITE_CHECK_OR_RETURN(problems == 0, DeviceError)
      << "dist::GetCommunicator(cuda): " << problems << " other rank(s) cannot use a GPU";
  OFLITE_CHECK_OR_RETURN(bootstrap.ok != 0, DeviceError)
      << "dist::GetCommunicator(cuda): rank 0 could not make NCCL's unique id";

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  // Blocking, as torch.distributed's: a nonblocking communicator costs about 0.1 ms more per
  // collective (256 MB between two H200s). A blocking one would wait on a stalled peer without
  // bound where NCCL connects lazily inside an enqueueing call, so every connection is made now
  // instead: NCCL_RUNTIME_CONNECT=0 (unless set) for the collectives' peers at creation, the
  // warm-up below for the point-to-point ones. OFLITE_NCCL_BLOCKING=0 polls creation too.
  config.blocking = g_blocking ? 1 : 0;
  // 64 CTAs a collective (NCCL_MIN_CTAS or NCCL_MAX_CTAS, when set, decide instead): between two
  // H200s NCCL's default channels move S(0) -> S(1)'s all-to-all at about 240 GB/s a direction,
  // 64 at about 260-268 (docs/BENCHMARKS.md). The fields exist from NCCL 2.17.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 17, 0)
  if (std::getenv("NCCL_MIN_CTAS") == nullptr && std::getenv("NCCL_MAX_CTAS") == nullptr) {
    config.minCTAs = kCtas;
    config.maxCTAs = kCtas;
  }
#endif
  ncclComm_t comm = nullptr;
  ncclResult_t result =
      ncclCommInitRankConfig(&comm, cpu->size(), bootstrap.id, cpu->rank(), &config);
  const auto deadline = Clock::now() + timeout;
  while (result == ncclInProgress || result == ncclSuccess) {
    ncclResult_t state = ncclInProgress;
    if (comm != nullptr) {
      ncclCommGetAsyncError(comm, &state);
    }
    if (state != ncclInProgress) {
      result = state;
      break;
    }
    if (Clock::now() > deadline) {
      ncclCommAbort(comm);
      return OFLITE_ERROR(DeviceError)
             << "dist::GetCommunicator(cuda): NCCL's communicator of rank " << cpu->rank()
             << " was not made within the " << timeout.count() / 1000.0
             << " s timeout (a peer failed or did not take part)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (result != ncclSuccess) {
    const char* last_text = ncclGetLastError(comm);
    const std::string last = last_text != nullptr ? last_text : "";
    if (comm != nullptr) {
      ncclCommAbort(comm);
    }
    return OFLITE_ERROR(DeviceError) << "dist::GetCommunicator(cuda): ncclCommInitRankConfig on "
                                     << "rank " << cpu->rank() << ": " << ncclGetErrorString(result)
                                     << (last.empty() ? "" : ": " + last);
  }
  cudaEvent_t done = nullptr;
  const Maybe<void> event =
      CheckCuda(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
  if (!event.ok()) {
    ncclCommAbort(comm);
    return event.error();
  }
  auto communicator = std::make_unique<NcclCommunicator>(cpu, comm, local_rank, done, timeout);
  OFLITE_JUST(communicator->WarmUp());
  return std::unique_ptr<Communicator>(std::move(communicator));
}

#endif  // OFLITE_WITH_NCCL

}  // namespace dist
}  // namespace oflite
