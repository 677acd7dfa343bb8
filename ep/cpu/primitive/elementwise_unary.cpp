// CPU ElementwiseUnary: one template over (op, dtype), instantiated from the op list for every
// dtype the functor table supports.
#include "oneflow_lite/primitive/elementwise_unary.h"

#include <string>

#include "ep/cpu/parallel_for.h"
#include "ep/cpu/primitive/compute_type.h"
#include "primitive/elementwise_functors.h"

namespace oflite {
namespace ep {
namespace {

using primitive::UnaryOp;

template <UnaryOp op, typename T>
class CpuElementwiseUnary final : public primitive::ElementwiseUnary {
 public:
  using C = ComputeType<T>;

  explicit CpuElementwiseUnary(double attr) : functor_{attr} {}

  std::string name() const override {
    return std::string("cpu.elementwise_unary<") + primitive::UnaryOpName(op) + "," +
           DataTypeName(kDataTypeOf<T>) + ">";
  }

  Maybe<void> Launch(Stream* /*stream*/, const void* src, void* dst, size_t count) override {
    const T* x = static_cast<const T*>(src);
    T* y = static_cast<T*>(dst);
    const auto f = functor_;
    // 16-bit floats compute in float and round once on the store.
    ParallelFor(static_cast<int64_t>(count), kElementwiseGrain, [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        y[i] = static_cast<T>(f(static_cast<C>(x[i])));
      }
    });
    return Ok();
  }

 private:
  primitive::elementwise::UnaryFunctor<op, sizeof(T) == 2> functor_;
};

template <UnaryOp op>
std::unique_ptr<primitive::ElementwiseUnary> NewUnary(DataType data_type, double attr) {
  return VisitDataType(data_type, [&](auto tag) -> std::unique_ptr<primitive::ElementwiseUnary> {
    using T = typename decltype(tag)::type;
    if constexpr (primitive::elementwise::kUnarySupports<op, ComputeType<T>>) {
      return std::make_unique<CpuElementwiseUnary<op, T>>(attr);
    } else {
      return nullptr;
    }
  });
}

class CpuElementwiseUnaryFactory final : public primitive::ElementwiseUnaryFactory {
 public:
  std::unique_ptr<primitive::ElementwiseUnary> New(UnaryOp op, DataType data_type,
                                                   double attr) override {
    switch (op) {
#define OFLITE_UNARY_CASE(enumerator, name) \
  case UnaryOp::enumerator:                 \
    return NewUnary<UnaryOp::enumerator>(data_type, attr);
      OFLITE_UNARY_OP_LIST(OFLITE_UNARY_CASE)
#undef OFLITE_UNARY_CASE
    }
    return nullptr;
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::ElementwiseUnaryFactory,
                                  CpuElementwiseUnaryFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
