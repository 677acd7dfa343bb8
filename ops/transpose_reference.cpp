#include "ops/transpose_reference.h"

namespace oflite {

std::vector<double> ReferencePermute(const std::vector<double>& x, const Shape& shape,
                                     const std::vector<int64_t>& perm) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> out_dims(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) {
    out_dims[static_cast<size_t>(i)] = shape[perm[static_cast<size_t>(i)]];
  }
  const Strides in_strides = ContiguousStrides(shape);
  std::vector<double> y(x.size());
  for (size_t n = 0; n < y.size(); ++n) {
    // Decompose the output index, then gather from the input by the permuted axes.
    int64_t rest = static_cast<int64_t>(n), src = 0;
    for (int64_t i = rank - 1; i >= 0; --i) {
      const int64_t coord = rest % out_dims[static_cast<size_t>(i)];
      rest /= out_dims[static_cast<size_t>(i)];
      src += coord * in_strides[static_cast<size_t>(perm[static_cast<size_t>(i)])];
    }
    y[n] = x[static_cast<size_t>(src)];
  }
  return y;
}

}  // namespace oflite
