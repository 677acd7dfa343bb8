// Transpose / Permute: wrap negative axes, then the transpose op checks the permutation.
#include <vector>

#include "functional/dim_utils.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/functional/functional.h"
#include "ops/transpose_ops.h"

namespace oflite {
namespace functional {

Maybe<Tensor> Transpose(const Tensor& x, const std::vector<int64_t>& perm) {
  OFLITE_CHECK_OR_RETURN(x.defined(), ValueError) << "transpose: x is undefined";
  OFLITE_CHECK_OR_RETURN(static_cast<int64_t>(perm.size()) == x.rank(), ValueError)
      << "transpose: perm has " << perm.size() << " entries for a tensor of rank " << x.rank()
      << " (expected " << x.rank() << ")";
  std::vector<int64_t> wrapped(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    OFLITE_ASSIGN_OR_RETURN(
        wrapped[i], WrapDim("transpose", "perm[" + std::to_string(i) + "] =", perm[i], x.rank()));
  }
  return DispatchOne(ops::kTransposeOp, {x}, {{ops::kTransposePerm, wrapped}});
}

Maybe<Tensor> Permute(const Tensor& x, const std::vector<int64_t>& dims) {
  return Transpose(x, dims);
}

}  // namespace functional
}  // namespace oflite
