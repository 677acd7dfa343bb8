#include "dist/peer_window.h"

#if OFLITE_WITH_NCCL
#include <cuda.h>
#include <unistd.h>

#include <cstring>

namespace oflite {
namespace dist {

// What a rank tells the others about its window: where it is and how to reach it.
struct WindowRecord {
  char host[64];
  int64_t pid;
  char bus_id[32];  // the GPU's PCI bus id, which names it alike in every process
  uint64_t base;    // the allocation's address in the owner's process
  cudaIpcMemHandle_t handle;
  int32_t allocated;
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
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &write, 12000, cudaEnableDefault,
                                         &status) == cudaSuccess &&
        status == cudaDriverEntryPointSuccess &&
        cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &wait, 12000, cudaEnableDefault,
                                         &status) == cudaSuccess &&
        status == cudaDriverEntryPointSuccess) {
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

// Makes `device` current for the scope and gives the caller's back.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    cudaGetDevice(&caller_);
    cudaSetDevice(device);
  }
  ~DeviceScope() {
    if (caller_ >= 0) {
      cudaSetDevice(caller_);
    }
  }

 private:
  int caller_ = -1;
};

}  // namespace

Maybe<void> PeerWindow::Allocate() {
  const size_t total = FlagBytes(flags_) + bytes_;
  cudaError_t error = cudaMalloc(&base_, total);
  // The flags are zero before any peer learns the window's address: a memset on a stream of its
  // own, waited for (cudaMemset could still be queued behind the caller's work when a peer's
  // first signal lands).
  cudaStream_t stream = nullptr;
  if (error == cudaSuccess) {
    error = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  }
  if (error == cudaSuccess) {
    error = cudaMemsetAsync(base_, 0, FlagBytes(flags_), stream);
  }
  if (error == cudaSuccess) {
    error = cudaStreamSynchronize(stream);
  }
  if (stream != nullptr) {
    cudaStreamDestroy(stream);
  }
  OFLITE_CHECK_OR_RETURN(error == cudaSuccess, DeviceError)
      << "a peer window of " << total << " bytes on cuda:" << device_ << ": "
      << cudaGetErrorString(error);
  return Ok();
}

std::string PeerWindow::Map(int r, const WindowRecord& mine, const WindowRecord& them) {
  Peer& peer = peers_[static_cast<size_t>(r)];
  const std::string who = "rank " + std::to_string(r);
  if (!them.allocated) {
    return who + " could not allocate its window";
  }
  if (std::strncmp(mine.host, them.host, sizeof(mine.host)) != 0) {
    return who + " is on another host";
  }
  int device = -1;
  if (cudaDeviceGetByPCIBusId(&device, them.bus_id) != cudaSuccess) {
    cudaGetLastError();
    return who + "'s GPU (" + them.bus_id + ") is not visible here";
  }
  if (device != device_) {
    int can = 0;
    cudaDeviceCanAccessPeer(&can, device_, device);
    if (!can) {
      return "no peer access from cuda:" + std::to_string(device_) + " to " + who + "'s GPU";
    }
  }
  // Ranks of one process (thread ranks) are not served: on two H200s a peer's flag writes into a
  // window of the same process went missing (docs/DESIGN.md, "The dist layer").
  if (them.pid == mine.pid) {
    return who + " runs in this process";
  }
  void* mapped = nullptr;
  const cudaError_t error =
      cudaIpcOpenMemHandle(&mapped, them.handle, cudaIpcMemLazyEnablePeerAccess);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return "cudaIpcOpenMemHandle of " + who + "'s window: " + cudaGetErrorString(error);
  }
  peer.opened_ipc = true;
  peer.flags = static_cast<uint32_t*>(mapped);
  peer.device = device;
  peer.data = static_cast<char*>(mapped) + FlagBytes(flags_);
  return "";
}

Maybe<std::unique_ptr<PeerWindow>> PeerWindow::Open(GlooCommunicator* cpu, int device, size_t bytes,
                                                    int flags, std::string* why_not) {
  DeviceScope scope(device);
  std::unique_ptr<PeerWindow> window(new PeerWindow(cpu->rank(), device, bytes, flags));
  window->peers_.resize(static_cast<size_t>(cpu->size()));
  WindowRecord mine;
  std::memset(&mine, 0, sizeof(mine));
  gethostname(mine.host, sizeof(mine.host) - 1);
  mine.pid = static_cast<int64_t>(getpid());
  std::string problem;
  if (GetMemOps().write == nullptr) {
    problem = "the CUDA driver has no stream memory operations";
  } else if (cudaDeviceGetPCIBusId(mine.bus_id, sizeof(mine.bus_id), device) != cudaSuccess) {
    problem = "cudaDeviceGetPCIBusId failed";
  } else {
    const Maybe<void> allocated = window->Allocate();
    if (!allocated.ok()) {
      problem = allocated.error().message();
    } else if (cudaIpcGetMemHandle(&mine.handle, window->base_) != cudaSuccess) {
      problem = "cudaIpcGetMemHandle failed";
    } else {
      mine.allocated = 1;
      mine.base = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(window->base_));
    }
  }
  cudaGetLastError();
  std::vector<WindowRecord> all(static_cast<size_t>(cpu->size()));
  OFLITE_JUST(cpu->AllGather(&mine, all.data(),
                             std::vector<int64_t>(all.size(), sizeof(WindowRecord)),
                             DataType::kUInt8, nullptr));
  for (int r = 0; r < cpu->size() && problem.empty() && mine.allocated; ++r) {
    if (r == cpu->rank()) {
      window->peers_[static_cast<size_t>(r)].flags = static_cast<uint32_t*>(window->base_);
      window->peers_[static_cast<size_t>(r)].data =
          static_cast<char*>(window->base_) + FlagBytes(flags);
      window->peers_[static_cast<size_t>(r)].device = device;
    } else {
      problem = window->Map(r, mine, all[static_cast<size_t>(r)]);
    }
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
  DeviceScope scope(device_);
  for (const Peer& peer : peers_) {
    if (peer.opened_ipc) {
      cudaIpcCloseMemHandle(peer.flags);
    }
  }
  if (base_ != nullptr) {
    cudaFree(base_);
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

void PeerWindow::ReleaseWaits(uint32_t value) const {
  DeviceScope scope(device_);
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  for (int i = 0; i < flags_; ++i) {
    const Maybe<void> queued = Signal(stream, rank_, i, value);
    if (!queued.ok()) {
      break;
    }
  }
  cudaStreamDestroy(stream);  // its work still runs
}

}  // namespace dist
}  // namespace oflite

#endif  // OFLITE_WITH_NCCL
