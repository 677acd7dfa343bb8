#include "dist/peer_window.h"

#if OFLITE_WITH_NCCL
#include <cuda.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "dist/cuda_device_scope.h"

namespace oflite {
namespace dist {

// What a rank tells the others about its window: where it is and how to reach it.
struct WindowRecord {
  char host[64];
  int64_t pid;
  char bus_id[32];  // the GPU's PCI bus id, which names it alike in every process
  cudaIpcMemHandle_t handle;
  int64_t setting;
  int32_t ready;  // allocated, with a handle, and not declined
};

namespace {

constexpr size_t kFlagsAlign = 512;  // the data starts on a boundary any dtype's copy likes

using WriteValue32 = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using WaitValue32 = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

// The driver's stream memory operations, found through the runtime so that the library does not
// link libcuda itself; null where the driver lacks them.
struct MemOps {
  WriteValue32 write = nullptr;
  WaitValue32 wait = nullptr;
};

const MemOps& GetMemOps() {
  static const MemOps ops = [] {
    MemOps found;
    void* write = nullptr;
    void* wait = nullptr;
    const auto find = [](const char* name, void** fn) {
      cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
      const cudaError_t error =
          cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &status);
#else
      const cudaError_t error = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &status);
#endif
      return error == cudaSuccess && status == cudaDriverEntryPointSuccess;
    };
    if (find("cuStreamWriteValue32", &write) && find("cuStreamWaitValue32", &wait)) {
      found.write = reinterpret_cast<WriteValue32>(write);
      found.wait = reinterpret_cast<WaitValue32>(wait);
    }
    cudaGetLastError();
    return found;
  }();
  return ops;
}

size_t FlagBytes(int flags) {
  const size_t bytes = sizeof(uint32_t) * static_cast<size_t>(flags);
  return (bytes + kFlagsAlign - 1) / kFlagsAlign * kFlagsAlign;
}

}  // namespace

std::string PeerWindow::Prepare(const WindowOptions& options, WindowRecord* mine) {
  std::memset(mine, 0, sizeof(*mine));
  gethostname(mine->host, sizeof(mine->host) - 1);
  mine->pid = static_cast<int64_t>(getpid());
  mine->setting = options.setting;
  if (!options.decline.empty()) {
    return options.decline;
  }
  if (GetMemOps().write == nullptr) {
    return "the CUDA driver has no stream memory operations";
  }
  if (cudaDeviceGetPCIBusId(mine->bus_id, sizeof(mine->bus_id), device_) != cudaSuccess) {
    return "cudaDeviceGetPCIBusId failed";
  }
  const size_t total = FlagBytes(flags_) + bytes_;
  cudaError_t error = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  if (error == cudaSuccess) {
    error = cudaMalloc(&base_, total);
  }
  if (error == cudaSuccess) {
    error = cudaMallocHost(&host_flags_, FlagBytes(flags_));
  }
  // The flags are zero before any peer learns the window's address.
  if (error == cudaSuccess) {
    error = cudaMemsetAsync(base_, 0, FlagBytes(flags_), stream_);
  }
  if (error == cudaSuccess) {
    error = cudaStreamSynchronize(stream_);
  }
  if (error == cudaSuccess) {
    error = cudaIpcGetMemHandle(&mine->handle, base_);
  }
  if (error != cudaSuccess) {
    return "a peer window of " + std::to_string(total) +
           " bytes on cuda:" + std::to_string(device_) + ": " + cudaGetErrorString(error);
  }
  peers_[static_cast<size_t>(rank_)] = {static_cast<char*>(base_) + FlagBytes(flags_),
                                        static_cast<uint32_t*>(base_), false};
  mine->ready = 1;
  return "";
}

std::string PeerWindow::Map(int r, const WindowRecord& mine, const WindowRecord& them) {
  const std::string who = "rank " + std::to_string(r);
  if (them.setting != mine.setting) {
    return who + " passed setting " + std::to_string(them.setting) + ", this rank " +
           std::to_string(mine.setting) + " (OFLITE_GATHER_CHUNKS must be alike on every rank)";
  }
  if (!them.ready) {
    return who + " declined or could not allocate its window";
  }
  if (std::strncmp(mine.host, them.host, sizeof(mine.host)) != 0) {
    return who + " is on another host";
  }
  // Ranks of one process (thread ranks) are not served: on two H200s a peer's flag writes into a
  // window of the same process went missing (docs/DESIGN.md, "The dist layer").
  if (them.pid == mine.pid) {
    return who + " runs in this process";
  }
  int device = -1;
  if (cudaDeviceGetByPCIBusId(&device, them.bus_id) != cudaSuccess) {
    return who + "'s GPU (" + them.bus_id + ") is not visible here";
  }
  int can = device == device_ ? 1 : 0;
  if (!can) {
    cudaDeviceCanAccessPeer(&can, device_, device);
  }
  if (!can) {
    return "no peer access from cuda:" + std::to_string(device_) + " to " + who + "'s GPU";
  }
  void* mapped = nullptr;
  const cudaError_t error =
      cudaIpcOpenMemHandle(&mapped, them.handle, cudaIpcMemLazyEnablePeerAccess);
  if (error != cudaSuccess) {
    return "cudaIpcOpenMemHandle of " + who + "'s window: " + cudaGetErrorString(error);
  }
  peers_[static_cast<size_t>(r)] = {static_cast<char*>(mapped) + FlagBytes(flags_),
                                    static_cast<uint32_t*>(mapped), true};
  return "";
}

std::string PeerWindow::MapAll(const std::vector<WindowRecord>& all) {
  const WindowRecord& mine = all[static_cast<size_t>(rank_)];
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    const std::string problem = r == rank_ ? "" : Map(r, mine, all[static_cast<size_t>(r)]);
    if (!problem.empty()) {
      cudaGetLastError();
      return problem;
    }
  }
  return "";
}

Maybe<std::unique_ptr<PeerWindow>> PeerWindow::Open(GlooCommunicator* cpu, int device,
                                                    const WindowOptions& options,
                                                    std::string* why_not) {
  CudaDeviceScope scope(device);
  std::unique_ptr<PeerWindow> window(
      new PeerWindow(cpu->rank(), device, options.bytes, options.flags));
  window->peers_.resize(static_cast<size_t>(cpu->size()));
  std::vector<WindowRecord> all(static_cast<size_t>(cpu->size()));
  std::string problem = window->Prepare(options, &all[static_cast<size_t>(cpu->rank())]);
  cudaGetLastError();
  const WindowRecord mine = all[static_cast<size_t>(cpu->rank())];
  OFLITE_JUST(cpu->AllGather(&mine, all.data(),
                             std::vector<int64_t>(all.size(), sizeof(WindowRecord)),
                             DataType::kUInt8, nullptr));
  if (problem.empty()) {
    problem = window->MapAll(all);
  }
  // Every rank learns whether any rank failed, so that all of them use the window or none.
  int32_t failures = problem.empty() ? 0 : 1;
  OFLITE_JUST(cpu->AllReduceSum(&failures, &failures, 1, DataType::kInt32, nullptr));
  if (failures > 0) {
    *why_not = problem.empty() ? std::to_string(failures) + " other rank(s) cannot map the windows"
                               : problem;
    return std::unique_ptr<PeerWindow>();
  }
  return window;
}

PeerWindow::~PeerWindow() {
  if (kept_) {
    return;
  }
  CudaDeviceScope scope(device_);
  for (const Peer& peer : peers_) {
    if (peer.opened_ipc) {
      cudaIpcCloseMemHandle(peer.flags);
    }
  }
  if (base_ != nullptr) {
    cudaFree(base_);
  }
  if (stream_ != nullptr) {
    cudaStreamDestroy(stream_);
  }
  if (host_flags_ != nullptr) {
    cudaFreeHost(host_flags_);
  }
  cudaGetLastError();
}

Maybe<void> PeerWindow::Signal(cudaStream_t stream, int owner, int index, uint32_t value) const {
  const uint32_t* flag = peers_[static_cast<size_t>(owner)].flags + index;
  const CUresult result = GetMemOps().write(reinterpret_cast<CUstream>(stream),
                                            reinterpret_cast<CUdeviceptr>(flag), value, 0);
  OFLITE_CHECK_OR_RETURN(result == CUDA_SUCCESS, DeviceError)
      << "cuStreamWriteValue32 to rank " << owner << "'s window failed (CUresult " << result << ")";
  return Ok();
}

Maybe<void> PeerWindow::Wait(cudaStream_t stream, int index, uint32_t value) const {
  const uint32_t* flag = peers_[static_cast<size_t>(rank_)].flags + index;
  const CUresult result =
      GetMemOps().wait(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(flag),
                       value, CU_STREAM_WAIT_VALUE_GEQ);
  OFLITE_CHECK_OR_RETURN(result == CUDA_SUCCESS, DeviceError)
      << "cuStreamWaitValue32 on rank " << rank_ << "'s window failed (CUresult " << result << ")";
  return Ok();
}

bool PeerWindow::FlagsReach(int first, int count, uint32_t value,
                            std::chrono::milliseconds timeout) const {
  CudaDeviceScope scope(device_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    if (cudaMemcpyAsync(host_flags_, peers_[static_cast<size_t>(rank_)].flags + first,
                        sizeof(uint32_t) * static_cast<size_t>(count), cudaMemcpyDeviceToHost,
                        stream_) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    cudaError_t read = cudaErrorNotReady;  // polled: the stream may be stuck behind a wait
    while (read == cudaErrorNotReady && std::chrono::steady_clock::now() < deadline) {
      read = cudaStreamQuery(stream_);
    }
    if (read != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool reached = true;
    for (int i = 0; i < count; ++i) {
      reached = reached && static_cast<int32_t>(host_flags_[i] - value) >= 0;
    }
    if (reached) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

void PeerWindow::ReleaseWaits(uint32_t value) const {
  CudaDeviceScope scope(device_);
  for (int i = 0; i < flags_; ++i) {
    if (!Signal(stream_, rank_, i, value).ok()) {
      break;
    }
  }
}

}  // namespace dist
}  // namespace oflite

#endif  // OFLITE_WITH_NCCL
