// functional::MatMul with the output's SBP named (oneflow_lite/functional/global.h): a product
// whose columns are split over the ranks and wanted whole on every rank (a column-parallel
// linear layer gathering its output) is made in row chunks that travel while the next is
// computed; everything else is the product followed by ToGlobal.
#include <vector>

#include "oneflow_lite/dist/communicator.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/global_dispatch.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/functional/global.h"
#include "oneflow_lite/primitive/batch_matmul.h"
#include "ops/matmul_ops.h"

namespace oflite {
namespace functional {
namespace {

// Whether the product comes out split over columns (a B, b split over its columns) and is
// wanted broadcast: what every rank decides alike from the global tensors.
bool GathersColumns(const GlobalTensor& a, const GlobalTensor& b, const NdSbp& out_sbp,
                    bool transpose_a, bool transpose_b) {
  return a.placement() == b.placement() && a.communicator() == b.communicator() &&
         a.placement().device_type() == DeviceType::kCUDA && a.placement().size() > 1 &&
         a.placement().num_dims() == 1 && a.shape().rank() == 2 && b.shape().rank() == 2 &&
         !transpose_a && a.sbp()[0].is_broadcast() && b.sbp()[0] == SplitSbp(transpose_b ? 0 : 1) &&
         out_sbp.size() == 1 && out_sbp[0].is_broadcast();
}

// The product's shape, with the errors matmul gives for these operands and attrs.
Maybe<Shape> ProductShape(const GlobalTensor& a, const GlobalTensor& b, const AttrMap& attrs) {
  const OpSchema* schema = nullptr;
  OFLITE_ASSIGN_OR_RETURN(schema, OpRegistry::Global().Find(ops::kMatmulOp));
  AttrMap complete;
  OFLITE_ASSIGN_OR_RETURN(complete, schema->CompleteAttrs(attrs));
  std::vector<TensorDesc> outputs;
  OFLITE_ASSIGN_OR_RETURN(
      outputs, schema->InferOutputs({{a.shape(), a.dtype()}, {b.shape(), b.dtype()}}, complete));
  return outputs[0].shape;
}

// The gathered product, or an undefined tensor where the communicator gathers no columns.
Maybe<GlobalTensor> ProductGatheredByChunks(const GlobalTensor& a, const GlobalTensor& b,
                                            const Shape& shape, bool transpose_b, double alpha) {
  auto gemm = primitive::NewPrimitive<primitive::BatchMatmulFactory>(DeviceType::kCUDA, a.dtype(),
                                                                     false, transpose_b);
  if (gemm == nullptr) {
    return GlobalTensor();
  }
  dist::Communicator* communicator = nullptr;
  OFLITE_ASSIGN_OR_RETURN(communicator, a.LiveCommunicator(ops::kMatmulOp));
  ep::Device* device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(device, ep::GetDevice(a.local().device()));
  ep::Stream* stream = device->stream();
  const int64_t world = a.placement().size();
  std::vector<int64_t> cols;
  for (int64_t r = 0; r < world; ++r) {
    cols.push_back(BalancedSplit(shape[1], world, r).size);
  }
  const size_t n = static_cast<size_t>(cols[static_cast<size_t>(communicator->rank())]);
  const size_t k = static_cast<size_t>(a.shape()[1]);
  const size_t row_bytes = k * DataTypeSize(a.dtype());
  const char* a_data = static_cast<const char*>(a.local().data());
  const void* b_data = b.local().data();
  Tensor out;
  OFLITE_ASSIGN_OR_RETURN(out, Tensor::Empty(shape, a.dtype(), device));
  const auto produce = [&](int64_t row, int64_t count, void* dst) {
    return gemm->Launch(stream, 1, static_cast<size_t>(count), n, k, alpha,
                        a_data + static_cast<size_t>(row) * row_bytes, 0, b_data, 0, 0.0, dst, 0);
  };
  bool gathered = false;
  OFLITE_ASSIGN_OR_RETURN(
      gathered,
      communicator->AllGatherColumns(produce, shape[0], cols, a.dtype(), out.mut_data(), stream));
  if (!gathered) {
    return GlobalTensor();
  }
  if (GlobalTrace* trace = GlobalTrace::Current()) {
    const std::string b_split = transpose_b ? "S(0)" : "S(1)";
    const int64_t bytes = shape.elem_cnt() * static_cast<int64_t>(DataTypeSize(a.dtype()));
    trace->Add({ops::kMatmulOp,
                "a:B b:" + b_split + " out:S(1)",
                0,
                BoxingBytes(SplitSbp(1), BroadcastSbp(), bytes, world),
                {{"out", SplitSbp(1), BroadcastSbp(), "all-gather of row chunks as made",
                  BoxingBytes(SplitSbp(1), BroadcastSbp(), bytes, world)}}});
  }
  return GlobalTensor::FromAgreedShard(std::move(out), shape, a.placement(), {BroadcastSbp()},
                                       communicator);
}

}  // namespace

Maybe<GlobalTensor> MatMul(const GlobalTensor& a, const GlobalTensor& b, const NdSbp& out_sbp,
                           bool transpose_a, bool transpose_b, double alpha) {
  OFLITE_CHECK_OR_RETURN(a.defined() && b.defined(), ValueError)
      << "matmul: " << (a.defined() ? "b" : "a") << " is undefined";
  if (GathersColumns(a, b, out_sbp, transpose_a, transpose_b) && a.dtype() == b.dtype()) {
    Shape shape;
    OFLITE_ASSIGN_OR_RETURN(shape, ProductShape(a, b,
                                                {{ops::kMatmulTransposeA, transpose_a},
                                                 {ops::kMatmulTransposeB, transpose_b},
                                                 {ops::kMatmulAlpha, alpha}}));
    GlobalTensor gathered;
    OFLITE_ASSIGN_OR_RETURN(gathered, ProductGatheredByChunks(a, b, shape, transpose_b, alpha));
    if (gathered.defined()) {
      return gathered;
    }
  }
  GlobalTensor product;
  OFLITE_ASSIGN_OR_RETURN(product, MatMul(a, b, transpose_a, transpose_b, alpha));
  return product.ToGlobal(product.placement(), out_sbp);
}

}  // namespace functional
}  // namespace oflite
