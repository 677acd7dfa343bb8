#include "tests/support/test_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace oflite {
namespace test {

std::vector<double> RandomValues(size_t count, uint64_t seed, double lo, double hi) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> values(count);
  for (double& v : values) {
    v = dist(engine);
  }
  return values;
}

Tensor MakeTensor(const std::vector<double>& values, const Shape& shape, DataType dtype,
                  const Device& device) {
  return VisitDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> typed;
    for (double v : values) {
      typed.push_back(static_cast<T>(v));
    }
    return Unwrap(Tensor::FromVector<T>(typed, shape, device));
  });
}

std::vector<double> ToDoubles(const Tensor& tensor) {
  return VisitDataType(tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> typed = Unwrap(tensor.ToVector<T>());
    std::vector<double> values;
    for (size_t i = 0; i < typed.size(); ++i) {
      values.push_back(static_cast<double>(static_cast<T>(typed[i])));
    }
    return values;
  });
}

std::vector<double> RoundTo(const std::vector<double>& values, DataType dtype) {
  return VisitDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<double> rounded;
    for (double v : values) {
      rounded.push_back(static_cast<double>(static_cast<T>(v)));
    }
    return rounded;
  });
}

double MatmulTolerance(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat64:
      return 1e-12;
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return 5e-3;
    default:
      return 1e-5;
  }
}

Shape StoredShape(const Shape& logical, bool transposed) {
  std::vector<int64_t> dims = logical.dims();
  if (transposed && dims.size() >= 2) {
    std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
  }
  return Shape(dims);
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

double SmallestNormal(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat64:
      return std::numeric_limits<double>::min();
    case DataType::kFloat16:
      return 6.103515625e-05;  // 2^-14
    default:
      return std::numeric_limits<float>::min();  // float32 and bfloat16: 2^-126
  }
}

void ExpectAllClose(const std::vector<double>& actual, const std::vector<double>& expected,
                    double tol, const std::string& context, double floor,
                    const std::vector<double>& scale) {
  ASSERT_EQ(actual.size(), expected.size()) << context;
  int misses = 0;
  for (size_t i = 0; i < actual.size() && misses < 5; ++i) {
    const double a = actual[i], e = expected[i];
    const double bound = tol * std::max({std::abs(e), scale.empty() ? 0.0 : scale[i], floor});
    const bool ok = std::isnan(e) ? std::isnan(a) : (a == e || std::abs(a - e) <= bound);
    if (!ok) {
      ++misses;
      ADD_FAILURE() << context << ": element " << i << " is " << a << ", expected " << e
                    << " (allowed error " << bound << ")";
    }
  }
}

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

}  // namespace test
}  // namespace oflite
