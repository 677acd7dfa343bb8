// CUDA BroadcastElementwiseBinary: the plan (which path a launch takes), the dtype-independent
// part of the primitive, and the factory. The kernels are instantiated per dtype in
// broadcast_elementwise_binary_<dtype>.cu.
#include <algorithm>
#include <string>

#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/primitive/broadcast_elementwise_binary.cuh"
#include "ep/cuda/primitive/elementwise_primitive.cuh"
#include "oneflow_lite/common/shape.h"

namespace oflite {
namespace ep {
namespace elementwise_kernels {

const char* BinaryPathName(BinaryPath path) {
  switch (path) {
    case BinaryPath::kPacked:
      return "packed";
    case BinaryPath::kScalar:
      return "scalar";
    case BinaryPath::kRank2:
      return "rank2";
    case BinaryPath::kIndex32:
      return "index32";
    case BinaryPath::kIndex64:
      return "index64";
    case BinaryPath::kTooManyDims:
      return "too many dims";
    case BinaryPath::kNone:
      break;
  }
  return "none";
}

static_assert(kMaxDims == kMaxRank, "the kernels hold every dim of a tensor");

namespace {

// The index path's plan: contiguous strides of each operand over the simplified dims, 0 where
// it broadcasts.
void PlanIndex(const primitive::BroadcastDims& dims, BinaryPlan* plan) {
  const int rank = static_cast<int>(dims.rank());
  if (rank > kMaxDims) {
    plan->path = BinaryPath::kTooManyDims;
    return;
  }
  plan->path = plan->count < (int64_t{1} << 31) ? BinaryPath::kIndex32 : BinaryPath::kIndex64;
  plan->first = kMaxDims - rank;
  const DimVector* src[2] = {&dims.src0, &dims.src1};
  for (int k = 0; k < 2; ++k) {
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t extent = (*src[k])[d];
      plan->strides[k][plan->first + d] = extent == 1 ? 0 : stride;
      stride *= extent;
    }
  }
  for (int d = 0; d < rank; ++d) {
    plan->dims[plan->first + d] = dims.dst[d];
  }
}

}  // namespace

BinaryPlan PlanBinary(const primitive::BroadcastDims& dims, int pack, size_t src_size,
                      size_t dst_size, const void* src0, const void* src1, const void* dst) {
  BinaryPlan plan;
  plan.count = dims.dst_count();
  if (plan.count == 0) {
    return plan;  // kNone
  }
  plan.pack = pack;
  const size_t src_access = src_size * pack, dst_access = dst_size * pack;
  const bool dst_aligned = IsAligned(dst, dst_access);
  const bool src0_aligned = IsAligned(src0, src_access);
  const bool src1_aligned = IsAligned(src1, src_access);
  if (dims.same_shape()) {
    if (dst_aligned && src0_aligned && src1_aligned) {
      plan.path = BinaryPath::kPacked;
      return plan;
    }
  } else if (dims.src0_single() || dims.src1_single()) {
    // The other operand has the dst shape: a single element broadcasts to any shape unchanged.
    plan.scalar_side = dims.src0_single() ? ScalarSide::kSrc0 : ScalarSide::kSrc1;
    const bool tensor_aligned = dims.src0_single() ? src1_aligned : src0_aligned;
    if (dst_aligned && tensor_aligned) {
      plan.path = BinaryPath::kScalar;
      return plan;
    }
    plan.scalar_side = ScalarSide::kNone;
  } else if (dims.rank() == 2 && dims.dst[1] % pack == 0 && dims.dst[1] <= kChunkElements &&
             dst_aligned) {
    // Each operand is (rows, cols), (rows, 1) or (1, cols): packs along cols need cols % pack
    // == 0 (every row starts aligned) and the pointers of the operands read in packs aligned.
    const DimVector* src[2] = {&dims.src0, &dims.src1};
    const bool aligned[2] = {src0_aligned, src1_aligned};
    bool ok = true;
    for (int k = 0; k < 2; ++k) {
      const int64_t rows = (*src[k])[0], cols = (*src[k])[1];
      plan.col_broadcast[k] = cols == 1;
      plan.row_stride[k] = rows == 1 ? 0 : cols;
      ok = ok && (plan.col_broadcast[k] || aligned[k]);
    }
    if (ok) {
      plan.path = BinaryPath::kRank2;
      plan.rows = dims.dst[0];
      plan.cols = dims.dst[1];
      return plan;
    }
  }
  plan.pack = 1;
  PlanIndex(dims, &plan);
  return plan;
}

}  // namespace elementwise_kernels

std::string CudaBroadcastElementwiseBinaryBase::name() const {
  return std::string("cuda.broadcast_elementwise_binary<") + primitive::BinaryOpName(op_) + "," +
         DataTypeName(src_type_) + ">";
}

namespace {
// A plan as a trace shows it: "packed pack=4", "index64", ...
std::string DescribePlan(elementwise_kernels::BinaryPath path, int pack) {
  namespace k = elementwise_kernels;
  const bool packed = path == k::BinaryPath::kPacked || path == k::BinaryPath::kScalar ||
                      path == k::BinaryPath::kRank2;
  return std::string(k::BinaryPathName(path)) + (packed ? " pack=" + std::to_string(pack) : "");
}
}  // namespace

Maybe<void> CudaBroadcastElementwiseBinaryBase::Launch(Stream* stream, size_t num_src0_dims,
                                                       const int64_t* src0_dims, const void* src0,
                                                       size_t num_src1_dims,
                                                       const int64_t* src1_dims, const void* src1,
                                                       void* dst) {
  namespace k = elementwise_kernels;
  CudaStream* cuda_stream = nullptr;
  OFLITE_ASSIGN_OR_RETURN(cuda_stream, ActiveCudaStream(stream, *this));
  OFLITE_CHECK_OR_RETURN(std::max(num_src0_dims, num_src1_dims) <= max_rank_, ValueError)
      << name() << ": operands of rank " << num_src0_dims << " and " << num_src1_dims
      << " exceed the rank this primitive was made for (" << max_rank_ << ")";
  primitive::BroadcastDims dims;
  OFLITE_ASSIGN_OR_RETURN(
      dims, primitive::SimplifyBroadcastDims(num_src0_dims, src0_dims, num_src1_dims, src1_dims));
  const k::BinaryPlan plan =
      k::PlanBinary(dims, pack_, DataTypeSize(src_type_), DataTypeSize(dst_type_), src0, src1, dst);
  if (plan.path == k::BinaryPath::kNone) {
    return Ok();
  }
  OFLITE_CHECK_OR_RETURN(plan.path != k::BinaryPath::kTooManyDims, NotImplemented)
      << name() << ": the operands simplify to " << dims.rank()
      << " broadcast dims, above the supported " << k::kMaxDims;
  const CudaDeviceProperties& properties = cuda_stream->properties();
  const k::LaunchParams params{cuda_stream->cuda_stream(), properties.sm_count,
                               properties.max_threads_per_sm};
  OFLITE_JUST(CudaCheck(LaunchPlan(params, plan, src0, src1, dst),
                        "broadcast_elementwise_binary kernel launch"));
  NoteLaunch([&] { return DescribePlan(plan.path, plan.pack); });
  return Ok();
}

Maybe<void> CudaBroadcastElementwiseBinaryBase::LaunchWithScalar(Stream* stream,
                                                                 const Scalar& scalar,
                                                                 bool scalar_first, const void* src,
                                                                 void* dst, size_t count) {
  namespace k = elementwise_kernels;
  int pack = 1;
  OFLITE_JUST(LaunchElementwiseOnStream(stream, *this, count, [&](const k::LaunchParams& params) {
    return LaunchScalar(params, scalar, scalar_first, src, dst, static_cast<int64_t>(count), &pack);
  }));
  if (count > 0) {
    NoteLaunch([&] { return DescribePlan(k::BinaryPath::kScalar, pack); });
  }
  return Ok();
}

namespace {

class CudaBroadcastElementwiseBinaryFactory final
    : public primitive::BroadcastElementwiseBinaryFactory {
 public:
  // Ranks up to kMaxDims, as on the CPU (shapes simplify to at most their rank in dims).
  std::unique_ptr<primitive::BroadcastElementwiseBinary> New(primitive::BinaryOp op,
                                                             DataType src_type, DataType dst_type,
                                                             size_t max_rank,
                                                             double attr) override {
    if (max_rank > static_cast<size_t>(elementwise_kernels::kMaxDims) ||
        dst_type != (primitive::IsComparison(op) ? DataType::kBool : src_type)) {
      return nullptr;
    }
    std::unique_ptr<CudaBroadcastElementwiseBinaryBase> binary = VisitDataType(
        src_type, [&](auto tag) -> std::unique_ptr<CudaBroadcastElementwiseBinaryBase> {
          return NewCudaBroadcastElementwiseBinary<typename decltype(tag)::type>(op, attr);
        });
    if (binary != nullptr) {
      binary->set_max_rank(max_rank);
    }
    return binary;
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::BroadcastElementwiseBinaryFactory,
                                  CudaBroadcastElementwiseBinaryFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
