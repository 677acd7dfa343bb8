// CUDA Memcpy, by direction. Device-to-device and page-locked host memory go straight to
// cudaMemcpyAsync on the stream. Pageable host memory goes through the stream's pinned staging
// buffer in chunks: to the device, Launch returns once the host buffer has been read; to the
// host, once it has been written (Tensor::CopyToHost syncs the stream either way).
#include "oneflow_lite/primitive/memcpy.h"

#include "ep/cuda/cuda_stream.h"

namespace oflite {
namespace ep {
namespace {

const char* MemcpyKindName(primitive::MemcpyKind kind) {
  switch (kind) {
    case primitive::MemcpyKind::kHostToDevice:
      return "host_to_device";
    case primitive::MemcpyKind::kDeviceToHost:
      return "device_to_host";
    case primitive::MemcpyKind::kDeviceToDevice:
      return "device_to_device";
  }
  return "unknown";
}

// Host memory the copy engines cannot reach directly: neither page-locked, nor registered,
// nor managed, nor device memory.
Maybe<bool> IsPageable(const void* host) {
  cudaPointerAttributes attributes;
  OFLITE_JUST(CudaCheck(cudaPointerGetAttributes(&attributes, host), "cudaPointerGetAttributes"));
  return attributes.type == cudaMemoryTypeUnregistered;
}

class CudaMemcpy final : public primitive::Memcpy {
 public:
  explicit CudaMemcpy(primitive::MemcpyKind kind) : kind_(kind) {}

  std::string name() const override {
    return std::string("cuda.memcpy<") + MemcpyKindName(kind_) + ">";
  }

  // Device to device: one cudaMemcpy2DAsync (pitches past the device's limit copy row by row).
  Maybe<void> Launch2D(Stream* stream, void* dst, size_t dst_stride, const void* src,
                       size_t src_stride, size_t row_bytes, size_t rows) override {
    CudaStream* cuda_stream = nullptr;
    OFLITE_ASSIGN_OR_RETURN(cuda_stream, ActiveCudaStream(stream, *this));
    const size_t max_pitch = static_cast<size_t>(cuda_stream->properties().max_pitch);
    if (kind_ != primitive::MemcpyKind::kDeviceToDevice || dst_stride > max_pitch ||
        src_stride > max_pitch) {
      return primitive::Memcpy::Launch2D(stream, dst, dst_stride, src, src_stride, row_bytes, rows);
    }
    if (rows == 0 || row_bytes == 0) {
      return Ok();
    }
    return CudaCheck(cudaMemcpy2DAsync(dst, dst_stride, src, src_stride, row_bytes, rows,
                                       cudaMemcpyDeviceToDevice, cuda_stream->cuda_stream()),
                     "cudaMemcpy2DAsync (device to device)");
  }

  Maybe<void> Launch(Stream* stream, void* dst, const void* src, size_t bytes) override {
    CudaStream* cuda_stream = nullptr;
    OFLITE_ASSIGN_OR_RETURN(cuda_stream, ActiveCudaStream(stream, *this));
    if (bytes == 0) {
      return Ok();
    }
    const cudaStream_t raw_stream = cuda_stream->cuda_stream();
    const void* host = nullptr;
    switch (kind_) {
      case primitive::MemcpyKind::kDeviceToDevice:
        return CudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, raw_stream),
                         "cudaMemcpyAsync (device to device)");
      case primitive::MemcpyKind::kHostToDevice:
        host = src;
        break;
      case primitive::MemcpyKind::kDeviceToHost:
        host = dst;
        break;
    }
    bool pageable = false;
    OFLITE_ASSIGN_OR_RETURN(pageable, IsPageable(host));
    if (!pageable) {
      return CudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, raw_stream),
                       "cudaMemcpyAsync");
    }
    PinnedStagingBuffer* staging = nullptr;
    OFLITE_ASSIGN_OR_RETURN(staging, cuda_stream->staging_buffer());
    if (kind_ == primitive::MemcpyKind::kHostToDevice) {
      return staging->CopyToDevice(raw_stream, dst, src, bytes);
    }
    return staging->CopyToHost(raw_stream, dst, src, bytes);
  }

 private:
  primitive::MemcpyKind kind_;
};

class CudaMemcpyFactory final : public primitive::MemcpyFactory {
 public:
  std::unique_ptr<primitive::Memcpy> New(primitive::MemcpyKind kind) override {
    return std::make_unique<CudaMemcpy>(kind);
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::MemcpyFactory, CudaMemcpyFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
