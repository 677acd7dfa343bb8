// CUDA BroadcastElementwiseBinary: the kernels, the primitive class template and the per-dtype
// constructor that broadcast_elementwise_binary_<dtype>.cu instantiate (one .cu per dtype, so
// dtypes compile in parallel and a change to one op recompiles nine small files).
//
// The operands' shapes are simplified on the host (primitive/broadcast_dims.h), then one path
// runs (PlanBinary picks it; a trace names it):
//   packed   no broadcast: elementwise.cuh's packed kernel (16-byte accesses);
//   scalar   one operand is a single element: the same kernel, that operand read once a thread;
//   rank2    two simplified dims, each operand (rows, cols), (rows, 1) or (1, cols): packs along
//            cols, a (rows, 1) operand read once a pack; the bias-add shape, kept at copy speed;
//   index32  anything else (and the cases above when the pointers or the row length do not
//   index64  allow packs): one element a thread, offsets from up to kMaxDims fixed-size dims and
//            strides passed by value; 32-bit math below 2^31 elements.
// Per (op, dtype) that is four kernels: packed (shared with scalar), rank2, index32, index64.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_BROADCAST_ELEMENTWISE_BINARY_CUH_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_BROADCAST_ELEMENTWISE_BINARY_CUH_

#include <memory>
#include <string>
#include <type_traits>

#include "ep/cuda/cuda_data_type.h"
#include "ep/cuda/primitive/elementwise.cuh"
#include "oneflow_lite/primitive/broadcast_elementwise_binary.h"
#include "primitive/broadcast_dims.h"
#include "primitive/elementwise_functors.h"

namespace oflite {
namespace ep {
namespace elementwise_kernels {

// The most simplified dims the index path takes; SimplifyBroadcastDims merges every run of
// dims that broadcast alike, so more would need operands alternating broadcast axis 9 times.
constexpr int kMaxDims = 16;  // as the CPU provider

enum class BinaryPath { kNone, kPacked, kScalar, kRank2, kIndex32, kIndex64, kTooManyDims };

const char* BinaryPathName(BinaryPath path);

// What a launch runs, from PlanBinary (host code, in broadcast_elementwise_binary.cu).
struct BinaryPlan {
  BinaryPath path = BinaryPath::kNone;
  int64_t count = 0;  // dst elements
  int pack = 1;       // elements per access of the packed, scalar and rank2 paths
  ScalarSide scalar_side = ScalarSide::kNone;
  // rank2: dst is (rows, cols); operand k is element [r * row_stride[k] (+ c unless
  // col_broadcast[k])].
  int64_t rows = 0, cols = 0;
  int64_t row_stride[2] = {0, 0};
  bool col_broadcast[2] = {false, false};
  // index: dims right-aligned in kMaxDims (dims[first..]); strides 0 where an operand
  // broadcasts.
  int first = kMaxDims - 1;
  int64_t dims[kMaxDims] = {};
  int64_t strides[2][kMaxDims] = {};
};

// pack: elements per 16-byte access of the widest of the src and dst types.
BinaryPlan PlanBinary(const primitive::BroadcastDims& dims, int pack, size_t src_size,
                      size_t dst_size, const void* src0, const void* src1, const void* dst);

// ---- rank2 --------------------------------------------------------------------------------

struct Rank2Operand {
  uint32_t row_stride;  // 0 when the operand is (1, cols)
  bool col_broadcast;   // the operand is (rows, 1): one element a row
};

template <int kPack, typename T>
__device__ __forceinline__ void LoadRank2Pack(const T* src, Rank2Operand o, uint32_t row,
                                              uint32_t col, ComputeType<T>* out) {
  if (o.col_broadcast) {
    const ComputeType<T> v = ToCompute(src[row * o.row_stride]);
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      out[i] = v;
    }
  } else {
    LoadPack<kPack>(src + row * o.row_stride + col, out);
  }
}

// dst (rows, cols), cols % kPack == 0, rows * cols < 2^31. The row of a pack comes from one
// 32-bit division per pack (not per element), far below the memory time of a pack.
template <int kPack, typename F, typename Dst, typename Src0, typename Src1>
__global__ void __launch_bounds__(kBlockSize)
    Rank2Kernel(F f, uint32_t rows, uint32_t cols, Dst* dst, const Src0* src0, Rank2Operand o0,
                const Src1* src1, Rank2Operand o1) {
  using C0 = ComputeType<Src0>;
  using C1 = ComputeType<Src1>;
  using R = decltype(f(C0(), C1()));
  const uint32_t packs_per_row = cols / kPack;
  const uint32_t num_packs = rows * packs_per_row;
  for (uint32_t p = GlobalThread(); p < num_packs; p += GridThreads()) {
    const uint32_t row = p / packs_per_row;
    const uint32_t col = (p - row * packs_per_row) * kPack;
    C0 a[kPack];
    C1 b[kPack];
    LoadRank2Pack<kPack>(src0, o0, row, col, a);
    LoadRank2Pack<kPack>(src1, o1, row, col, b);
    R y[kPack];
#pragma unroll
    for (int i = 0; i < kPack; ++i) {
      y[i] = f(a[i], b[i]);
    }
    StorePack<kPack>(y, dst + p * kPack);
  }
}

// Rows in chunks of fewer than 2^31 elements (plan.cols <= kChunkElements: PlanBinary's rule).
template <int kPack, typename F, typename Dst, typename Src0, typename Src1>
cudaError_t LaunchRank2(const LaunchParams& params, const BinaryPlan& plan, F f, Dst* dst,
                        const Src0* src0, const Src1* src1) {
  const int64_t chunk_rows = std::max<int64_t>(1, kChunkElements / plan.cols);
  const Rank2Operand o0{static_cast<uint32_t>(plan.row_stride[0]), plan.col_broadcast[0]};
  const Rank2Operand o1{static_cast<uint32_t>(plan.row_stride[1]), plan.col_broadcast[1]};
  for (int64_t row = 0; row < plan.rows; row += chunk_rows) {
    const int64_t rows = std::min(chunk_rows, plan.rows - row);
    Rank2Kernel<kPack>
        <<<GridBlocks(params, rows * plan.cols / kPack), kBlockSize, 0, params.stream>>>(
            f, static_cast<uint32_t>(rows), static_cast<uint32_t>(plan.cols), dst + row * plan.cols,
            src0 + row * plan.row_stride[0], o0, src1 + row * plan.row_stride[1], o1);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) {
      return status;
    }
  }
  return cudaSuccess;
}

// ---- index --------------------------------------------------------------------------------

template <typename Index>
struct IndexParams {
  int first;  // dims[first..kMaxDims) are the simplified dims, innermost last
  Index dims[kMaxDims];
  Index strides0[kMaxDims];
  Index strides1[kMaxDims];
};

// One element a thread. The rank loop is unrolled over kMaxDims with a runtime stop, so one
// kernel serves every rank and the dims stay in registers (no local-memory copy of the
// parameters, as a dynamically indexed loop would make).
template <typename Index, typename F, typename Dst, typename Src0, typename Src1>
__global__ void __launch_bounds__(kBlockSize)
    BroadcastIndexKernel(F f, Index n, Dst* dst, const Src0* src0, const Src1* src1,
                         IndexParams<Index> p) {
  const Index stride = static_cast<Index>(GridThreads());
  for (Index i = static_cast<Index>(GlobalThread()); i < n; i += stride) {
    Index rem = i;
    Index off0 = 0, off1 = 0;
#pragma unroll
    for (int d = kMaxDims - 1; d >= 0; --d) {
      if (d == p.first) {
        off0 += rem * p.strides0[d];
        off1 += rem * p.strides1[d];
        break;
      }
      const Index q = rem / p.dims[d];
      const Index c = rem - q * p.dims[d];
      off0 += c * p.strides0[d];
      off1 += c * p.strides1[d];
      rem = q;
    }
    dst[i] = FromCompute<Dst>(f(ToCompute(src0[off0]), ToCompute(src1[off1])));
  }
}

template <typename Index, typename F, typename Dst, typename Src0, typename Src1>
cudaError_t LaunchIndex(const LaunchParams& params, const BinaryPlan& plan, F f, Dst* dst,
                        const Src0* src0, const Src1* src1) {
  IndexParams<Index> p{};
  p.first = plan.first;
  for (int d = 0; d < kMaxDims; ++d) {
    p.dims[d] = static_cast<Index>(plan.dims[d]);
    p.strides0[d] = static_cast<Index>(plan.strides[0][d]);
    p.strides1[d] = static_cast<Index>(plan.strides[1][d]);
  }
  BroadcastIndexKernel<Index><<<GridBlocks(params, plan.count), kBlockSize, 0, params.stream>>>(
      f, static_cast<Index>(plan.count), dst, src0, src1, p);
  return cudaGetLastError();
}

}  // namespace elementwise_kernels

// ---- the primitive ------------------------------------------------------------------------

// Everything that does not depend on (op, dtype): checks, dims simplification, the plan, the
// names; defined once in broadcast_elementwise_binary.cu.
class CudaBroadcastElementwiseBinaryBase : public primitive::BroadcastElementwiseBinary {
 public:
  CudaBroadcastElementwiseBinaryBase(primitive::BinaryOp op, DataType src_type, DataType dst_type,
                                     int pack)
      : op_(op), src_type_(src_type), dst_type_(dst_type), pack_(pack) {}

  // "cuda.broadcast_elementwise_binary<add,float32>"; a trace adds the path a launch took
  // ("packed pack=4", "scalar pack=4", "rank2 pack=4", "index32" or "index64").
  std::string name() const override;

  Maybe<void> Launch(Stream* stream, size_t num_src0_dims, const int64_t* src0_dims,
                     const void* src0, size_t num_src1_dims, const int64_t* src1_dims,
                     const void* src1, void* dst) final;
  Maybe<void> LaunchWithScalar(Stream* stream, const Scalar& scalar, bool scalar_first,
                               const void* src, void* dst, size_t count) final;

  // The factory's max rank: launches with operands of higher rank are a ValueError, as on the
  // CPU.
  void set_max_rank(size_t max_rank) { max_rank_ = max_rank; }

 protected:
  virtual cudaError_t LaunchPlan(const elementwise_kernels::LaunchParams& params,
                                 const elementwise_kernels::BinaryPlan& plan, const void* src0,
                                 const void* src1, void* dst) const = 0;
  virtual cudaError_t LaunchScalar(const elementwise_kernels::LaunchParams& params,
                                   const Scalar& scalar, bool scalar_first, const void* src,
                                   void* dst, int64_t count, int* pack) const = 0;

 private:
  primitive::BinaryOp op_;
  DataType src_type_, dst_type_;
  int pack_;
  size_t max_rank_ = 0;
};

template <primitive::BinaryOp kOp, typename T>
class CudaBroadcastElementwiseBinary final : public CudaBroadcastElementwiseBinaryBase {
  using Src = CudaType<T>;
  using Dst = std::conditional_t<primitive::IsComparison(kOp), bool, Src>;
  static constexpr int kPack = elementwise_kernels::kPackOf<Dst, Src>;

 public:
  explicit CudaBroadcastElementwiseBinary(double attr)
      : CudaBroadcastElementwiseBinaryBase(
            kOp, kDataTypeOf<T>, primitive::IsComparison(kOp) ? DataType::kBool : kDataTypeOf<T>,
            kPack),
        functor_{attr} {}

 protected:
  cudaError_t LaunchPlan(const elementwise_kernels::LaunchParams& params,
                         const elementwise_kernels::BinaryPlan& plan, const void* src0,
                         const void* src1, void* dst) const override {
    namespace k = elementwise_kernels;
    auto* d = static_cast<Dst*>(dst);
    const auto* a = static_cast<const Src*>(src0);
    const auto* b = static_cast<const Src*>(src1);
    switch (plan.path) {
      case k::BinaryPath::kPacked:
      case k::BinaryPath::kScalar:
        return k::LaunchBinaryPacked<kPack>(params, plan.count, functor_, d, a, b,
                                            plan.scalar_side);
      case k::BinaryPath::kRank2:
        return k::LaunchRank2<kPack>(params, plan, functor_, d, a, b);
      case k::BinaryPath::kIndex32:
        return k::LaunchIndex<uint32_t>(params, plan, functor_, d, a, b);
      case k::BinaryPath::kIndex64:
        return k::LaunchIndex<uint64_t>(params, plan, functor_, d, a, b);
      default:
        return cudaErrorInvalidValue;
    }
  }

  cudaError_t LaunchScalar(const elementwise_kernels::LaunchParams& params, const Scalar& scalar,
                           bool scalar_first, const void* src, void* dst, int64_t count,
                           int* pack) const override {
    using C = elementwise_kernels::ComputeType<Src>;
    return elementwise_kernels::LaunchElementwiseWithValue(
        params, count, functor_, static_cast<Dst*>(dst), static_cast<const Src*>(src),
        primitive::elementwise::ScalarAs<C>(scalar), scalar_first, pack);
  }

 private:
  primitive::elementwise::BinaryFunctor<kOp, sizeof(T) == 2> functor_;
};

// The primitive for (op, T), T a host element type; nullptr where kBinarySupports says no.
template <typename T>
std::unique_ptr<CudaBroadcastElementwiseBinaryBase> NewCudaBroadcastElementwiseBinary(
    primitive::BinaryOp op, double attr) {
  using C = elementwise_kernels::ComputeType<CudaType<T>>;
  switch (op) {
#define OFLITE_CUDA_BINARY_CASE(enumerator, name)                                                  \
  case primitive::BinaryOp::enumerator:                                                            \
    if constexpr (primitive::elementwise::kBinarySupports<primitive::BinaryOp::enumerator, C>) {   \
      return std::make_unique<CudaBroadcastElementwiseBinary<primitive::BinaryOp::enumerator, T>>( \
          attr);                                                                                   \
    } else {                                                                                       \
      return nullptr;                                                                              \
    }
    OFLITE_BINARY_OP_LIST(OFLITE_CUDA_BINARY_CASE)
#undef OFLITE_CUDA_BINARY_CASE
  }
  return nullptr;
}

// Instantiated by broadcast_elementwise_binary_<dtype>.cu only.
#define OFLITE_CUDA_BINARY_EXTERN(enumerator, cpp_type, name)         \
  extern template std::unique_ptr<CudaBroadcastElementwiseBinaryBase> \
  NewCudaBroadcastElementwiseBinary<cpp_type>(primitive::BinaryOp, double);
OFLITE_DATA_TYPE_LIST(OFLITE_CUDA_BINARY_EXTERN)
#undef OFLITE_CUDA_BINARY_EXTERN

#define OFLITE_INSTANTIATE_CUDA_BINARY(cpp_type)               \
  template std::unique_ptr<CudaBroadcastElementwiseBinaryBase> \
  NewCudaBroadcastElementwiseBinary<cpp_type>(primitive::BinaryOp, double);

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_BROADCAST_ELEMENTWISE_BINARY_CUH_
