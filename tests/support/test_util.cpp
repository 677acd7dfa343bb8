#include "tests/support/test_util.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include "oneflow_lite/framework/op_test_spec.h"
#include "oneflow_lite/functional/functional.h"
#include "oneflow_lite/functional/operators.h"

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

std::vector<int64_t> Int64RoundingCases(uint64_t seed) {
  std::vector<int64_t> cases = {0,
                                1,
                                -1,
                                std::numeric_limits<int64_t>::max(),
                                std::numeric_limits<int64_t>::lowest(),
                                65519,
                                65520,
                                -65520};
  std::mt19937_64 engine(seed);
  for (int width = 2; width <= 63; ++width) {
    for (int bits : {8, 11, 24}) {
      const int drop = width - bits;
      if (drop < 1) {
        continue;
      }
      // A kept part with its top bit at `width`, then exactly half a step below it.
      const uint64_t kept =
          (uint64_t{1} << (bits - 1)) | (engine() & ((uint64_t{1} << (bits - 1)) - 1));
      const int64_t tie = static_cast<int64_t>((kept << drop) | (uint64_t{1} << (drop - 1)));
      for (int64_t v : {tie, tie + 1, tie - 1}) {
        cases.push_back(v);
        cases.push_back(-v);
      }
    }
    const int64_t random = static_cast<int64_t>(engine() >> (64 - width));
    cases.push_back(random);
    cases.push_back(-random);
  }
  return cases;
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
  std::vector<double> rounded;
  for (double v : values) {
    rounded.push_back(RoundToDtype(v, dtype));
  }
  return rounded;
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

bool AllNear(const std::vector<float>& got, const std::vector<float>& expected, float tol) {
  if (got.size() != expected.size()) {
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - expected[i]) <= tol * std::max(1.0f, std::fabs(expected[i])))) {
      return false;
    }
  }
  return true;
}

Maybe<std::vector<float>> CallChain(const Tensor& a, const Tensor& b, double shift) {
  Tensor t;
  OFLITE_ASSIGN_OR_RETURN(t, functional::MatMul(a, b));
  OFLITE_ASSIGN_OR_RETURN(t, t + shift);
  OFLITE_ASSIGN_OR_RETURN(t, functional::Softmax(t, 0));
  OFLITE_ASSIGN_OR_RETURN(t, functional::LogSoftmax(t, -1));
  return t.ToVector<float>();
}

ThreadRunCounts RunChainsOnThreads(
    int threads, int iterations, const Tensor& a, const Tensor& b,
    const std::function<double(int)>& shift,
    const std::function<Maybe<std::shared_ptr<void>>(int)>& context) {
  std::vector<std::vector<float>> expected;
  for (int i = 0; i < threads; ++i) {
    expected.push_back(Unwrap(CallChain(a, b, shift(i))));
  }
  std::atomic<int> errors{0};
  std::atomic<int> mismatches{0};
  std::vector<std::thread> running;
  for (int i = 0; i < threads; ++i) {
    running.emplace_back([&, i] {
      Maybe<std::shared_ptr<void>> held = context ? context(i) : std::shared_ptr<void>();
      if (!held.ok()) {
        ++errors;
        return;
      }
      for (int it = 0; it < iterations; ++it) {
        Maybe<std::vector<float>> got = CallChain(a, b, shift(i));
        if (!got.ok()) {
          ++errors;
        } else if (!AllNear(got.value(), expected[static_cast<size_t>(i)], 1e-5f)) {
          ++mismatches;
        }
      }
    });
  }
  for (std::thread& thread : running) {
    thread.join();
  }
  return {errors.load(), mismatches.load()};
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

}  // namespace test
}  // namespace oflite
