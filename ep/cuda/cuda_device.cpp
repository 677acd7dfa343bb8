// The CUDA execution provider: one ep::Device per visible GPU, each with its own stream and
// caching allocator, created on first use.
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ep/cuda/caching_allocator.h"
#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/pool_allocator.h"
#include "oneflow_lite/ep/device.h"

namespace oflite {
namespace ep {
namespace {

class CudaDevice final : public Device {
 public:
  CudaDevice(int index, std::unique_ptr<CudaStream> stream)
      : index_(index), stream_(std::move(stream)), allocator_(index) {}

  oflite::Device device() const override { return oflite::Device::Cuda(index_); }
  Stream* default_stream() override { return stream_.get(); }

  Maybe<Stream*> ExternalStream(void* native) override {
    const auto handle = static_cast<cudaStream_t>(native);
    // One handle, a stream per thread: the allocator's bins and the recorded uses would mix
    // the threads' streams.
    OFLITE_CHECK_OR_RETURN(handle != cudaStreamPerThread, ValueError)
        << "cuda:" << index_ << ": cudaStreamPerThread names another stream on each thread; "
        << "pass the stream itself";
    // By CUDA's stream id, not the handle: a destroyed stream's handle may come back for a new
    // stream, which must not inherit the old one's cached blocks.
    unsigned long long id = 0;
    OFLITE_JUST(CudaCheck(cudaSetDevice(index_), "cudaSetDevice"));
    const cudaError_t found = cudaStreamGetId(handle, &id);
    if (found != cudaSuccess) {
      cudaGetLastError();
      return OFLITE_ERROR(ValueError)
             << "stream " << native << " is not a CUDA stream of cuda:" << index_ << " ("
             << cudaGetErrorString(found) << ")";
    }
    std::lock_guard<std::mutex> lock(external_mutex_);
    auto& slot = external_streams_[id];
    if (slot == nullptr) {
      Maybe<std::unique_ptr<CudaStream>> wrapped = CudaStream::Wrap(index_, handle);
      if (!wrapped.ok()) {
        external_streams_.erase(id);
        return wrapped.error();
      }
      slot = std::move(wrapped).value();
    }
    return static_cast<Stream*>(slot.get());
  }

  Maybe<std::shared_ptr<Allocator>> NewPoolAllocator(void* pool) override {
    return CudaPoolAllocator::Create(index_, static_cast<cudaMemPool_t>(pool), stream_.get());
  }

 protected:
  Allocator* builtin_allocator() override { return &allocator_; }

 private:
  int index_;
  std::unique_ptr<CudaStream> stream_;
  std::mutex external_mutex_;
  // The caller's queues this device has run on, by CUDA's stream id: their cuBLAS handles and
  // workspace are made once per queue and kept for the process.
  std::unordered_map<unsigned long long, std::unique_ptr<CudaStream>> external_streams_;
  CudaCachingAllocator allocator_;  // declared after the streams: destroyed before them
};

class CudaDeviceProvider final : public DeviceProvider {
 public:
  DeviceType type() const override { return DeviceType::kCUDA; }

  int DeviceCount() override {
    std::call_once(count_once_, [this] {
      int count = 0;
      // No driver or no GPU is a normal state here (CI, laptops): count it as zero devices.
      if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        count = 0;
      }
      device_count_ = count;
      devices_.resize(static_cast<size_t>(count));
    });
    return device_count_;
  }

  Maybe<Device*> GetDevice(int index) override {
    OFLITE_CHECK_OR_RETURN(index >= 0 && index < DeviceCount(), DeviceError)
        << "cuda:" << index << " does not exist (" << DeviceCount() << " visible)";
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = devices_[static_cast<size_t>(index)];
    if (slot == nullptr) {
      std::unique_ptr<CudaStream> stream;
      OFLITE_ASSIGN_OR_RETURN(stream, CudaStream::Create(index));
      slot = std::make_unique<CudaDevice>(index, std::move(stream));
    }
    return static_cast<Device*>(slot.get());
  }

 private:
  std::once_flag count_once_;
  int device_count_ = 0;
  std::mutex mutex_;
  std::vector<std::unique_ptr<CudaDevice>> devices_;
};

OFLITE_REGISTER_DEVICE_PROVIDER(CudaDeviceProvider);

}  // namespace
}  // namespace ep
}  // namespace oflite
