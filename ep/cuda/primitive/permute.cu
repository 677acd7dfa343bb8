// CUDA Permute for every dtype: the kernels of permute.cuh (copy | tiled | short side |
// general, chosen per launch after merging dims), with elements moved as words of their size so
// that the kernel set depends on the element size only. The one place its cudaError_t becomes a
// Maybe.
#include <string>

#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/primitive/permute.cuh"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/primitive/permute.h"

namespace oflite {
namespace ep {
namespace {

static_assert(permute_kernels::kMaxDims == kMaxRank, "the kernels hold every dim of a tensor");

class CudaPermute final : public primitive::Permute {
 public:
  explicit CudaPermute(DataType data_type) : data_type_(data_type) {}

  std::string name() const override {
    return std::string("cuda.permute<") + DataTypeName(data_type_) + ">";
  }
  Maybe<void> Launch(Stream* stream, size_t num_dims, const int64_t* src_dims, const void* src,
                     const int64_t* perm, void* dst) override {
    CudaStream* cuda_stream = nullptr;
    OFLITE_ASSIGN_OR_RETURN(cuda_stream, ActiveCudaStream(stream, *this));
    OFLITE_CHECK_OR_RETURN(num_dims <= static_cast<size_t>(permute_kernels::kMaxDims),
                           NotImplemented)
        << name() << ": rank " << num_dims << " is above the supported "
        << permute_kernels::kMaxDims;
    const permute_kernels::PermutePlan plan =
        permute_kernels::PlanPermute(static_cast<int>(DataTypeSize(data_type_)),
                                     static_cast<int>(num_dims), src_dims, perm, src, dst);
    if (plan.path == permute_kernels::PermutePath::kNone) {
      return Ok();
    }
    const CudaDeviceProperties& properties = cuda_stream->properties();
    OFLITE_JUST(CudaCheck(
        permute_kernels::LaunchPermutePlan(cuda_stream->cuda_stream(), plan, src, dst,
                                           properties.sm_count, properties.max_threads_per_sm),
        plan.path == permute_kernels::PermutePath::kCopy ? "permute: cudaMemcpyAsync"
                                                         : "permute kernel launch"));
    // The path, for a trace: copy | tiled | tiled pairs | tiled vectors | short side | general.
    NoteLaunch([&] {
      const char* words = plan.pairs ? " pairs" : (plan.vectors ? " vectors" : "");
      return std::string(permute_kernels::PermutePathName(plan.path)) + words;
    });
    return Ok();
  }

 private:
  DataType data_type_;
};

class CudaPermuteFactory final : public primitive::PermuteFactory {
 public:
  std::unique_ptr<primitive::Permute> New(DataType data_type, size_t max_num_dims) override {
    if (max_num_dims > static_cast<size_t>(permute_kernels::kMaxDims)) {
      return nullptr;
    }
    switch (DataTypeSize(data_type)) {
      case 1:
      case 2:
      case 4:
      case 8:
        return std::make_unique<CudaPermute>(data_type);
      default:
        return nullptr;
    }
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::PermuteFactory, CudaPermuteFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
