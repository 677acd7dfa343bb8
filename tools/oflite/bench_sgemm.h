// `oflite bench matmul --arg impl=sgemm_v0..v8|sgemm_best`: a rung of the hand-written SGEMM
// ladder (ep/cuda/sgemm, linked into the CLI, not the runtime) timed in place of the runtime's
// float32 product.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_BENCH_SGEMM_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_BENCH_SGEMM_H_

#include <functional>
#include <string>
#include <vector>

#include "oneflow_lite/framework/tensor.h"

namespace oflite {
namespace cli {

using BenchCall = std::function<Maybe<Tensor>(const std::vector<Tensor>&)>;

// A call of rung `impl` on (a, b), both 2-D float32 CUDA tensors, returning a @ b. ValueError
// for a function other than matmul, transposes, another dtype or device, or an unknown rung
// (listing the rungs); NotImplemented in a build without CUDA.
Maybe<BenchCall> SgemmRungCall(const std::string& impl, const std::string& function,
                               bool transposed, DataType dtype, const Device& device);

}  // namespace cli
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_BENCH_SGEMM_H_
