// CUDA ElementwiseUnary for every (op, dtype) that kUnarySupports allows: elementwise.cuh's
// packed kernel over UnaryFunctor<op>, two kernels per (op, dtype) (16-byte packs, and pack 1
// for unaligned pointers).

#include <memory>
#include <string>

#include "ep/cuda/cuda_data_type.h"
#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/primitive/elementwise.cuh"
#include "ep/cuda/primitive/elementwise_primitive.cuh"
#include "oneflow_lite/primitive/elementwise_unary.h"
#include "primitive/elementwise_functors.h"

namespace oflite {
namespace ep {
namespace {

namespace k = elementwise_kernels;

// "cuda.elementwise_unary<relu,float32>"
std::string UnaryName(primitive::UnaryOp op, DataType data_type) {
  return std::string("cuda.elementwise_unary<") + primitive::UnaryOpName(op) + "," +
         DataTypeName(data_type) + ">";
}

template <primitive::UnaryOp kOp, typename T>
class CudaElementwiseUnary final : public CudaPackedPrimitive<primitive::ElementwiseUnary> {
  using Storage = CudaType<T>;

 public:
  explicit CudaElementwiseUnary(double attr)
      : CudaPackedPrimitive(UnaryName(kOp, kDataTypeOf<T>)), functor_{attr} {}

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
