// The framework side that the CUDA elementwise primitives share (unary, cast and the binary
// tensor-scalar launch): the stream check, nothing launched for no elements, the launch
// parameters from the stream's device, CUDA errors as DeviceError, and the description of the
// pack a launch used.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_ELEMENTWISE_PRIMITIVE_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_ELEMENTWISE_PRIMITIVE_CUH_

#include <string>
#include <utility>

#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/primitive/elementwise.cuh"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace ep {

// Runs launch(params) for count elements on stream, which must be a CUDA stream (ValueError
// naming the primitive); count 0 launches nothing.
template <typename F>
Maybe<void> LaunchElementwiseOnStream(Stream* stream, const primitive::Primitive& primitive,
                                      size_t count, F launch) {
  CudaStream* cuda_stream = nullptr;
  OFLITE_ASSIGN_OR_RETURN(cuda_stream, ActiveCudaStream(stream, primitive));
  if (count == 0) {
    return Ok();
  }
  const CudaDeviceProperties& properties = cuda_stream->properties();
  const elementwise_kernels::LaunchParams params{cuda_stream->cuda_stream(), properties.sm_count,
                                                 properties.max_threads_per_sm};
  const cudaError_t status = launch(params);
  if (status != cudaSuccess) {  // the name is built for the error only
    return CudaCheck(status, (primitive.name() + " launch").c_str());
  }
  return Ok();
}

// A primitive whose Launch(stream, src, dst, count) runs one kernel over count contiguous
// elements (ElementwiseUnary, Cast): subclasses give the name and LaunchKernel.
template <typename Interface>
class CudaPackedPrimitive : public Interface {
 public:
  explicit CudaPackedPrimitive(std::string name) : name_(std::move(name)) {}

  std::string name() const override { return name_; }
  Maybe<void> Launch(Stream* stream, const void* src, void* dst, size_t count) final {
    int pack = 0;
    OFLITE_JUST(LaunchElementwiseOnStream(
        stream, *this, count, [&](const elementwise_kernels::LaunchParams& params) {
          return LaunchKernel(params, static_cast<int64_t>(count), src, dst, &pack);
        }));
    // For a trace: "pack=4" (pack=1: unaligned pointers), or "copy" when no kernel was needed.
    if (pack != 0) {
      this->NoteLaunch([&] { return pack == kCopied ? "copy" : "pack=" + std::to_string(pack); });
    }
    return Ok();
  }

 protected:
  static constexpr int kCopied = -1;  // *pack of a launch that copied instead
  // Launches on params.stream; *pack: the elements per access used, or kCopied.
  virtual cudaError_t LaunchKernel(const elementwise_kernels::LaunchParams& params, int64_t count,
                                   const void* src, void* dst, int* pack) const = 0;

 private:
  std::string name_;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_ELEMENTWISE_PRIMITIVE_CUH_
