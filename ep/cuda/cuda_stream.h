// Internal to the CUDA provider: the stream type its primitives downcast to, and the one place
// CUDA status codes become Maybe errors.
#ifndef ONEFLOW_LITE_EP_CUDA_CUDA_STREAM_H_
#define ONEFLOW_LITE_EP_CUDA_CUDA_STREAM_H_

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <string>

#include "ep/cuda/cuda_device_properties.h"
#include "ep/cuda/pinned_staging_buffer.h"
#include "oneflow_lite/ep/stream.h"

namespace oflite {
namespace primitive {
class Primitive;
}  // namespace primitive
namespace ep {

// DeviceError carrying CUDA's own error string; `what` names the failed call.
Maybe<void> CudaCheck(cudaError_t status, const char* what);
// DeviceError carrying cuBLAS's status name (cuBLAS and cuBLASLt share the status type).
Maybe<void> CublasCheck(cublasStatus_t status, const char* what);

class CudaStream;
// The CUDA stream a primitive was handed, with its device made current (kernels launch on the
// current device); ValueError naming the primitive for any other stream. The primitive's name is
// built only for that error: it is a string made anew on each call.
Maybe<CudaStream*> ActiveCudaStream(Stream* stream, const primitive::Primitive& primitive);
Maybe<CudaStream*> ActiveCudaStream(Stream* stream, const char* primitive);

class CudaStream final : public Stream {
 public:
  // Creates a non-blocking stream on device_index (the device must be current).
  static Maybe<std::unique_ptr<CudaStream>> Create(int device_index);
  // Runs on a stream the caller made and destroys (nullptr: the legacy default stream);
  // ValueError when it is not a stream of device_index.
  static Maybe<std::unique_ptr<CudaStream>> Wrap(int device_index, cudaStream_t stream);
  ~CudaStream() override;

  DeviceType device_type() const override { return DeviceType::kCUDA; }
  Maybe<void> Sync() override;
  Maybe<void*> NativeHandle() override;
  Maybe<std::unique_ptr<Event>> RecordEvent() override;
  Maybe<void> WaitEvent(Event* event) override;
  cudaStream_t cuda_stream() const { return stream_; }
  int device_index() const { return device_index_; }
  // Cached at creation: kernels size their grids from it on every launch.
  const CudaDeviceProperties& properties() const { return *properties_; }
  // Makes the stream's device current: kernels launch on the current device.
  Maybe<void> SetDevice() const;
  // The pinned buffer that copies of pageable host memory on this stream go through; created
  // on first use and reused after.
  Maybe<PinnedStagingBuffer*> staging_buffer();

  // cuBLAS handles, created on first use and destroyed with the stream. The cuBLAS handle is
  // bound to this stream; cuBLASLt takes the stream per call.
  Maybe<cublasHandle_t> cublas_handle();
  Maybe<cublasLtHandle_t> cublas_lt_handle();
  // Scratch memory for the stream's kernels (cublasLtMatmul's workspace, the split softmax's
  // partials), kWorkspaceBytes, allocated on first use. Only work queued on this stream may use
  // it (stream order keeps the uses apart).
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;
  Maybe<void*> workspace();

 private:
  CudaStream(int device_index, cudaStream_t stream, bool owned,
             const CudaDeviceProperties* properties)
      : device_index_(device_index), stream_(stream), owned_(owned), properties_(properties) {}
  int device_index_;
  cudaStream_t stream_;
  bool owned_;  // false for the caller's streams (Wrap)
  const CudaDeviceProperties* properties_;
  std::mutex staging_mutex_;
  std::unique_ptr<PinnedStagingBuffer> staging_buffer_;
  std::mutex blas_mutex_;
  cublasHandle_t cublas_handle_ = nullptr;
  cublasLtHandle_t cublas_lt_handle_ = nullptr;
  void* workspace_ = nullptr;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_CUDA_STREAM_H_
