// CUDA ElementwiseUnary for every (op, dtype) that kUnarySupports allows: elementwise.cuh's
// packed kernel over UnaryFunctor<op>, two kernels per (op, dtype) (16-byte packs, and pack 1
// for unaligned pointers).

#include <memory>
#include <string>

#include "ep/cuda/cuda_data_type.h"
#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/primitive/elementwise.cuh"
#include "primitive/elementwise_functors.h"
#include "primitive/elementwise_unary.h"

namespace oflite {
namespace ep {
namespace {

namespace k = elementwise_kernels;

// Everything that does not depend on (op, dtype), compiled once.
class CudaElementwiseUnaryBase : public primitive::ElementwiseUnary {
 public:
  CudaElementwiseUnaryBase(primitive::UnaryOp op, DataType data_type)
      : op_(op), data_type_(data_type) {}

  // "cuda.elementwise_unary<relu,float32>"
  std::string name() const override {
    return std::string("cuda.elementwise_unary<") + primitive::UnaryOpName(op_) + "," +
           DataTypeName(data_type_) + ">";
  }
  // "...[pack=4]" after a launch (pack=1: unaligned pointers); the name before any launch or
  // after a launch of nothing.
  std::string LaunchDescription() const override {
    return last_pack_ == 0 ? name() : name() + "[pack=" + std::to_string(last_pack_) + "]";
  }

  Maybe<void> Launch(Stream* stream, const void* src, void* dst, size_t count) final {
    last_pack_ = 0;
    CudaStream* cuda_stream = nullptr;
    OFLITE_ASSIGN_OR_RETURN(cuda_stream, ActiveCudaStream(stream, name()));
    if (count == 0) {
      return Ok();
    }
    const CudaDeviceProperties& properties = cuda_stream->properties();
    const k::LaunchParams params{cuda_stream->cuda_stream(), properties.sm_count,
                                 properties.max_threads_per_sm};
    int pack = 0;
    OFLITE_JUST(CudaCheck(LaunchKernel(params, static_cast<int64_t>(count), src, dst, &pack),
                          "elementwise_unary kernel launch"));
    last_pack_ = pack;
    return Ok();
  }

 protected:
  virtual cudaError_t LaunchKernel(const k::LaunchParams& params, int64_t count, const void* src,
                                   void* dst, int* pack) const = 0;

 private:
  primitive::UnaryOp op_;
  DataType data_type_;
  int last_pack_ = 0;
};

template <primitive::UnaryOp kOp, typename T>
class CudaElementwiseUnary final : public CudaElementwiseUnaryBase {
  using Storage = CudaType<T>;

 public:
  explicit CudaElementwiseUnary(double attr)
      : CudaElementwiseUnaryBase(kOp, kDataTypeOf<T>), functor_{attr} {}

 protected:
  cudaError_t LaunchKernel(const k::LaunchParams& params, int64_t count, const void* src, void* dst,
                           int* pack) const override {
    return k::LaunchElementwise(params, count, functor_, static_cast<Storage*>(dst),
                                static_cast<const Storage*>(src), pack);
  }

 private:
  primitive::elementwise::UnaryFunctor<kOp, sizeof(T) == 2> functor_;
};

template <typename T>
std::unique_ptr<primitive::ElementwiseUnary> NewUnary(primitive::UnaryOp op, double attr) {
  using C = k::ComputeType<CudaType<T>>;
  switch (op) {
#define OFLITE_CUDA_UNARY_CASE(enumerator, name)                                               \
  case primitive::UnaryOp::enumerator:                                                         \
    if constexpr (primitive::elementwise::kUnarySupports<primitive::UnaryOp::enumerator, C>) { \
      return std::make_unique<CudaElementwiseUnary<primitive::UnaryOp::enumerator, T>>(attr);  \
    } else {                                                                                   \
      return nullptr;                                                                          \
    }
    OFLITE_UNARY_OP_LIST(OFLITE_CUDA_UNARY_CASE)
#undef OFLITE_CUDA_UNARY_CASE
  }
  return nullptr;
}

class CudaElementwiseUnaryFactory final : public primitive::ElementwiseUnaryFactory {
 public:
  std::unique_ptr<primitive::ElementwiseUnary> New(primitive::UnaryOp op, DataType data_type,
                                                   double attr) override {
    return VisitDataType(
        data_type, [&](auto tag) { return NewUnary<typename decltype(tag)::type>(op, attr); });
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::ElementwiseUnaryFactory,
                                  CudaElementwiseUnaryFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
