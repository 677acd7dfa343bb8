#include "ep/cuda/cuda_stream.h"

#include <memory>

namespace oflite {
namespace ep {

Maybe<void> CudaCheck(cudaError_t status, const char* what) {
  if (status == cudaSuccess) {
    return Ok();
  }
  return OFLITE_ERROR(DeviceError)
         << what << " failed: " << cudaGetErrorName(status) << ": " << cudaGetErrorString(status);
}

Maybe<std::unique_ptr<CudaStream>> CudaStream::Create(int device_index) {
  cudaStream_t stream = nullptr;
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index), "cudaSetDevice"));
  OFLITE_JUST(CudaCheck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                        "cudaStreamCreateWithFlags"));
  const CudaDeviceProperties* properties = nullptr;
  OFLITE_ASSIGN_OR_RETURN(properties, GetCudaDeviceProperties(device_index));
  return std::unique_ptr<CudaStream>(new CudaStream(device_index, stream, properties));
}

CudaStream::~CudaStream() { cudaStreamDestroy(stream_); }

Maybe<void> CudaStream::Sync() {
  OFLITE_JUST(CudaCheck(cudaSetDevice(device_index_), "cudaSetDevice"));
  return CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

}  // namespace ep
}  // namespace oflite
