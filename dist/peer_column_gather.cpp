#include "dist/peer_column_gather.h"

#if OFLITE_WITH_NCCL
#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>
#include <thread>

#include "dist/cuda_device_scope.h"
#include "oneflow_lite/common/logging.h"

namespace oflite {
namespace dist {

namespace {

constexpr int kMaxChunks = PeerColumnGather::kMaxChunks;
constexpr int kDefaultChunks = 4;
constexpr size_t kMinWindow = size_t{1} << 20;
constexpr auto kSpinFor = std::chrono::milliseconds(20);  // as the NCCL collectives' wait

// The flags of a window: ready[from][chunk], then ack[from].
int ReadyFlag(int from, int chunk) { return from * kMaxChunks + chunk; }
int AckFlag(int world, int from) { return world * kMaxChunks + from; }

// OFLITE_GATHER_CHUNKS (1-16; 4 by default): the row chunks of a call. Every rank must read the
// same value: the windows open only where they agree.
int64_t ChunkCount() {
  static const int64_t chunks = [] {
    const char* value = std::getenv("OFLITE_GATHER_CHUNKS");
    const int count = value != nullptr ? std::atoi(value) : 0;
    return count >= 1 && count <= kMaxChunks ? count : kDefaultChunks;
  }();
  return chunks;
}

// OFLITE_PEER_GATHER=0: this rank declines the peer windows (every rank then gathers through
// NCCL).
std::string Declined() {
  const char* value = std::getenv("OFLITE_PEER_GATHER");
  return value != nullptr && std::string(value) == "0" ? "OFLITE_PEER_GATHER=0" : "";
}

// rows x width bytes, src and dst rows spitch and dpitch bytes apart; either may be a peer's
// (IPC-mapped) memory, which the copy engines reach.
cudaError_t CopyRows(char* dst, size_t dpitch, const char* src, size_t spitch, size_t width,
                     size_t rows, cudaStream_t stream) {
  return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDefault, stream);
}

Maybe<void> Cuda(cudaError_t error, const char* what) {
  OFLITE_CHECK_OR_RETURN(error == cudaSuccess, DeviceError)
      << "AllGatherColumns: " << what << ": " << cudaGetErrorString(error);
  return Ok();
}

size_t RoundUpPow2(size_t bytes) {
  size_t size = kMinWindow;
  while (size < bytes && size <= (SIZE_MAX >> 1)) {
    size *= 2;
  }
  return size;
}

}  // namespace

// Where a call's pieces lie: the chunks' first rows (then `rows`), each rank's first column.
struct PeerColumnGather::Layout {
  Layout(int64_t rows, const std::vector<int64_t>& cols, size_t element)
      : cols(cols), element(element), offsets(cols.size(), 0) {
    const int64_t chunks = std::min(ChunkCount(), rows);
    starts.push_back(0);
    for (int64_t c = 1; c <= chunks; ++c) {
      starts.push_back(rows * c / chunks);
    }
    std::partial_sum(cols.begin(), cols.end() - 1, offsets.begin() + 1);
    pitch = static_cast<size_t>(offsets.back() + cols.back()) * element;
  }
  int chunks() const { return static_cast<int>(starts.size()) - 1; }
  size_t row(int c) const { return static_cast<size_t>(starts[static_cast<size_t>(c)]); }
  size_t rows(int c) const { return row(c + 1) - row(c); }
  size_t width(int r) const { return static_cast<size_t>(cols[static_cast<size_t>(r)]) * element; }

  const std::vector<int64_t>& cols;
  size_t element;
  std::vector<int64_t> starts;
  std::vector<int64_t> offsets;
  size_t pitch = 0;  // bytes between rows of out
};

PeerColumnGather::PeerColumnGather(GlooCommunicator* cpu, int device,
                                   std::chrono::milliseconds timeout)
    : cpu_(cpu), device_(device), timeout_(timeout) {}

PeerColumnGather::~PeerColumnGather() {
  CudaDeviceScope scope(device_);
  if (window_ != nullptr) {
    // Free the window only once every peer has read this rank's last blocks.
    const int world = cpu_->size();
    const bool read = !failed_ && window_->FlagsReach(AckFlag(world, 0), world, seq_, timeout_);
    if (!read) {
      window_->Keep();
    }
  }
  window_.reset();
  for (cudaStream_t s : copy_streams_) {
    cudaStreamDestroy(s);
  }
  for (cudaEvent_t e : events_) {
    cudaEventDestroy(e);
  }
}

Maybe<void> PeerColumnGather::MakeStreams() {
  const int world = cpu_->size();
  copy_streams_.assign(static_cast<size_t>(world), nullptr);
  for (cudaStream_t& s : copy_streams_) {
    OFLITE_JUST(Cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"));
  }
  events_.assign(static_cast<size_t>(world + kMaxChunks + 2), nullptr);
  for (cudaEvent_t& e : events_) {
    OFLITE_JUST(Cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate"));
  }
  return Ok();
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
  }
  WindowOptions options;
  options.bytes = RoundUpPow2(bytes);
  options.flags = cpu_->size() * (kMaxChunks + 1);
  options.setting = ChunkCount();
  options.decline = Declined();
  std::string why_not;
  OFLITE_ASSIGN_OR_RETURN(window_, PeerWindow::Open(cpu_, device_, options, &why_not));
  seq_ = 0;  // the new window's flags start at 0 on every rank
  if (window_ == nullptr) {
    unavailable_ = true;
    OFLITE_LOG(INFO) << "AllGatherColumns: rank " << cpu_->rank()
                     << " gathers through NCCL instead of peer windows: " << why_not;
    return false;
  }
  if (copy_streams_.empty()) {
    const Maybe<void> made = MakeStreams();
    if (!made.ok()) {
      failed_ = true;  // the peers go on with the window: their call times out
      return made.error();
    }
  }
  return true;
}

Maybe<void> PeerColumnGather::QueueProducer(const Communicator::BlockProducer& produce,
                                            const Layout& layout, cudaStream_t stream,
                                            uint32_t seq) {
  const int world = cpu_->size();
  const int me = cpu_->rank();
  OFLITE_JUST(Cuda(cudaEventRecord(begin(), stream), "cudaEventRecord"));
  for (int p = 0; p < world; ++p) {  // the peers have read this rank's previous blocks
    if (p != me) {
      OFLITE_JUST(window_->Wait(stream, AckFlag(world, p), seq - 1));
    }
  }
  for (int c = 0; c < layout.chunks(); ++c) {
    OFLITE_JUST(produce(static_cast<int64_t>(layout.row(c)), static_cast<int64_t>(layout.rows(c)),
                        window_->data(me) + layout.row(c) * layout.width(me)));
    for (int p = 0; p < world; ++p) {
      if (p != me) {
        OFLITE_JUST(window_->Signal(stream, p, ReadyFlag(me, c), seq));
      }
    }
    OFLITE_JUST(Cuda(cudaEventRecord(made(c), stream), "cudaEventRecord"));
  }
  return Ok();
}

Maybe<void> PeerColumnGather::QueueCopies(const Layout& layout, char* out, cudaStream_t stream,
                                          uint32_t seq) {
  const int world = cpu_->size();
  const int me = cpu_->rank();
  for (int p = 0; p < world; ++p) {
    cudaStream_t s = copy_streams_[static_cast<size_t>(p)];
    OFLITE_JUST(Cuda(cudaStreamWaitEvent(s, begin(), 0), "cudaStreamWaitEvent"));
    char* columns =
        out + static_cast<size_t>(layout.offsets[static_cast<size_t>(p)]) * layout.element;
    for (int c = 0; c < layout.chunks(); ++c) {
      if (p == me) {
        OFLITE_JUST(Cuda(cudaStreamWaitEvent(s, made(c), 0), "cudaStreamWaitEvent"));
      } else {
        OFLITE_JUST(window_->Wait(s, ReadyFlag(p, c), seq));
      }
      if (layout.width(p) > 0) {
        OFLITE_JUST(Cuda(CopyRows(columns + layout.row(c) * layout.pitch, layout.pitch,
                                  window_->data(p) + layout.row(c) * layout.width(p),
                                  layout.width(p), layout.width(p), layout.rows(c), s),
                         "copying a chunk"));
      }
    }
    // p's blocks are read (this rank acknowledges its own too, so that every ack reaches seq).
    OFLITE_JUST(window_->Signal(s, p, AckFlag(world, me), seq));
    OFLITE_JUST(Cuda(cudaEventRecord(copied(p), s), "cudaEventRecord"));
    OFLITE_JUST(Cuda(cudaStreamWaitEvent(stream, copied(p), 0), "cudaStreamWaitEvent"));
  }
  return Cuda(cudaEventRecord(end(), stream), "cudaEventRecord");
}

Maybe<void> PeerColumnGather::WaitForHost(uint32_t seq) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t query = cudaEventQuery(end());
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
      return OFLITE_ERROR(DeviceError)
             << "AllGatherColumns on rank " << cpu_->rank() << " of " << cpu_->size()
             << " did not complete within the " << timeout_.count() / 1000.0
             << " s timeout (a peer failed, exited or did not take part); blocks still missing "
                "from rank(s) "
             << MissingRanks();
    }
    // Spin first, as a device synchronize does; then sleep, as the NCCL collectives' wait does.
    if (waited > kSpinFor) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    } else {
      std::this_thread::yield();
    }
  }
}

std::string PeerColumnGather::MissingRanks() {
  std::string missing;
  for (int p = 0; p < cpu_->size(); ++p) {
    if (cudaEventQuery(copied(p)) != cudaSuccess) {
      missing += (missing.empty() ? "" : ", ") + std::to_string(p);
    }
  }
  return missing.empty() ? "none" : missing;
}

Maybe<bool> PeerColumnGather::Run(const Communicator::BlockProducer& produce, int64_t rows,
                                  const std::vector<int64_t>& cols, DataType dtype, void* out,
                                  cudaStream_t stream) {
  OFLITE_CHECK_OR_RETURN(!failed_, DeviceError)
      << "AllGatherColumns: an earlier call failed part-way on rank " << cpu_->rank()
      << "; the ranks no longer agree on the calls made";
  const size_t element = DataTypeSize(dtype);
  const int64_t widest = *std::max_element(cols.begin(), cols.end());
  if (rows == 0 || widest == 0) {
    return true;  // nothing to make or move
  }
  bool ready = false;  // the sizes were checked against overflow with the call
  OFLITE_ASSIGN_OR_RETURN(ready, Ready(static_cast<size_t>(rows * widest) * element));
  if (!ready) {
    return false;
  }
  const uint32_t seq = ++seq_;
  const Layout layout(rows, cols, element);
  Maybe<void> queued = QueueProducer(produce, layout, stream, seq);
  if (queued.ok()) {
    queued = QueueCopies(layout, static_cast<char*>(out), stream, seq);
  }
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
