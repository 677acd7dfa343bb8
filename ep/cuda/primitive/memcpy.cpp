// CUDA Memcpy: cudaMemcpyAsync on the stream; unified addressing works out the direction.
#include "primitive/memcpy.h"

#include "ep/cuda/cuda_stream.h"

namespace oflite {
namespace ep {
namespace {

class CudaMemcpy final : public primitive::Memcpy {
 public:
  std::string name() const override { return "cuda.memcpy"; }
  Maybe<void> Launch(Stream* stream, void* dst, const void* src, size_t bytes) override {
    if (bytes == 0) {
      return Ok();
    }
    auto* cuda_stream = static_cast<CudaStream*>(stream);
    return CudaCheck(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cuda_stream->cuda_stream()),
        "cudaMemcpyAsync");
  }
};

class CudaMemcpyFactory final : public primitive::MemcpyFactory {
 public:
  std::unique_ptr<primitive::Memcpy> New(primitive::MemcpyKind /*kind*/) override {
    return std::make_unique<CudaMemcpy>();
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::MemcpyFactory, CudaMemcpyFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
