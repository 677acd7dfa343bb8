// CPU elementwise primitives (broadcast binary, unary, cast) against the double-precision
// references of ops/elementwise_reference.h: every op on every dtype it supports,
// broadcast shapes that reach each loop (same shape, one single element, general), empty and
// large tensors, special values, and the casts' rounding, saturation and wrapping rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <mutex>
#include <set>
#include <thread>
#include <type_traits>
#include <utility>

#include "ep/cpu/parallel_for.h"
#include "ep/cpu/primitive/streaming_store.h"
#include "oneflow_lite/ep/num_threads.h"
#include "oneflow_lite/functional/functional.h"
#include "oneflow_lite/primitive/broadcast_elementwise_binary.h"
#include "oneflow_lite/primitive/cast.h"
#include "oneflow_lite/primitive/elementwise_unary.h"
#include "ops/elementwise_reference.h"
#include "ops/softmax_reference.h"
#include "primitive/broadcast_dims.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

using primitive::BinaryOp;
using primitive::IsComparison;
using primitive::UnaryOp;
using Dims = std::vector<int64_t>;

#define OFLITE_TEST_OP_ENTRY(enumerator, name) Op::enumerator,
const std::vector<BinaryOp>& AllBinaryOps() {
  using Op = BinaryOp;
  static const std::vector<BinaryOp> ops = {OFLITE_BINARY_OP_LIST(OFLITE_TEST_OP_ENTRY)};
  return ops;
}
const std::vector<UnaryOp>& AllUnaryOps() {
  using Op = UnaryOp;
  static const std::vector<UnaryOp> ops = {OFLITE_UNARY_OP_LIST(OFLITE_TEST_OP_ENTRY)};
  return ops;
}
#undef OFLITE_TEST_OP_ENTRY

constexpr double kAlpha = 0.1;  // leaky_relu(_grad)'s attr; the other ops ignore it
constexpr size_t kMaxRank = 8;

ep::Stream* CpuStream() { return Unwrap(ep::GetDevice(Device::Cpu()))->default_stream(); }

bool IsInteger(DataType dtype) { return !IsFloatingDataType(dtype) && dtype != DataType::kBool; }

// Which dtypes each op has, stated as PyTorch states it: everything on the floating dtypes;
// add (or), mul (and), maximum, minimum and comparisons on integers and bool; sub and pow on
// integers; true division and the gradients on floating dtypes only.
bool BinarySupported(BinaryOp op, DataType dtype) {
  if (IsFloatingDataType(dtype)) {
    return true;
  }
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kMul:
    case BinaryOp::kMaximum:
    case BinaryOp::kMinimum:
      return true;
    case BinaryOp::kSub:
    case BinaryOp::kPow:
      return dtype != DataType::kBool;
    default:
      return IsComparison(op);
  }
}
bool UnarySupported(UnaryOp op, DataType dtype) {
  if (IsFloatingDataType(dtype)) {
    return true;
  }
  const bool integer_op = op == UnaryOp::kNeg || op == UnaryOp::kAbs || op == UnaryOp::kRelu;
  return integer_op && dtype != DataType::kBool;
}
DataType BinaryOutDtype(BinaryOp op, DataType dtype) {
  return IsComparison(op) ? DataType::kBool : dtype;
}

// Tolerance per dtype (docs/TESTING.md); integers and bool are exact.
double Tolerance(DataType dtype) { return IsFloatingDataType(dtype) ? SoftmaxTolerance(dtype) : 0; }
// Below the smallest normal a dtype has no relative precision: compare absolutely there.
double Floor(DataType dtype) {
  return IsFloatingDataType(dtype) ? SmallestNormal(dtype) / Tolerance(dtype) : 0;
}

// An output poisoned with 0xA5 bytes: a value no correct result here has (for bool, a byte
// that is neither 0 nor 1), so an element the primitive does not write fails the comparison.
Tensor Poisoned(const Dims& dims, DataType dtype) {
  Tensor t = Unwrap(Tensor::Empty(Shape(dims), dtype));
  if (t.nbytes() > 0) {
    std::memset(t.mut_data(), 0xA5, t.nbytes());
  }
  return t;
}

// The elements widened to double; bool as its raw bytes, so a poisoned byte reads as 165.
std::vector<double> Read(const Tensor& t) {
  if (t.dtype() != DataType::kBool) {
    return ToDoubles(t);
  }
  const auto* bytes = static_cast<const uint8_t*>(t.data());
  return std::vector<double>(bytes, bytes + t.elem_cnt());
}

// ---- an independent broadcast, index by index ----------------------------------------------

Dims BroadcastDimsOf(const Dims& a, const Dims& b) {
  Dims out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {  // from the right
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

// The element of an operand of dims `src` that dst's flat element n reads.
int64_t SourceIndex(int64_t n, const Dims& dst, const Dims& src) {
  int64_t index = 0, stride = 1;
  for (size_t i = 0; i < dst.size(); ++i) {  // from the right
    const int64_t coord = n % dst[dst.size() - 1 - i];
    n /= dst[dst.size() - 1 - i];
    if (i < src.size()) {
      const int64_t d = src[src.size() - 1 - i];
      index += (d == 1 ? 0 : coord) * stride;
      stride *= d;
    }
  }
  return index;
}

int64_t Count(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    n *= d;
  }
  return n;
}

struct BinaryResult {
  std::vector<double> actual, expected, scale;
};

// Runs op on (a, b) as `dtype` and computes the expected result; inputs are rounded to dtype
// first. Fails (and returns empty vectors) if the primitive is missing or its launch fails.
BinaryResult RunBinary(BinaryOp op, DataType dtype, std::vector<double> a, const Dims& a_dims,
                       std::vector<double> b, const Dims& b_dims) {
  a = RoundTo(a, dtype);
  b = RoundTo(b, dtype);
  const DataType out_dtype = BinaryOutDtype(op, dtype);
  auto binary = primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
      DeviceType::kCPU, op, dtype, out_dtype, kMaxRank, kAlpha);
  if (binary == nullptr) {
    ADD_FAILURE() << "no primitive for " << primitive::BinaryOpName(op) << " on " << dtype;
    return {};
  }
  const Tensor a_t = MakeTensor(a, Shape(a_dims), dtype), b_t = MakeTensor(b, Shape(b_dims), dtype);
  const Dims dst_dims = BroadcastDimsOf(a_dims, b_dims);
  const Tensor out = Poisoned(dst_dims, out_dtype);
  const Maybe<void> launched =
      binary->Launch(CpuStream(), a_dims.size(), a_dims.data(), a_t.data(), b_dims.size(),
                     b_dims.data(), b_t.data(), out.mut_data());
  if (!launched.ok()) {
    ADD_FAILURE() << launched.error().ToString();
    return {};
  }
  BinaryResult result;
  result.actual = Read(out);
  for (int64_t n = 0; n < Count(dst_dims); ++n) {
    const double x = a[SourceIndex(n, dst_dims, a_dims)], y = b[SourceIndex(n, dst_dims, b_dims)];
    result.expected.push_back(ReferenceStore(ReferenceBinary(op, x, y, kAlpha), out_dtype));
    // The gradients cancel terms of size about |dy| (1 + x^2): that bounds their rounding error.
    result.scale.push_back(std::abs(x) * (1 + y * y));
  }
  return result;
}

bool GradientCancels(BinaryOp op) {
  return op == BinaryOp::kTanhGrad || op == BinaryOp::kSigmoidGrad || op == BinaryOp::kGeluGrad ||
         op == BinaryOp::kGeluTanhGrad || op == BinaryOp::kSiluGrad;
}

void ExpectBinaryMatches(const BinaryResult& r, BinaryOp op, DataType dtype,
                         const std::string& context) {
  const DataType out_dtype = BinaryOutDtype(op, dtype);
  ExpectAllClose(r.actual, r.expected, Tolerance(out_dtype), context, Floor(out_dtype),
                 GradientCancels(op) ? r.scale : std::vector<double>{});
}

// Random inputs an op is well-defined and exact on for a dtype: small integers for integer
// dtypes (so that products stay exact in double; int8/uint8 sums and products still wrap),
// 0/1 for bool, integer values for comparisons, maximum and minimum (so ties occur), positive
// bases for floating pow.
std::pair<std::vector<double>, std::vector<double>> BinaryInputs(BinaryOp op, DataType dtype,
                                                                 size_t a_count, size_t b_count,
                                                                 uint64_t seed) {
  double lo = -4, hi = 4, b_lo = -4, b_hi = 4;
  bool integral = !IsFloatingDataType(dtype);
  if (dtype == DataType::kBool) {
    lo = b_lo = 0;
    hi = b_hi = 2;
  } else if (IsComparison(op) || op == BinaryOp::kMaximum || op == BinaryOp::kMinimum) {
    integral = true;
    lo = b_lo = dtype == DataType::kUInt8 ? 0 : -3;
    hi = b_hi = lo + 7;
  } else if (op == BinaryOp::kPow) {
    lo = integral ? (dtype == DataType::kUInt8 ? 0 : -5) : 0.1;
    hi = integral ? 6 : 4;
    b_lo = integral ? 0 : -3;
    b_hi = integral ? 4 : 3;
  } else if (integral) {
    lo = b_lo = dtype == DataType::kUInt8 ? 0 : -100;
    hi = b_hi = lo + 200;
  }
  std::vector<double> a = RandomValues(a_count, seed, lo, hi);
  std::vector<double> b = RandomValues(b_count, seed + 1, b_lo, b_hi);
  if (integral) {
    for (double& v : a) v = std::floor(v);
    for (double& v : b) v = std::floor(v);
  }
  return {a, b};
}

struct ShapePair {
  Dims a, b;
};
// Same shape (plain loop), one side a single element (hoisted loop), and general broadcasts.
const ShapePair kBroadcastShapes[] = {
    {{3, 4}, {3, 4}}, {{257}, {257}},         {{}, {}},
    {{3, 1}, {1, 4}}, {{2, 1, 5}, {3, 1}},    {{}, {2, 3}},
    {{2, 3}, {}},     {{1}, {4, 5}},          {{4, 5}, {1}},
    {{2, 3, 4}, {4}}, {{2, 3, 4}, {2, 1, 4}}, {{5, 1, 3}, {1, 4, 1}},
    {{1, 1}, {1}},    {{2, 1, 3, 1}, {7}},
};

std::string ShapeText(const Dims& dims) { return Shape(dims).ToString(); }

// ---- ParallelFor ----------------------------------------------------------------------------

TEST(ParallelFor, CoversEveryIndexOnceInChunksOfAtLeastTheGrain) {
  const int64_t max_chunks = GetNumThreads() * ep::kRangesPerThread;
  for (int64_t n : {int64_t{1}, int64_t{5}, int64_t{32767}, int64_t{32768}, int64_t{100000},
                    int64_t{(1 << 20) + 7}}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    std::mutex mutex;
    std::vector<std::pair<int64_t, int64_t>> chunks;
    ep::ParallelFor(n, ep::kElementwiseGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        ++hits[static_cast<size_t>(i)];
      }
      std::lock_guard<std::mutex> lock(mutex);
      chunks.emplace_back(begin, end);
    });
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(hits[static_cast<size_t>(i)], 1) << "index " << i << " of " << n;
    }
    EXPECT_LE(static_cast<int64_t>(chunks.size()), max_chunks) << n;
    if (chunks.size() > 1) {
      for (const auto& [begin, end] : chunks) {
        EXPECT_GE(end - begin, ep::kElementwiseGrain) << n;
      }
    } else {
      EXPECT_EQ(chunks[0], std::make_pair(int64_t{0}, n));
    }
  }
}

TEST(ParallelFor, SmallRangesRunInlineAndEmptyRangesNotAtAll) {
  const std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  ep::ParallelFor(1000, ep::kElementwiseGrain, [&](int64_t begin, int64_t end) {
    ++calls;
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 1000);
  });
  EXPECT_EQ(calls, 1);
  ep::ParallelFor(0, 1, [&](int64_t, int64_t) { ++calls; });
  ep::ParallelFor(-3, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(ParallelFor, UsesOtherThreadsForLargeRanges) {
  if (!ep::ThreadPoolAvailable() || GetNumThreads() < 2) {
    GTEST_SKIP() << "no CPU pool, or one of one thread";
  }
  std::mutex mutex;
  std::set<std::thread::id> ids;
  ep::ParallelFor(4 * ep::kElementwiseGrain, ep::kElementwiseGrain, [&](int64_t, int64_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    }
    // Long enough that another thread takes the next range while this one is busy.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  EXPECT_GE(ids.size(), 2u);
}

// A thread that falls behind does not hold back the others' share: while the thread that took
// the first range sleeps, the other threads take every other range.
TEST(ParallelFor, ASlowRangeDoesNotHoldBackTheRest) {
  if (!ep::ThreadPoolAvailable() || GetNumThreads() < 2) {
    GTEST_SKIP() << "no CPU pool, or one of one thread";
  }
  const int64_t ranges = GetNumThreads() * ep::kRangesPerThread;
  std::mutex mutex;
  std::vector<std::thread::id> runner;  // the thread of each call, in call order
  std::thread::id slow;
  ep::ParallelFor(ranges * ep::kElementwiseGrain, ep::kElementwiseGrain,
                  [&](int64_t begin, int64_t) {
                    {
                      std::lock_guard<std::mutex> lock(mutex);
                      runner.push_back(std::this_thread::get_id());
                      if (begin == 0) {
                        slow = runner.back();
                      }
                    }
                    if (begin == 0) {
                      std::this_thread::sleep_for(std::chrono::milliseconds(200));
                    }
                  });
  ASSERT_EQ(static_cast<int64_t>(runner.size()), ranges);
  EXPECT_EQ(std::count(runner.begin(), runner.end(), slow), 1);
}

// ---- SimplifyBroadcastDims ------------------------------------------------------------------

primitive::BroadcastDims Simplify(const Dims& a, const Dims& b) {
  return Unwrap(primitive::SimplifyBroadcastDims(a.size(), a.data(), b.size(), b.data()));
}

TEST(SimplifyBroadcastDims, MergesWhatBroadcastsAlikeAndKeepsTheRest) {
  auto d = Simplify({8192, 8192}, {8192, 1});
  EXPECT_EQ(d.dst, (Dims{8192, 8192}));
  EXPECT_EQ(d.src0, (Dims{8192, 8192}));
  EXPECT_EQ(d.src1, (Dims{8192, 1}));
  EXPECT_FALSE(d.same_shape());

  d = Simplify({2, 3, 4}, {2, 3, 4});
  EXPECT_EQ(d.dst, (Dims{24}));
  EXPECT_TRUE(d.same_shape());

  d = Simplify({2, 3, 4}, {});
  EXPECT_EQ(d.dst, (Dims{24}));
  EXPECT_EQ(d.src1, (Dims{1}));
  EXPECT_TRUE(d.src1_single());
  EXPECT_FALSE(d.src0_single());

  d = Simplify({3, 1}, {1, 4});
  EXPECT_EQ(d.dst, (Dims{3, 4}));
  EXPECT_EQ(d.src0, (Dims{3, 1}));
  EXPECT_EQ(d.src1, (Dims{1, 4}));

  d = Simplify({}, {});
  EXPECT_EQ(d.dst, (Dims{1}));
  EXPECT_TRUE(d.same_shape());

  d = Simplify({0, 3}, {1, 3});
  EXPECT_EQ(d.dst_count(), 0);

  // Equal shapes take one dim of their count, zero and all-ones shapes too.
  for (const auto& [shape, count] :
       {std::pair<Dims, int64_t>{{2, 0, 3}, 0}, {{1, 1}, 1}, {{5, 1, 7}, 35}}) {
    d = Simplify(shape, shape);
    EXPECT_EQ(d.dst, (Dims{count}));
    EXPECT_TRUE(d.same_shape());
  }
}

TEST(SimplifyBroadcastDims, ShapesThatDoNotBroadcastNameBoth) {
  const Dims a = {2, 3}, b = {4};
  ExpectError(primitive::SimplifyBroadcastDims(a.size(), a.data(), b.size(), b.data()),
              ErrorKind::kValueError, {"(2, 3)", "(4,)"});
}

// ---- BroadcastElementwiseBinary -------------------------------------------------------------

class BinaryPrimitiveTest : public ::testing::TestWithParam<DataType> {};

TEST_P(BinaryPrimitiveTest, EverySupportedOpMatchesTheReferenceOnEveryShape) {
  const DataType dtype = GetParam();
  int checked = 0;
  for (BinaryOp op : AllBinaryOps()) {
    if (!BinarySupported(op, dtype)) {
      continue;
    }
    for (size_t s = 0; s < std::size(kBroadcastShapes); ++s) {
      const ShapePair& shapes = kBroadcastShapes[s];
      const uint64_t seed = static_cast<uint64_t>(op) * 1000 + s * 10 + static_cast<int>(dtype);
      const auto [a, b] = BinaryInputs(op, dtype, static_cast<size_t>(Count(shapes.a)),
                                       static_cast<size_t>(Count(shapes.b)), seed);
      const BinaryResult r = RunBinary(op, dtype, a, shapes.a, b, shapes.b);
      ASSERT_EQ(r.actual.size(), static_cast<size_t>(Count(BroadcastDimsOf(shapes.a, shapes.b))));
      ExpectBinaryMatches(r, op, dtype,
                          std::string(primitive::BinaryOpName(op)) + " " + DataTypeName(dtype) +
                              " " + ShapeText(shapes.a) + " x " + ShapeText(shapes.b) + " seed " +
                              std::to_string(seed));
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST_P(BinaryPrimitiveTest, FactoryRefusesExactlyTheUnsupportedCombinations) {
  const DataType dtype = GetParam();
  for (BinaryOp op : AllBinaryOps()) {
    auto binary = primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
        DeviceType::kCPU, op, dtype, BinaryOutDtype(op, dtype), kMaxRank, kAlpha);
    EXPECT_EQ(binary != nullptr, BinarySupported(op, dtype))
        << primitive::BinaryOpName(op) << " on " << dtype;
    if (binary != nullptr) {
      EXPECT_EQ(binary->name(), std::string("cpu.broadcast_elementwise_binary<") +
                                    primitive::BinaryOpName(op) + "," + DataTypeName(dtype) + ">");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, BinaryPrimitiveTest, ::testing::ValuesIn(AllDataTypes()),
                         [](const auto& info) { return std::string(DataTypeName(info.param)); });

std::unique_ptr<primitive::BroadcastElementwiseBinary> NewBinary(BinaryOp op, DataType src,
                                                                 DataType dst,
                                                                 size_t max_rank = kMaxRank) {
  return primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
      DeviceType::kCPU, op, src, dst, max_rank, kAlpha);
}

TEST(BinaryPrimitive, FactoryRefusesNamedUnsupportedCombinations) {
  EXPECT_EQ(NewBinary(BinaryOp::kSub, DataType::kBool, DataType::kBool), nullptr);
  EXPECT_EQ(NewBinary(BinaryOp::kDiv, DataType::kInt32, DataType::kInt32), nullptr);
  EXPECT_EQ(NewBinary(BinaryOp::kPow, DataType::kBool, DataType::kBool), nullptr);
  EXPECT_EQ(NewBinary(BinaryOp::kGeluGrad, DataType::kInt64, DataType::kInt64), nullptr);
  // The dst dtype must be bool for comparisons and the src dtype otherwise.
  EXPECT_EQ(NewBinary(BinaryOp::kEq, DataType::kFloat32, DataType::kFloat32), nullptr);
  EXPECT_EQ(NewBinary(BinaryOp::kAdd, DataType::kFloat32, DataType::kBool), nullptr);
  EXPECT_EQ(NewBinary(BinaryOp::kAdd, DataType::kFloat32, DataType::kFloat64), nullptr);
  EXPECT_NE(NewBinary(BinaryOp::kLt, DataType::kFloat16, DataType::kBool), nullptr);
  // Ranks up to 16, not beyond.
  EXPECT_NE(NewBinary(BinaryOp::kAdd, DataType::kFloat32, DataType::kFloat32, 16), nullptr);
  EXPECT_EQ(NewBinary(BinaryOp::kAdd, DataType::kFloat32, DataType::kFloat32, 17), nullptr);
}

TEST(BinaryPrimitive, LaunchRejectsShapesThatDoNotBroadcastAndRanksBeyondItsOwn) {
  auto add = NewBinary(BinaryOp::kAdd, DataType::kFloat32, DataType::kFloat32, 2);
  ASSERT_NE(add, nullptr);
  std::vector<float> a(6, 1.0f), b(4, 1.0f), out(6, 0.0f);
  const Dims a_dims = {2, 3}, b_dims = {4}, rank3 = {1, 2, 3};
  ExpectError(
      add->Launch(CpuStream(), 2, a_dims.data(), a.data(), 1, b_dims.data(), b.data(), out.data()),
      ErrorKind::kValueError, {"(2, 3)", "(4,)"});
  ExpectError(
      add->Launch(CpuStream(), 3, rank3.data(), a.data(), 2, a_dims.data(), a.data(), out.data()),
      ErrorKind::kValueError, {"rank 3", "(2)"});
  EXPECT_EQ(out, std::vector<float>(6, 0.0f));  // nothing written on an error
}

TEST(BinaryPrimitive, EmptyTensorsWriteNothingAndReadNothing) {
  const ShapePair empties[] = {
      {{0, 3}, {1, 3}}, {{2, 0}, {2, 1}}, {{}, {0}}, {{0}, {0}}, {{3, 0, 2}, {2}}};
  for (const ShapePair& shapes : empties) {
    for (DataType dtype : {DataType::kFloat32, DataType::kFloat16, DataType::kInt8}) {
      auto mul = NewBinary(BinaryOp::kMul, dtype, dtype);
      ASSERT_NE(mul, nullptr);
      std::vector<uint8_t> guard(8, 0xA5);
      // Null operands: a primitive that reads anything for an empty result crashes here.
      ASSERT_TRUE(mul->Launch(CpuStream(), shapes.a.size(), shapes.a.data(), nullptr,
                              shapes.b.size(), shapes.b.data(), nullptr, guard.data())
                      .ok())
          << ShapeText(shapes.a) << " x " << ShapeText(shapes.b);
      EXPECT_EQ(guard, std::vector<uint8_t>(8, 0xA5));
    }
  }
}

// More than 1M elements through each loop (plain, hoisted, general): ParallelFor splits them.
TEST(BinaryPrimitive, LargeTensorsMatchTheReference) {
  const int64_t n = (1 << 20) + 3;
  const ShapePair cases[] = {
      {{n}, {n}}, {{}, {n}}, {{n}, {1}}, {{1100, 1000}, {1000}}, {{1000, 1}, {1, 1100}}};
  for (size_t c = 0; c < std::size(cases); ++c) {
    const ShapePair& shapes = cases[c];
    const std::vector<double> a = RandomValues(static_cast<size_t>(Count(shapes.a)), 40 + c);
    const std::vector<double> b = RandomValues(static_cast<size_t>(Count(shapes.b)), 50 + c);
    for (BinaryOp op : {BinaryOp::kMul, BinaryOp::kGeluGrad}) {
      const BinaryResult r = RunBinary(op, DataType::kFloat32, a, shapes.a, b, shapes.b);
      ASSERT_GT(r.actual.size(), 1000000u);
      ExpectBinaryMatches(r, op, DataType::kFloat32,
                          std::string(primitive::BinaryOpName(op)) + " " + ShapeText(shapes.a) +
                              " x " + ShapeText(shapes.b));
    }
  }
}

TEST(BinaryPrimitive, DivisionByZeroFollowsIeee) {
  for (DataType dtype : FloatingDataTypes()) {
    const BinaryResult r =
        RunBinary(BinaryOp::kDiv, dtype, {1, -1, 0, 1, 3}, {5}, {0, 0, 0, -0.0, 2}, {5});
    ASSERT_EQ(r.actual.size(), 5u);
    EXPECT_EQ(r.actual[0], INFINITY) << dtype;
    EXPECT_EQ(r.actual[1], -INFINITY) << dtype;
    EXPECT_TRUE(std::isnan(r.actual[2])) << dtype;
    EXPECT_EQ(r.actual[3], -INFINITY) << dtype;
    EXPECT_EQ(r.actual[4], 1.5) << dtype;
  }
}

TEST(BinaryPrimitive, NanPropagatesThroughAddMaximumMinimum) {
  for (DataType dtype : FloatingDataTypes()) {
    for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kMaximum, BinaryOp::kMinimum}) {
      const BinaryResult r = RunBinary(op, dtype, {NAN, 1, NAN, 2}, {4}, {1, NAN, NAN, -3}, {4});
      ASSERT_EQ(r.actual.size(), 4u);
      const std::string context =
          std::string(primitive::BinaryOpName(op)) + " " + DataTypeName(dtype);
      EXPECT_TRUE(std::isnan(r.actual[0])) << context;
      EXPECT_TRUE(std::isnan(r.actual[1])) << context;
      EXPECT_TRUE(std::isnan(r.actual[2])) << context;
      EXPECT_EQ(r.actual[3], op == BinaryOp::kAdd       ? -1
                             : op == BinaryOp::kMaximum ? 2
                                                        : -3)
          << context;
    }
    // Comparisons with NaN: only ne holds.
    const BinaryResult eq = RunBinary(BinaryOp::kEq, dtype, {NAN}, {1}, {NAN}, {1});
    const BinaryResult ne = RunBinary(BinaryOp::kNe, dtype, {NAN}, {1}, {NAN}, {1});
    EXPECT_EQ(eq.actual, std::vector<double>{0}) << dtype;
    EXPECT_EQ(ne.actual, std::vector<double>{1}) << dtype;
  }
}

TEST(BinaryPrimitive, IntegersWrapAndPowTruncatesNegativeExponents) {
  const double int32_max = std::numeric_limits<int32_t>::max();
  const double int32_min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(
      RunBinary(BinaryOp::kAdd, DataType::kInt32, {int32_max, int32_min}, {2}, {1, -1}, {2}).actual,
      (std::vector<double>{int32_min, int32_max}));
  EXPECT_EQ(RunBinary(BinaryOp::kMul, DataType::kInt8, {16, -128}, {2}, {16, -1}, {2}).actual,
            (std::vector<double>{0, -128}));
  EXPECT_EQ(RunBinary(BinaryOp::kSub, DataType::kUInt8, {3}, {1}, {5}, {1}).actual,
            (std::vector<double>{254}));
  EXPECT_EQ(RunBinary(BinaryOp::kPow, DataType::kInt32, {2, 1, -1, -1, 0, 3}, {6},
                      {-1, -3, -3, -2, -1, 0}, {6})
                .actual,
            (std::vector<double>{0, 1, -1, 1, 0, 1}));
  // bool: add is or, mul is and.
  EXPECT_EQ(RunBinary(BinaryOp::kAdd, DataType::kBool, {0, 0, 1, 1}, {4}, {0, 1, 0, 1}, {4}).actual,
            (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(RunBinary(BinaryOp::kMul, DataType::kBool, {0, 0, 1, 1}, {4}, {0, 1, 0, 1}, {4}).actual,
            (std::vector<double>{0, 0, 0, 1}));
}

// gelu_grad, gelu_tanh_grad, silu_grad at |x| = 20, 100, 1e4: finite (exp overflows and
// tanh saturates on the way) and equal to the reference.
TEST(BinaryPrimitive, ActivationGradientsStayFiniteForLargeInputs) {
  const std::vector<double> x = {20, -20, 100, -100, 1e4, -1e4};
  const std::vector<double> dy(x.size(), 1.5);
  for (DataType dtype : FloatingDataTypes()) {
    for (BinaryOp op : {BinaryOp::kGeluGrad, BinaryOp::kGeluTanhGrad, BinaryOp::kSiluGrad}) {
      const BinaryResult r = RunBinary(op, dtype, dy, {6}, x, {6});
      const std::string context =
          std::string(primitive::BinaryOpName(op)) + " " + DataTypeName(dtype);
      for (double v : r.actual) {
        EXPECT_TRUE(std::isfinite(v)) << context << ": " << v;
      }
      // The results are about dy or about 0: errors are measured against |dy| (gelu's
      // 1 + erf(x) loses the tail below about 1e-16 in double, as in PyTorch).
      ExpectAllClose(r.actual, r.expected, Tolerance(dtype), context, Floor(dtype), dy);
    }
  }
}

// ---- ElementwiseUnary -----------------------------------------------------------------------

std::unique_ptr<primitive::ElementwiseUnary> NewUnary(UnaryOp op, DataType dtype) {
  return primitive::NewPrimitive<primitive::ElementwiseUnaryFactory>(DeviceType::kCPU, op, dtype,
                                                                     kAlpha);
}

// Runs op on x (rounded to dtype) and compares with the reference.
void CheckUnary(UnaryOp op, DataType dtype, std::vector<double> x, const std::string& context,
                std::vector<double>* actual_out = nullptr) {
  x = RoundTo(x, dtype);
  auto unary = NewUnary(op, dtype);
  ASSERT_NE(unary, nullptr) << context;
  const Tensor x_t = MakeTensor(x, Shape({static_cast<int64_t>(x.size())}), dtype);
  const Tensor y_t = Poisoned({static_cast<int64_t>(x.size())}, dtype);
  ASSERT_TRUE(unary->Launch(CpuStream(), x_t.data(), y_t.mut_data(), x.size()).ok()) << context;
  std::vector<double> expected, scale;
  for (double v : x) {
    expected.push_back(ReferenceStore(ReferenceUnary(op, v, kAlpha), dtype));
    scale.push_back(std::abs(v));  // gelu cancels 1 + erf(x): its error scales with |x|
  }
  const bool cancels = op == UnaryOp::kGelu || op == UnaryOp::kGeluTanh;
  const std::vector<double> actual = Read(y_t);
  ExpectAllClose(actual, expected, Tolerance(dtype), context, Floor(dtype),
                 cancels ? scale : std::vector<double>{});
  if (actual_out != nullptr) {
    *actual_out = actual;
  }
}

class UnaryPrimitiveTest : public ::testing::TestWithParam<DataType> {};

TEST_P(UnaryPrimitiveTest, EverySupportedOpMatchesTheReference) {
  const DataType dtype = GetParam();
  for (UnaryOp op : AllUnaryOps()) {
    auto unary = NewUnary(op, dtype);
    EXPECT_EQ(unary != nullptr, UnarySupported(op, dtype))
        << primitive::UnaryOpName(op) << " on " << dtype;
    if (unary == nullptr) {
      continue;
    }
    EXPECT_EQ(unary->name(), std::string("cpu.elementwise_unary<") + primitive::UnaryOpName(op) +
                                 "," + DataTypeName(dtype) + ">");
    const uint64_t seed = static_cast<uint64_t>(op) * 100 + static_cast<int>(dtype);
    const bool positive = op == UnaryOp::kLog || op == UnaryOp::kSqrt || op == UnaryOp::kRsqrt;
    std::vector<double> x;
    if (IsInteger(dtype)) {
      const double lo = dtype == DataType::kUInt8 ? 0 : -100;
      x = RandomValues(1000, seed, lo, lo + 200);
      for (double& v : x) v = std::floor(v);
    } else {
      x = RandomValues(1000, seed, positive ? 0.05 : -4, 4);
    }
    CheckUnary(op, dtype, x,
               std::string(primitive::UnaryOpName(op)) + " " + DataTypeName(dtype) + " seed " +
                   std::to_string(seed));
  }
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, UnaryPrimitiveTest, ::testing::ValuesIn(AllDataTypes()),
                         [](const auto& info) { return std::string(DataTypeName(info.param)); });

TEST(UnaryPrimitive, FactoryRefusesNamedUnsupportedCombinations) {
  EXPECT_EQ(NewUnary(UnaryOp::kExp, DataType::kInt64), nullptr);
  EXPECT_EQ(NewUnary(UnaryOp::kNeg, DataType::kBool), nullptr);
  EXPECT_EQ(NewUnary(UnaryOp::kRelu, DataType::kBool), nullptr);
  EXPECT_EQ(NewUnary(UnaryOp::kAbs, DataType::kBool), nullptr);
  EXPECT_EQ(NewUnary(UnaryOp::kSigmoid, DataType::kUInt8), nullptr);
  EXPECT_NE(NewUnary(UnaryOp::kNeg, DataType::kInt8), nullptr);
}

TEST(UnaryPrimitive, ActivationsStayFiniteForLargeInputs) {
  const std::vector<double> x = {20, -20, 100, -100, 1e4, -1e4};
  for (DataType dtype : FloatingDataTypes()) {
    for (UnaryOp op :
         {UnaryOp::kGelu, UnaryOp::kGeluTanh, UnaryOp::kSilu, UnaryOp::kSigmoid, UnaryOp::kTanh}) {
      const std::string context =
          std::string(primitive::UnaryOpName(op)) + " " + DataTypeName(dtype);
      std::vector<double> actual;
      CheckUnary(op, dtype, x, context, &actual);
      ASSERT_EQ(actual.size(), x.size());
      for (double v : actual) {
        EXPECT_TRUE(std::isfinite(v)) << context << ": " << v;
      }
    }
  }
}

TEST(UnaryPrimitive, IntegerEdgesAndNan) {
  std::vector<double> actual;
  CheckUnary(UnaryOp::kNeg, DataType::kInt8, {-128, 127, 0}, "neg int8", &actual);
  EXPECT_EQ(actual, (std::vector<double>{-128, -127, 0}));  // -(-128) wraps to -128
  CheckUnary(UnaryOp::kAbs, DataType::kInt8, {-128, -5}, "abs int8", &actual);
  EXPECT_EQ(actual, (std::vector<double>{-128, 5}));
  CheckUnary(UnaryOp::kRelu, DataType::kFloat32, {NAN, -1, 2}, "relu float32", &actual);
  EXPECT_TRUE(std::isnan(actual[0]));  // relu keeps NaN, as PyTorch does
  EXPECT_EQ(actual[1], 0);
  EXPECT_EQ(actual[2], 2);
  CheckUnary(UnaryOp::kLeakyRelu, DataType::kFloat64, {-2, 3}, "leaky_relu float64", &actual);
  EXPECT_EQ(actual, (std::vector<double>{-2 * kAlpha, 3}));
}

TEST(UnaryPrimitive, LargeTensorMatchesTheReferenceAndEmptyWritesNothing) {
  CheckUnary(UnaryOp::kSilu, DataType::kFloat32, RandomValues((1 << 20) + 5, 7), "silu 1M");
  CheckUnary(UnaryOp::kExp, DataType::kBFloat16, RandomValues((1 << 20) + 5, 8), "exp bf16 1M");
  auto exp = NewUnary(UnaryOp::kExp, DataType::kFloat32);
  ASSERT_NE(exp, nullptr);
  float guard = 7;
  ASSERT_TRUE(exp->Launch(CpuStream(), nullptr, &guard, 0).ok());
  EXPECT_EQ(guard, 7);
}

// ---- Cast -----------------------------------------------------------------------------------

std::vector<double> RunCast(DataType from, DataType to, const std::vector<double>& x) {
  auto cast = primitive::NewPrimitive<primitive::CastFactory>(DeviceType::kCPU, from, to);
  if (cast == nullptr) {
    ADD_FAILURE() << "no cast from " << from << " to " << to;
    return {};
  }
  const Tensor x_t = MakeTensor(x, Shape({static_cast<int64_t>(x.size())}), from);
  const Tensor y_t = Poisoned({static_cast<int64_t>(x.size())}, to);
  const Maybe<void> launched = cast->Launch(CpuStream(), x_t.data(), y_t.mut_data(), x.size());
  if (!launched.ok()) {
    ADD_FAILURE() << launched.error().ToString();
    return {};
  }
  return Read(y_t);
}

// The range of values every integer dtype in `dtypes` holds, clipped to [-1e6, 1e6].
std::pair<double, double> CommonIntegerRange(std::initializer_list<DataType> dtypes) {
  double lo = -1e6, hi = 1e6;
  for (DataType dtype : dtypes) {
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) {
        lo = std::max(lo, static_cast<double>(std::numeric_limits<T>::lowest()));
        hi = std::min(hi, static_cast<double>(std::numeric_limits<T>::max()));
      }
    });
  }
  return {lo, hi};
}

class CastPrimitiveTest : public ::testing::TestWithParam<DataType> {};

// From GetParam() to every dtype. Integer to integer stays inside both ranges (wrapping is
// tested with explicit values below); floating sources cover fractions, saturation, NaN, inf.
TEST_P(CastPrimitiveTest, EveryDestinationMatchesTheReference) {
  const DataType from = GetParam();
  for (DataType to : AllDataTypes()) {
    auto cast = primitive::NewPrimitive<primitive::CastFactory>(DeviceType::kCPU, from, to);
    ASSERT_NE(cast, nullptr) << from << " -> " << to;
    EXPECT_EQ(cast->name(),
              std::string("cpu.cast<") + DataTypeName(from) + "," + DataTypeName(to) + ">");
    const uint64_t seed = static_cast<uint64_t>(from) * 10 + static_cast<uint64_t>(to);
    std::vector<double> x;
    if (from == DataType::kBool) {
      x = {0, 1, 1, 0};
    } else if (IsInteger(from)) {
      const auto [lo, hi] =
          IsInteger(to) ? CommonIntegerRange({from, to}) : CommonIntegerRange({from});
      x = RandomValues(500, seed, lo, hi + 1);
      for (double& v : x) v = std::floor(v);
      x.insert(x.end(), {lo, hi, 0, 1});
      if (!IsInteger(to) && hi >= 65520) {  // float16: 2049 ties to 2048, 65520 ties to inf
        x.insert(x.end(), {2049, 2051, 4112, 4144, 65504, 65519, 65520, 1e6 - 1});
      }
    } else {
      x = RandomValues(500, seed, -300, 300);
      x.insert(x.end(), {0, -0.0, 0.5, -0.5, 1.5, 2.5, -3.7, 127.5, 255.9, 256, -129, 1e10, -1e10,
                         3e9, 1e30, -1e30, INFINITY, -INFINITY, NAN});
      x = RoundTo(x, from);
    }
    std::vector<double> expected;
    for (double v : x) {
      expected.push_back(ReferenceCast(v, to));
    }
    ExpectAllClose(RunCast(from, to, x), expected, 0,
                   std::string("cast ") + DataTypeName(from) + " -> " + DataTypeName(to) +
                       " seed " + std::to_string(seed));
  }
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, CastPrimitiveTest, ::testing::ValuesIn(AllDataTypes()),
                         [](const auto& info) { return std::string(DataTypeName(info.param)); });

// The 16-bit result of a cast, as bits.
uint16_t HalfBits(DataType to, double stored) {
  return to == DataType::kFloat16 ? float16(stored).bits : bfloat16(stored).bits;
}

TEST(CastPrimitive, SixteenBitDestinationsRoundToNearestEvenOnce) {
  // float16 has a step of 2^-10 in [1, 2): 1 + 2^-11 is a tie (to 1), 1 + 3 * 2^-11 a tie to
  // the even 1 + 2^-9; bfloat16's step there is 2^-7.
  const double h = std::ldexp(1.0, -11), b = std::ldexp(1.0, -8);
  struct Case {
    DataType from, to;
    double value;
    uint16_t bits;
  };
  const Case cases[] = {
      {DataType::kFloat32, DataType::kFloat16, 1 + h, 0x3C00},
      {DataType::kFloat32, DataType::kFloat16, 1 + 3 * h, 0x3C02},
      {DataType::kFloat32, DataType::kFloat16, -(1 + 3 * h), 0xBC02},
      {DataType::kFloat32, DataType::kBFloat16, 1 + b, 0x3F80},
      {DataType::kFloat32, DataType::kBFloat16, 1 + 3 * b, 0x3F82},
      // Just above a tie: float64 -> float32 would land on the tie and round down to even;
      // rounding once from the double goes up.
      {DataType::kFloat64, DataType::kFloat16, 1 + h + std::ldexp(1.0, -40), 0x3C01},
      {DataType::kFloat64, DataType::kBFloat16, 1 + b + std::ldexp(1.0, -30), 0x3F81},
      // Integers: 2049 is a float16 tie (step 2), 4112 and 4144 bfloat16 ties (step 32).
      {DataType::kInt32, DataType::kFloat16, 2049, 0x6800},
      {DataType::kInt64, DataType::kFloat16, 2051, 0x6802},
      {DataType::kInt32, DataType::kBFloat16, 4112, 0x4580},
      {DataType::kInt32, DataType::kBFloat16, 4144, 0x4582},
      // float16 -> bfloat16 ties (exact float16 values), bfloat16 -> float16 overflow.
      {DataType::kFloat16, DataType::kBFloat16, 1 + b, 0x3F80},
      {DataType::kFloat16, DataType::kBFloat16, 1 + 3 * b, 0x3F82},
      {DataType::kBFloat16, DataType::kFloat16, 70000, 0x7C00},
  };
  for (const Case& c : cases) {
    const std::vector<double> y = RunCast(c.from, c.to, {c.value});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(HalfBits(c.to, y[0]), c.bits)
        << c.from << " " << c.value << " -> " << c.to << " gave " << y[0];
  }
  // The tie checks need the source to hold the value exactly.
  EXPECT_EQ(RoundTo({1 + 3 * h}, DataType::kFloat32)[0], 1 + 3 * h);
}

// int64 past 2^53 rounds once, from the integer: 2^62 + 2^54 + 1 lies just above a bfloat16
// tie that a plain conversion to double lands on (and then rounds down to even).
TEST(CastPrimitive, Int64RoundsOnceToFloatingDtypes) {
  const std::vector<int64_t> values = Int64RoundingCases(20261201);
  const int64_t n = static_cast<int64_t>(values.size());
  const Tensor x = Unwrap(Tensor::FromVector(values, Shape({n})));
  for (DataType to : {DataType::kBFloat16, DataType::kFloat16, DataType::kFloat32}) {
    auto cast =
        primitive::NewPrimitive<primitive::CastFactory>(DeviceType::kCPU, DataType::kInt64, to);
    ASSERT_NE(cast, nullptr);
    const Tensor y = Poisoned({n}, to);
    ASSERT_TRUE(cast->Launch(CpuStream(), x.data(), y.mut_data(), values.size()).ok());
    const std::vector<double> got = Read(y);
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(got[i], ReferenceCastInt64(values[i], to)) << values[i] << " -> " << to;
    }
  }
  const int64_t above_tie = (int64_t{1} << 62) + (int64_t{1} << 54) + 1;
  EXPECT_EQ(ReferenceCastInt64(above_tie, DataType::kBFloat16), std::ldexp(129.0, 55));
  EXPECT_EQ(ReferenceCastInt64(65520, DataType::kFloat16), INFINITY);
}

TEST(CastPrimitive, FloatingToIntegerTruncatesSaturatesAndMapsNanToZero) {
  const double int32_max = std::numeric_limits<int32_t>::max();
  const double int32_min = std::numeric_limits<int32_t>::min();
  for (DataType from : FloatingDataTypes()) {
    EXPECT_EQ(RunCast(from, DataType::kInt32, {NAN, 1e10, -1e10, -3.7, 3.7, INFINITY, -INFINITY}),
              (std::vector<double>{0, int32_max, int32_min, -3, 3, int32_max, int32_min}))
        << from;
    EXPECT_EQ(RunCast(from, DataType::kUInt8, {300, -5, 255.5, NAN}),
              (std::vector<double>{255, 0, 255, 0}))
        << from;
    EXPECT_EQ(RunCast(from, DataType::kInt8, {-200, 200, -128.5}),
              (std::vector<double>{-128, 127, -128}))
        << from;
    EXPECT_EQ(RunCast(from, DataType::kBool, {0.5, NAN, 0, -0.0}),
              (std::vector<double>{1, 1, 0, 0}))
        << from;
  }
  EXPECT_EQ(RunCast(DataType::kFloat64, DataType::kInt64, {1e19, -1e19})[0],
            static_cast<double>(std::numeric_limits<int64_t>::max()));
}

TEST(CastPrimitive, IntegerToIntegerWraps) {
  EXPECT_EQ(RunCast(DataType::kInt32, DataType::kInt8, {300, -129, 128}),
            (std::vector<double>{44, 127, -128}));
  EXPECT_EQ(RunCast(DataType::kUInt8, DataType::kInt8, {200, 255}), (std::vector<double>{-56, -1}));
  EXPECT_EQ(RunCast(DataType::kInt8, DataType::kUInt8, {-1, -128}),
            (std::vector<double>{255, 128}));
  EXPECT_EQ(RunCast(DataType::kInt64, DataType::kInt32, {4294967301.0, -4294967297.0}),
            (std::vector<double>{5, -1}));
  EXPECT_EQ(RunCast(DataType::kInt32, DataType::kBool, {0, 256, -1}),
            (std::vector<double>{0, 1, 1}));
}

TEST(CastPrimitive, LargeTensorMatchesTheReferenceAndEmptyWritesNothing) {
  const std::vector<double> x =
      RoundTo(RandomValues((1 << 20) + 9, 11, -1e5, 1e5), DataType::kFloat32);
  for (DataType to : {DataType::kFloat16, DataType::kInt32}) {
    std::vector<double> expected;
    for (double v : x) {
      expected.push_back(ReferenceCast(v, to));
    }
    ExpectAllClose(RunCast(DataType::kFloat32, to, x), expected, 0,
                   std::string("cast float32 -> ") + DataTypeName(to) + " 1M");
  }
  auto cast = primitive::NewPrimitive<primitive::CastFactory>(DeviceType::kCPU, DataType::kInt8,
                                                              DataType::kFloat64);
  ASSERT_NE(cast, nullptr);
  double guard = 7;
  ASSERT_TRUE(cast->Launch(CpuStream(), nullptr, &guard, 0).ok());
  EXPECT_EQ(guard, 7);
}

// ---- the reference itself, on values known by hand -------------------------------------------

TEST(ElementwiseReference, KnownValues) {
  EXPECT_DOUBLE_EQ(ReferenceUnary(UnaryOp::kGelu, 1), 0.8413447460685429);
  EXPECT_NEAR(ReferenceUnary(UnaryOp::kGeluTanh, 1), 0.8411919906082768, 1e-15);
  EXPECT_DOUBLE_EQ(ReferenceUnary(UnaryOp::kSilu, 0), 0);
  EXPECT_DOUBLE_EQ(ReferenceBinary(BinaryOp::kGeluGrad, 1, 0), 0.5);
  EXPECT_DOUBLE_EQ(ReferenceBinary(BinaryOp::kSiluGrad, 2, 0), 1);
  EXPECT_DOUBLE_EQ(ReferenceBinary(BinaryOp::kLeakyReluGrad, 2, -1, 0.1), 0.2);
  EXPECT_TRUE(std::isnan(ReferenceBinary(BinaryOp::kMaximum, NAN, 1)));
  EXPECT_EQ(ReferenceCast(-3.7, DataType::kInt32), -3);
  EXPECT_EQ(ReferenceCast(300, DataType::kUInt8), 255);
  EXPECT_EQ(ReferenceCast(NAN, DataType::kInt64), 0);
  EXPECT_EQ(ReferenceCast(65520, DataType::kFloat16), INFINITY);
}

}  // namespace
}  // namespace test
}  // namespace oflite

namespace oflite {
namespace test {
namespace {

// Outputs past the streaming threshold take the non-temporal path: every element, including an
// unaligned head and a tail shorter than a chunk, must be written exactly.
TEST(StreamingOutput, LargeAddsWriteEveryElement) {
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16}) {
    const int64_t count = ep::kStreamingBytes / static_cast<int64_t>(DataTypeSize(dtype)) + 1237;
    const std::vector<double> a = RandomValues(static_cast<size_t>(count), 11);
    const std::vector<double> b = RandomValues(static_cast<size_t>(count), 12);
    const Tensor x = MakeTensor(a, Shape{count}, dtype);
    const Tensor y = MakeTensor(b, Shape{count}, dtype);
    const std::vector<double> sum = ToDoubles(Unwrap(functional::Add(x, y)));
    const std::vector<double> ra = RoundTo(a, dtype), rb = RoundTo(b, dtype);
    std::vector<double> exact(ra.size());
    for (size_t i = 0; i < ra.size(); ++i) {
      exact[i] = ra[i] + rb[i];  // exact in double for these dtypes: one rounding, as the kernel's
    }
    const std::vector<double> expected = RoundTo(exact, dtype);
    ASSERT_EQ(sum.size(), expected.size());
    int64_t wrong = 0;
    for (size_t i = 0; i < sum.size(); ++i) {
      wrong += sum[i] != expected[i];
    }
    EXPECT_EQ(wrong, 0) << DataTypeName(dtype) << ", " << count << " elements";
  }
}

}  // namespace
}  // namespace test
}  // namespace oflite
