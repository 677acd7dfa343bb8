#include "ep/cuda/cuda_stream.h"

#include <memory>

#include "ep/cuda/cuda_event.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace ep {

Maybe<void> CudaCheck(cudaError_t status, const char* what) {
  if (status == cudaSuccess) {
    return Ok();
  }
  // Consume the error: a non-sticky one would otherwise be reported again by the next
  // unrelated launch check. (A sticky one stays: the context is lost.)
  cudaGetLastError();
  return OFLITE_ERROR(DeviceError)
         << what << " failed: " << cudaGetErrorName(status) << ": " << cudaGetErrorString(status);
}

Maybe<void> CublasCheck(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) {
    return Ok();
  }
  // A failed launch inside cuBLAS can leave a CUDA error behind: consume it as CudaCheck does.
  cudaGetLastError();
  return OFLITE_ERROR(DeviceError) << what << " failed: " << cublasGetStatusName(status) << ": "
                                   << cublasGetStatusString(status);
}

Maybe<std::unique_ptr<CudaStream>> CudaStream::Create(int device_index) {
  cudaStream_t stream = nullptr;
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index), "cudaSetDevice"));
  OFLITE_JUST(CudaCheck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                        "cudaStreamCreateWithFlags"));
  const CudaDeviceProperties* properties = nullptr;
  OFLITE_ASSIGN_OR_RETURN(properties, GetCudaDeviceProperties(device_index));
  return std::unique_ptr<CudaStream>(new CudaStream(device_index, stream, true, properties));
}

Maybe<std::unique_ptr<CudaStream>> CudaStream::Wrap(int device_index, cudaStream_t stream) {
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index), "cudaSetDevice"));
  int stream_device = -1;
  const Maybe<void> found =
      CudaCheck(cudaStreamGetDevice(stream, &stream_device), "cudaStreamGetDevice");
  OFLITE_CHECK_OR_RETURN(found.ok(), ValueError)
      << "stream " << static_cast<void*>(stream) << " is not a CUDA stream of cuda:" << device_index
      << " (" << found.error().message() << ")";
  OFLITE_CHECK_OR_RETURN(stream_device == device_index, ValueError)
      << "stream " << static_cast<void*>(stream) << " belongs to cuda:" << stream_device
      << ", not to cuda:" << device_index;
  const CudaDeviceProperties* properties = nullptr;
  OFLITE_ASSIGN_OR_RETURN(properties, GetCudaDeviceProperties(device_index));
  return std::unique_ptr<CudaStream>(new CudaStream(device_index, stream, false, properties));
}

CudaStream::~CudaStream() {
  // Errors are ignored: at process exit the driver may be gone already.
  cudaSetDevice(device_index_);
  if (cublas_handle_ != nullptr) {
    cublasDestroy(cublas_handle_);
  }
  if (cublas_lt_handle_ != nullptr) {
    cublasLtDestroy(cublas_lt_handle_);
  }
  if (workspace_ != nullptr) {
    cudaFree(workspace_);
  }
  if (owned_) {
    cudaStreamDestroy(stream_);
  }
  cudaGetLastError();
}

Maybe<void> CudaStream::Sync() {
  OFLITE_JUST(SetDevice());
  return CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

Maybe<void*> CudaStream::NativeHandle() {
  OFLITE_JUST(SetDevice());
  return static_cast<void*>(stream_);
}

Maybe<std::unique_ptr<Event>> CudaStream::RecordEvent() {
  OFLITE_JUST(SetDevice());
  std::unique_ptr<CudaEvent> event;
  OFLITE_ASSIGN_OR_RETURN(event, CudaEvent::Create(device_index_, /*timing=*/false));
  OFLITE_JUST(event->Record(this));
  return std::unique_ptr<Event>(std::move(event));
}

Maybe<void> CudaStream::WaitEvent(Event* event) {
  auto* cuda_event = dynamic_cast<CudaEvent*>(event);
  OFLITE_CHECK_OR_RETURN(cuda_event != nullptr, ValueError)
      << "cuda stream: can only wait for a cuda event";
  OFLITE_JUST(SetDevice());
  // Also across GPUs: a stream may wait for an event of another device.
  return CudaCheck(cudaStreamWaitEvent(stream_, cuda_event->native(), 0), "cudaStreamWaitEvent");
}

Maybe<void> CudaStream::SetDevice() const {
  // Reading the current device is a thread-local lookup; setting it costs more on every call.
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == device_index_) {
    return Ok();
  }
  return CudaCheck(cudaSetDevice(device_index_), "cudaSetDevice");
}

Maybe<PinnedStagingBuffer*> CudaStream::staging_buffer() {
  std::lock_guard<std::mutex> lock(staging_mutex_);
  if (staging_buffer_ == nullptr) {
    OFLITE_ASSIGN_OR_RETURN(staging_buffer_, PinnedStagingBuffer::Create(device_index_));
  }
  return staging_buffer_.get();
}

Maybe<cublasHandle_t> CudaStream::cublas_handle() {
  std::lock_guard<std::mutex> lock(blas_mutex_);
  if (cublas_handle_ == nullptr) {
    OFLITE_JUST(SetDevice());
    cublasHandle_t handle = nullptr;
    OFLITE_JUST(CublasCheck(cublasCreate(&handle), "cublasCreate"));
    const Maybe<void> bound = CublasCheck(cublasSetStream(handle, stream_), "cublasSetStream");
    if (!bound.ok()) {
      cublasDestroy(handle);
      return bound.error();
    }
    cublas_handle_ = handle;
  }
  return cublas_handle_;
}

Maybe<cublasLtHandle_t> CudaStream::cublas_lt_handle() {
  std::lock_guard<std::mutex> lock(blas_mutex_);
  if (cublas_lt_handle_ == nullptr) {
    OFLITE_JUST(SetDevice());
    OFLITE_JUST(CublasCheck(cublasLtCreate(&cublas_lt_handle_), "cublasLtCreate"));
  }
  return cublas_lt_handle_;
}

Maybe<void*> CudaStream::workspace() {
  std::lock_guard<std::mutex> lock(blas_mutex_);
  if (workspace_ == nullptr) {
    OFLITE_JUST(SetDevice());
    OFLITE_JUST(
        CudaCheck(cudaMalloc(&workspace_, kWorkspaceBytes), "cudaMalloc (stream workspace)"));
  }
  return workspace_;
}

namespace {

bool IsCudaStream(const Stream* stream) {
  return stream != nullptr && stream->device_type() == DeviceType::kCUDA;
}

Maybe<CudaStream*> MakeCurrent(Stream* stream) {
  auto* cuda_stream = static_cast<CudaStream*>(stream);
  OFLITE_JUST(cuda_stream->SetDevice());
  return cuda_stream;
}

}  // namespace

Maybe<CudaStream*> ActiveCudaStream(Stream* stream, const primitive::Primitive& primitive) {
  OFLITE_CHECK_OR_RETURN(IsCudaStream(stream), ValueError)
      << primitive.name() << ": needs a cuda stream";
  return MakeCurrent(stream);
}

Maybe<CudaStream*> ActiveCudaStream(Stream* stream, const char* primitive) {
  OFLITE_CHECK_OR_RETURN(IsCudaStream(stream), ValueError) << primitive << ": needs a cuda stream";
  return MakeCurrent(stream);
}

}  // namespace ep
}  // namespace oflite
