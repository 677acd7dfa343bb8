#include "dist/peer_column_gather.h"

#if OFLITE_WITH_NCCL
#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>
#include <thread>

#include "oneflow_lite/common/logging.h"

namespace oflite {
namespace dist {

namespace {

constexpr int kMaxChunks = 16;
constexpr int kDefaultChunks = 4;
constexpr size_t kMinWindow = size_t{1} << 20;

// The flags of a window: ready[from][chunk], then ack[from].
int ReadyFlag(int from, int chunk) { return from * kMaxChunks + chunk; }
int AckFlag(int world, int from) { return world * kMaxChunks + from; }

// The chunks' first rows, then `rows`: OFLITE_GATHER_CHUNKS equal chunks (1-16, the same on
// every rank; 4 by default), fewer when there are fewer rows.
std::vector<int64_t> ChunkStarts(int64_t rows) {
  static const int64_t chunks = [] {
    const char* value = std::getenv("OFLITE_GATHER_CHUNKS");
    const int count = value != nullptr ? std::atoi(value) : 0;
    return count >= 1 && count <= kMaxChunks ? count : kDefaultChunks;
  }();
  std::vector<int64_t> starts = {0};
  for (int64_t c = 1; c <= chunks; ++c) {
    const int64_t end = rows * c / chunks;
    if (end > starts.back()) {
      starts.push_back(end);
    }
  }
  return starts;
}

// rows x width bytes from src on GPU src_device to dst on GPU dst_device, rows spitch and
// dpitch bytes apart; between GPUs an explicit peer copy (a copy engine reads the peer's window).
cudaError_t CopyRows(char* dst, int dst_device, size_t dpitch, const char* src, int src_device,
                     size_t spitch, size_t width, size_t rows, cudaStream_t stream) {
  if (src_device == dst_device) {
    return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDeviceToDevice,
                             stream);
  }
  cudaMemcpy3DPeerParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(const_cast<char*>(src), spitch, width, rows);
  copy.srcDevice = src_device;
  copy.dstPtr = make_cudaPitchedPtr(dst, dpitch, width, rows);
  copy.dstDevice = dst_device;
  copy.extent = make_cudaExtent(width, rows, 1);
  return cudaMemcpy3DPeerAsync(&copy, stream);
}

bool Disabled() {
  const char* value = std::getenv("OFLITE_PEER_GATHER");
  return value != nullptr && std::string(value) == "0";
}

Maybe<void> Cuda(cudaError_t error, const char* what) {
  OFLITE_CHECK_OR_RETURN(error == cudaSuccess, DeviceError)
      << "all_gather_columns: " << what << ": " << cudaGetErrorString(error);
  return Ok();
}

size_t RoundUpPow2(size_t bytes) {
  size_t size = kMinWindow;
  while (size < bytes) {
    size *= 2;
  }
  return size;
}

}  // namespace

PeerColumnGather::PeerColumnGather(GlooCommunicator* cpu, int device,
                                   std::chrono::milliseconds timeout)
    : cpu_(cpu), device_(device), timeout_(timeout) {}

PeerColumnGather::~PeerColumnGather() {
  int caller = -1;
  cudaGetDevice(&caller);
  cudaSetDevice(device_);
  for (cudaStream_t s : copy_streams_) {
    cudaStreamDestroy(s);
  }
  for (cudaEvent_t e : copied_) {
    cudaEventDestroy(e);
  }
  for (cudaEvent_t e : chunk_made_) {
    cudaEventDestroy(e);
  }
  cudaEventDestroy(begin_);
  cudaEventDestroy(end_);
  window_.reset();
  if (caller >= 0) {
    cudaSetDevice(caller);
  }
}

Maybe<void> PeerColumnGather::MakeStreams() {
  const auto event = [](cudaEvent_t* e) {
    return Cuda(cudaEventCreateWithFlags(e, cudaEventDisableTiming), "cudaEventCreate");
  };
  for (int r = 0; r < cpu_->size(); ++r) {
    copy_streams_.push_back(nullptr);
    OFLITE_JUST(Cuda(cudaStreamCreateWithFlags(&copy_streams_.back(), cudaStreamNonBlocking),
                     "cudaStreamCreate"));
    copied_.push_back(nullptr);
    OFLITE_JUST(event(&copied_.back()));
  }
  for (int c = 0; c < kMaxChunks; ++c) {
    chunk_made_.push_back(nullptr);
    OFLITE_JUST(event(&chunk_made_.back()));
  }
  OFLITE_JUST(event(&begin_));
  return event(&end_);
}

Maybe<bool> PeerColumnGather::Ready(size_t bytes) {
  if (unavailable_) {
    return false;
  }
  if (window_ != nullptr && window_->bytes() >= bytes) {
    return true;
  }
  if (window_ != nullptr) {
    // Every rank's earlier calls have finished reading the old windows once all are here.
    OFLITE_JUST(cpu_->Barrier());
    window_.reset();
  } else if (Disabled()) {
    unavailable_ = true;
    return false;
  } else {
    OFLITE_JUST(MakeStreams());
  }
  std::string why_not;
  OFLITE_ASSIGN_OR_RETURN(window_, PeerWindow::Open(cpu_, device_, RoundUpPow2(bytes),
                                                    cpu_->size() * (kMaxChunks + 1), &why_not));
  seq_ = 0;  // the new window's flags start at 0 on every rank
  if (window_ == nullptr) {
    unavailable_ = true;
    OFLITE_LOG(INFO) << "all_gather_columns: rank " << cpu_->rank()
                     << " gathers through NCCL instead of peer windows: " << why_not;
    return false;
  }
  return true;
}

Maybe<void> PeerColumnGather::Queue(const Communicator::BlockProducer& produce, int64_t rows,
                                    const std::vector<int64_t>& cols, size_t element, char* out,
                                    cudaStream_t stream, uint32_t seq) {
  const int world = cpu_->size();
  const int me = cpu_->rank();
  const std::vector<int64_t> starts = ChunkStarts(rows);
  const int chunks = static_cast<int>(starts.size()) - 1;
  const int64_t total = std::accumulate(cols.begin(), cols.end(), int64_t{0});
  const size_t pitch = static_cast<size_t>(total) * element;
  const auto chunk_rows = [&](int c) { return starts[c + 1] - starts[c]; };
  std::vector<int64_t> offsets(cols.size(), 0);  // where each rank's columns start in out
  std::partial_sum(cols.begin(), cols.end() - 1, offsets.begin() + 1);
  // Copies chunk c of rank p's block from its window into p's columns of out.
  const auto copy = [&](int p, int c, cudaStream_t s) {
    const size_t width = static_cast<size_t>(cols[static_cast<size_t>(p)]) * element;
    const size_t row = static_cast<size_t>(starts[c]);
    char* to = out + row * pitch + static_cast<size_t>(offsets[static_cast<size_t>(p)]) * element;
    return Cuda(CopyRows(to, device_, pitch, window_->data(p) + row * width, window_->device(p),
                         width, width, static_cast<size_t>(chunk_rows(c)), s),
                "copying a chunk");
  };

  OFLITE_JUST(Cuda(cudaEventRecord(begin_, stream), "cudaEventRecord"));
  for (int p = 0; p < world; ++p) {
    if (p != me) {
      OFLITE_JUST(window_->Wait(stream, AckFlag(world, p), seq - 1));
    }
  }
  const size_t my_width = static_cast<size_t>(cols[static_cast<size_t>(me)]) * element;
  for (int c = 0; c < chunks; ++c) {
    const int64_t row = starts[c];
    OFLITE_JUST(
        produce(row, chunk_rows(c), window_->data(me) + static_cast<size_t>(row) * my_width));
    for (int p = 0; p < world; ++p) {
      if (p != me) {
        OFLITE_JUST(window_->Signal(stream, p, ReadyFlag(me, c), seq));
      }
    }
    OFLITE_JUST(
        Cuda(cudaEventRecord(chunk_made_[static_cast<size_t>(c)], stream), "cudaEventRecord"));
  }
  // Only now the waits on peers (see the header).
  for (int p = 0; p < world; ++p) {
    cudaStream_t s = copy_streams_[static_cast<size_t>(p)];
    OFLITE_JUST(Cuda(cudaStreamWaitEvent(s, begin_, 0), "cudaStreamWaitEvent"));
    for (int c = 0; c < chunks; ++c) {
      if (p == me) {
        OFLITE_JUST(Cuda(cudaStreamWaitEvent(s, chunk_made_[static_cast<size_t>(c)], 0),
                         "cudaStreamWaitEvent"));
      } else {
        OFLITE_JUST(window_->Wait(s, ReadyFlag(p, c), seq));
      }
      if (cols[static_cast<size_t>(p)] > 0) {
        OFLITE_JUST(copy(p, c, s));
      }
    }
    if (p != me) {
      OFLITE_JUST(window_->Signal(s, p, AckFlag(world, me), seq));
    }
    OFLITE_JUST(Cuda(cudaEventRecord(copied_[static_cast<size_t>(p)], s), "cudaEventRecord"));
    OFLITE_JUST(Cuda(cudaStreamWaitEvent(stream, copied_[static_cast<size_t>(p)], 0),
                     "cudaStreamWaitEvent"));
  }
  return Cuda(cudaEventRecord(end_, stream), "cudaEventRecord");
}

Maybe<void> PeerColumnGather::WaitForHost(uint32_t seq) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t query = cudaEventQuery(end_);
    if (query == cudaSuccess) {
      return Ok();
    }
    if (query != cudaErrorNotReady) {
      failed_ = true;
      return Cuda(query, "the gather's stream");
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited > timeout_) {
      failed_ = true;
      window_->ReleaseWaits(seq + (1u << 30));
      std::string missing;  // the ranks whose blocks did not all arrive
      for (size_t p = 0; p < copied_.size(); ++p) {
        if (cudaEventQuery(copied_[p]) != cudaSuccess) {
          missing += (missing.empty() ? "" : ", ") + std::to_string(p);
        }
      }
      return OFLITE_ERROR(DeviceError)
             << "all_gather_columns on rank " << cpu_->rank() << " of " << cpu_->size()
             << " did not complete within the " << timeout_.count() / 1000.0
             << " s timeout (a peer failed, exited or did not take part); blocks still missing "
                "from rank(s) "
             << (missing.empty() ? "none" : missing);
    }
    // Spin first, as a device synchronize does; then sleep, as the NCCL collectives' wait does.
    if (waited > std::chrono::milliseconds(20)) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    } else {
      std::this_thread::yield();
    }
  }
}

Maybe<bool> PeerColumnGather::Run(const Communicator::BlockProducer& produce, int64_t rows,
                                  const std::vector<int64_t>& cols, DataType dtype, void* out,
                                  cudaStream_t stream) {
  OFLITE_CHECK_OR_RETURN(!failed_, DeviceError)
      << "all_gather_columns: an earlier call failed part-way on rank " << cpu_->rank()
      << "; the ranks no longer agree on the calls made";
  const size_t element = DataTypeSize(dtype);
  int64_t widest = 0;
  for (int64_t c : cols) {
    widest = std::max(widest, c);
  }
  if (rows == 0 || widest == 0) {
    return true;  // nothing to make or move
  }
  bool ready = false;
  OFLITE_ASSIGN_OR_RETURN(ready, Ready(static_cast<size_t>(rows * widest) * element));
  if (!ready) {
    return false;
  }
  const uint32_t seq = ++seq_;

  const Maybe<void> queued =
      Queue(produce, rows, cols, element, static_cast<char*>(out), stream, seq);
  if (!queued.ok()) {
    failed_ = true;  // peers may wait for chunks never signalled: they time out
    return queued.error();
  }
  OFLITE_JUST(WaitForHost(seq));
  return true;
}

}  // namespace dist
}  // namespace oflite

#endif  // OFLITE_WITH_NCCL
