#include "ops/softmax_reference.h"

#include <algorithm>
#include <cmath>

namespace oflite {

namespace {
// Visits every row along `dim`: fn(base offset, stride between consecutive elements, length).
template <typename Fn>
void ForEachRow(const Shape& shape, int64_t dim, Fn fn) {
  const int64_t rank = shape.rank();
  if (rank == 0) {
    fn(0, 1, 1);
    return;
  }
  const int64_t outer = shape.Count(0, dim), length = shape[dim],
                inner = shape.Count(dim + 1, rank);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      fn(o * length * inner + i, inner, length);
    }
  }
}
}  // namespace

std::vector<double> ReferenceSoftmax(const std::vector<double>& x, const Shape& shape, int64_t dim,
                                     bool log) {
  std::vector<double> y(x.size());
  ForEachRow(shape, dim, [&](int64_t base, int64_t stride, int64_t length) {
    double max = -INFINITY;
    bool has_nan = false;
    for (int64_t k = 0; k < length; ++k) {
      const double v = x[static_cast<size_t>(base + k * stride)];
      has_nan = has_nan || std::isnan(v);
      max = std::max(max, v);
    }
    double sum = 0;
    for (int64_t k = 0; k < length; ++k) {
      sum += std::exp(x[static_cast<size_t>(base + k * stride)] - max);
    }
    for (int64_t k = 0; k < length; ++k) {
      const size_t at = static_cast<size_t>(base + k * stride);
      const double shifted = x[at] - max;  // NaN for inf - inf: the PyTorch result too
      y[at] = has_nan ? NAN : (log ? shifted - std::log(sum) : std::exp(shifted) / sum);
    }
  });
  return y;
}

std::vector<double> ReferenceSoftmaxGrad(const std::vector<double>& y,
                                         const std::vector<double>& dy, const Shape& shape,
                                         int64_t dim, bool log) {
  std::vector<double> dx(y.size());
  ForEachRow(shape, dim, [&](int64_t base, int64_t stride, int64_t length) {
    double sum = 0;
    for (int64_t k = 0; k < length; ++k) {
      const size_t at = static_cast<size_t>(base + k * stride);
      sum += log ? dy[at] : dy[at] * y[at];
    }
    for (int64_t k = 0; k < length; ++k) {
      const size_t at = static_cast<size_t>(base + k * stride);
      dx[at] = log ? dy[at] - std::exp(y[at]) * sum : y[at] * (dy[at] - sum);
    }
  });
  return dx;
}

std::vector<double> SoftmaxScale(const std::vector<double>& x, const Shape& shape, int64_t dim,
                                 bool log) {
  if (!log) {
    return {};
  }
  std::vector<double> scale(x.size());
  ForEachRow(shape, dim, [&](int64_t base, int64_t stride, int64_t length) {
    double max = -INFINITY, sum = 0;
    for (int64_t k = 0; k < length; ++k) {
      max = std::max(max, x[static_cast<size_t>(base + k * stride)]);
    }
    for (int64_t k = 0; k < length; ++k) {
      sum += std::exp(x[static_cast<size_t>(base + k * stride)] - max);
    }
    for (int64_t k = 0; k < length; ++k) {
      const size_t at = static_cast<size_t>(base + k * stride);
      scale[at] = std::abs(x[at] - max) + std::abs(std::log(sum));
    }
  });
  return scale;
}

std::vector<double> SoftmaxGradScale(const std::vector<double>& y, const std::vector<double>& dy,
                                     const Shape& shape, int64_t dim, bool log) {
  std::vector<double> scale(y.size());
  ForEachRow(shape, dim, [&](int64_t base, int64_t stride, int64_t length) {
    double sum_magnitude = 0;  // |sum| bounded by the sum of magnitudes, as rounding sees it
    for (int64_t k = 0; k < length; ++k) {
      const size_t at = static_cast<size_t>(base + k * stride);
      sum_magnitude += log ? std::abs(dy[at]) : std::abs(dy[at] * y[at]);
    }
    for (int64_t k = 0; k < length; ++k) {
      const size_t at = static_cast<size_t>(base + k * stride);
      scale[at] = log ? std::abs(dy[at]) + std::exp(y[at]) * sum_magnitude
                      : std::abs(y[at]) * (std::abs(dy[at]) + sum_magnitude);
    }
  });
  return scale;
}

double SoftmaxTolerance(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat64:
      return 1e-12;
    case DataType::kFloat16:
      return 1e-3;
    case DataType::kBFloat16:
      return 8e-3;
    default:
      return 1e-5;
  }
}

}  // namespace oflite
