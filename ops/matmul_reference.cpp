#include "ops/matmul_reference.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace oflite {

namespace {

std::vector<int64_t> BatchDims(const Shape& shape) {
  return {shape.dims().begin(), shape.dims().end() - 2};
}

// NumPy's broadcast of two batch shapes, aligned from the right (the caller checked they do).
std::vector<int64_t> BroadcastBatch(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t from_right = out.size() - 1 - i;
    const int64_t da = from_right < a.size() ? a[a.size() - 1 - from_right] : 1;
    const int64_t db = from_right < b.size() ? b[b.size() - 1 - from_right] : 1;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Which of an operand's matrices (its batch dims `dims`) output matrix `flat` of the batch
// `out` reads: coordinates of a size-1 or missing dim repeat.
int64_t OperandMatrix(int64_t flat, const std::vector<int64_t>& out,
                      const std::vector<int64_t>& dims) {
  int64_t index = 0, stride = 1;
  for (size_t i = out.size(); i-- > 0;) {
    const int64_t coord = flat % out[i];
    flat /= out[i];
    const size_t from_right = out.size() - 1 - i;
    if (from_right < dims.size()) {
      const int64_t d = dims[dims.size() - 1 - from_right];
      index += (d == 1 ? 0 : coord) * stride;
      stride *= d;
    }
  }
  return index;
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    count *= d;
  }
  return count;
}

// One matrix of op(a) @ op(b): a stored (m, k), or (k, m) when transposed; b stored (k, n), or
// (n, k). alpha = 0 gives zeros without reading a and b, as the ops document (BLAS's rule).
void MatrixProduct(const double* a, const double* b, int64_t m, int64_t n, int64_t k,
                   bool transpose_a, bool transpose_b, double alpha, double* out) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; alpha != 0 && p < k; ++p) {
        const double x = transpose_a ? a[p * m + i] : a[i * k + p];
        const double y = transpose_b ? b[j * k + p] : b[p * n + j];
        sum += x * y;
      }
      out[i * n + j] = alpha * sum;
    }
  }
}

}  // namespace

HostTensor ReferenceBatchMatmul(const HostTensor& a, const HostTensor& b, bool transpose_a,
                                bool transpose_b, double alpha) {
  const Shape& sa = a.shape;
  const Shape& sb = b.shape;
  const int64_t m = transpose_a ? sa[sa.rank() - 1] : sa[sa.rank() - 2];
  const int64_t k = transpose_a ? sa[sa.rank() - 2] : sa[sa.rank() - 1];
  const int64_t n = transpose_b ? sb[sb.rank() - 2] : sb[sb.rank() - 1];
  const std::vector<int64_t> batch_a = BatchDims(sa), batch_b = BatchDims(sb);
  const std::vector<int64_t> batch = BroadcastBatch(batch_a, batch_b);
  std::vector<int64_t> out_dims = batch;
  out_dims.push_back(m);
  out_dims.push_back(n);
  HostTensor out{Shape(std::move(out_dims)), a.dtype, {}};
  out.values.resize(static_cast<size_t>(out.shape.elem_cnt()));
  for (int64_t flat = 0; flat < Product(batch); ++flat) {
    MatrixProduct(a.values.data() + OperandMatrix(flat, batch, batch_a) * m * k,
                  b.values.data() + OperandMatrix(flat, batch, batch_b) * k * n, m, n, k,
                  transpose_a, transpose_b, alpha, out.values.data() + flat * m * n);
  }
  return out;
}

double ReferenceBiasActivation(double v, const std::string& activation, double leaky_alpha) {
  if (activation == "relu") {
    return v > 0 ? v : 0;
  }
  if (activation == "gelu") {
    return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  }
  if (activation == "gelu_tanh") {
    const double inner = std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v);
    return 0.5 * v * (1 + std::tanh(inner));
  }
  if (activation == "leaky_relu") {
    return v > 0 ? v : leaky_alpha * v;
  }
  return v;
}

HostTensor ReferenceFusedMatmulBiasAct(const HostTensor& a, const HostTensor& b,
                                       const HostTensor& bias, bool transpose_a, bool transpose_b,
                                       const std::string& activation, double leaky_alpha) {
  HostTensor out = ReferenceBatchMatmul(a, b, transpose_a, transpose_b, 1.0);
  const size_t n = bias.values.size();
  for (size_t i = 0; i < out.values.size(); ++i) {
    out.values[i] =
        ReferenceBiasActivation(out.values[i] + bias.values[i % n], activation, leaky_alpha);
  }
  return out;
}

Shape StoredShape(const Shape& logical, bool transposed) {
  std::vector<int64_t> dims = logical.dims();
  if (transposed && dims.size() >= 2) {
    std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
  }
  return Shape(dims);
}

}  // namespace oflite
