// Helpers shared by the test suites: seeded random inputs, dtype conversion through double,
// per-dtype tolerances and comparisons. The plain double-precision references live with the
// ops' schemas (ops/*_reference.h), where the op tests use them too.
#ifndef ONEFLOW_LITE_TESTS_SUPPORT_TEST_UTIL_H_
#define ONEFLOW_LITE_TESTS_SUPPORT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "oneflow_lite/oneflow_lite.h"

namespace oflite {
namespace test {

// Unwraps a Maybe in a test, failing with the error's full text.
template <typename T>
T Unwrap(Maybe<T> maybe) {
  if (!maybe.ok()) {
    ADD_FAILURE() << maybe.error().ToString();
  }
  EXPECT_TRUE(maybe.ok());
  return std::move(maybe).value();
}

// Expects an error of `kind` whose message contains every fragment.
template <typename T>
void ExpectError(const Maybe<T>& maybe, ErrorKind kind, const std::vector<std::string>& fragments) {
  ASSERT_FALSE(maybe.ok()) << "expected " << ErrorKindName(kind) << ", got a value";
  EXPECT_EQ(maybe.error().kind(), kind) << maybe.error().ToString();
  for (const std::string& fragment : fragments) {
    EXPECT_NE(maybe.error().message().find(fragment), std::string::npos)
        << "message lacks '" << fragment << "': " << maybe.error().message();
  }
}

// Uniform values in [lo, hi) from a fixed seed (print the seed in failures).
std::vector<double> RandomValues(size_t count, uint64_t seed, double lo = -4.0, double hi = 4.0);
// int64 values for casts to floating dtypes: for every width from 2 to 63 bits, ties of 8, 11 and
// 24 significant bits (bfloat16's, float16's and float32's) and their neighbours, both signs, the
// limits, and random values of every width from a fixed seed.
std::vector<int64_t> Int64RoundingCases(uint64_t seed);
// A tensor of `dtype` holding `values` (rounded to the dtype).
Tensor MakeTensor(const std::vector<double>& values, const Shape& shape, DataType dtype,
                  const Device& device = Device::Cpu());
// The tensor's elements widened to double.
std::vector<double> ToDoubles(const Tensor& tensor);
// Values as the dtype stores them (what a kernel actually reads), widened back to double.
std::vector<double> RoundTo(const std::vector<double>& values, DataType dtype);

// Tolerance of matrix products, relative by norm (a GEMM's per-element error scales with its
// row's magnitude, so the norm is the fair measure): 1e-5 float32, 1e-12 float64, 5e-3 16-bit.
double MatmulTolerance(DataType dtype);
// The smallest normal value of a floating dtype: below it a dtype has no relative precision.
double SmallestNormal(DataType dtype);
// Whether every |got - expected| <= tol * max(1, |expected|), for checks made off the test's
// thread (gtest's assertions belong on it): e.g. results of concurrent calls.
bool AllNear(const std::vector<float>& got, const std::vector<float>& expected, float tol);

// The thread-safety tests' chain of calls: log_softmax(softmax(a @ b + shift, 0), -1).
Maybe<std::vector<float>> CallChain(const Tensor& a, const Tensor& b, double shift);
// Runs CallChain(a, b, shift(i)) `iterations` times on each thread i of `threads`, after
// `context(i)` made on that thread what it needs while it runs (e.g. a stream scope; may be
// empty), and counts the calls that failed and the results not AllNear (1e-5) the one-thread
// result.
struct ThreadRunCounts {
  int errors = 0;
  int mismatches = 0;
};
ThreadRunCounts RunChainsOnThreads(
    int threads, int iterations, const Tensor& a, const Tensor& b,
    const std::function<double(int)>& shift,
    const std::function<Maybe<std::shared_ptr<void>>(int)>& context = {});
// Relative comparison: |a - e| <= tol * max(|e|, scale[i], floor) for each element (scale may
// be empty); NaN must match NaN, infinities must match exactly. Reports the first misses.
void ExpectAllClose(const std::vector<double>& actual, const std::vector<double>& expected,
                    double tol, const std::string& context, double floor = 0,
                    const std::vector<double>& scale = {});

}  // namespace test
}  // namespace oflite

#endif  // ONEFLOW_LITE_TESTS_SUPPORT_TEST_UTIL_H_
