// Ops on global tensors: the signature the cost model picks, results against plain double
// references of the whole tensors, and the errors every rank must see alike.
#include "oneflow_lite/framework/global_dispatch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "oneflow_lite/framework/global_tensor.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/functional/global.h"
#include "tests/global/thread_communicator.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ThreadCommunicator;
using test::ThreadGroup;

Placement Ranks(int world) {
  std::vector<int> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.push_back(r);
  }
  return Placement(DeviceType::kCPU, ranks);
}

// A global tensor every rank makes from the same whole values.
GlobalTensor Global(const std::vector<double>& whole, const Shape& shape, int world, const Sbp& sbp,
                    DataType dtype = DataType::kFloat32) {
  return test::Unwrap(
      GlobalTensor::FromWhole(test::MakeTensor(whole, shape, dtype), Ranks(world), {sbp}));
}

// The whole tensor on every rank: B as is, else boxed to B.
std::vector<double> Whole(const GlobalTensor& t) {
  GlobalTensor b = test::Unwrap(t.ToGlobal(t.placement(), {BroadcastSbp()}));
  return test::ToDoubles(b.local());
}

std::vector<double> MatmulReference(const std::vector<double>& a, const std::vector<double>& b,
                                    int64_t m, int64_t k, int64_t n) {
  std::vector<double> out(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += a[static_cast<size_t>(i * k + p)] * b[static_cast<size_t>(p * n + j)];
      }
      out[static_cast<size_t>(i * n + j)] = sum;
    }
  }
  return out;
}

struct MatmulCase {
  Sbp a, b;
  std::string signature;  // the one the cost model must pick
  std::string boxing;     // its trace line
};

TEST(GlobalDispatchTest, MatmulPicksTheCheapestSignature) {
  const int64_t m = 7, k = 5, n = 6;
  const std::vector<double> a = test::RoundTo(test::RandomValues(m * k, 11), DataType::kFloat32);
  const std::vector<double> b = test::RoundTo(test::RandomValues(k * n, 12), DataType::kFloat32);
  const std::vector<double> expected = MatmulReference(a, b, m, k, n);
  const std::vector<MatmulCase> cases = {
      {SplitSbp(0), BroadcastSbp(), "a:S(0) b:B out:S(0)", "boxing 0 B: none"},
      {BroadcastSbp(), SplitSbp(1), "a:B b:S(1) out:S(1)", "boxing 0 B: none"},
      {SplitSbp(1), SplitSbp(0), "a:S(1) b:S(0) out:P", "boxing 0 B: none"},
      {BroadcastSbp(), BroadcastSbp(), "a:B b:B out:B", "boxing 0 B: none"},
      // a S(1) -> S(0) costs a's 140 bytes / 4 (all-to-all on 2 ranks); b B -> S(0) is free
      // but the S(1) x S(0) signature would be the same: it needs nothing moved at all.
      {SplitSbp(1), BroadcastSbp(), "a:S(1) b:S(0) out:P",
       "boxing 0 B: b: B -> S(0) local slice 0 B"},
      // a S(0) x b S(0): moving b (120 bytes) to B costs 60, a to S(1) for S(1) x S(0) 35.
      {SplitSbp(0), SplitSbp(0), "a:S(1) b:S(0) out:P",
       "boxing 35 B: a: S(0) -> S(1) all-to-all 35 B"},
      {PartialSumSbp(), BroadcastSbp(), "a:P b:B out:P", "boxing 0 B: none"},
  };
  for (const MatmulCase& c : cases) {
    ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
      GlobalTensor ga = Global(a, Shape{m, k}, 2, c.a);
      GlobalTensor gb = Global(b, Shape{k, n}, 2, c.b);
      GlobalTrace trace;
      GlobalTensor out = test::Unwrap(functional::MatMul(ga, gb));
      ASSERT_EQ(trace.records().size(), 1u);
      const std::string line = GlobalCallRecordToString(trace.records()[0]);
      EXPECT_EQ(trace.records()[0].signature, c.signature) << line;
      EXPECT_NE(line.find(c.boxing), std::string::npos) << line;
      EXPECT_EQ(out.shape(), (Shape{m, n}));
      test::ExpectAllClose(
          Whole(out), expected, 1e-5,
          "matmul " + SbpToString(c.a) + " x " + SbpToString(c.b) + " rank " + std::to_string(rank),
          1e-5);
    });
  }
}

TEST(GlobalDispatchTest, MatmulOnThreeRanksUneven) {
  const int64_t m = 8, k = 4, n = 5;
  const std::vector<double> a = test::RoundTo(test::RandomValues(m * k, 21), DataType::kFloat32);
  const std::vector<double> b = test::RoundTo(test::RandomValues(k * n, 22), DataType::kFloat32);
  const std::vector<double> expected = MatmulReference(a, b, m, k, n);
  for (const auto& layout : std::vector<std::pair<Sbp, Sbp>>{{SplitSbp(0), BroadcastSbp()},
                                                             {BroadcastSbp(), SplitSbp(1)},
                                                             {SplitSbp(1), SplitSbp(1)}}) {
    const Sbp sa = layout.first, sb = layout.second;  // C++17 lambdas cannot capture bindings
    ThreadGroup::Run(3, [&](int rank, ThreadCommunicator*) {
      GlobalTensor out = test::Unwrap(
          functional::MatMul(Global(a, Shape{m, k}, 3, sa), Global(b, Shape{k, n}, 3, sb)));
      test::ExpectAllClose(
          Whole(out), expected, 1e-5,
          "matmul " + SbpToString(sa) + " x " + SbpToString(sb) + " rank " + std::to_string(rank),
          1e-5);
    });
  }
}

// MatMul naming the output's SBP: the product boxed to it (on CPU ranks always after the
// product; on CUDA a B x S(1) product wanted B travels in row chunks, checked by the dist worker).
TEST(GlobalDispatchTest, MatmulNamingTheOutputSbp) {
  const int64_t m = 7, k = 4, n = 5;
  const std::vector<double> a = test::RoundTo(test::RandomValues(m * k, 23), DataType::kFloat32);
  const std::vector<double> b = test::RoundTo(test::RandomValues(k * n, 24), DataType::kFloat32);
  std::vector<double> expected = MatmulReference(a, b, m, k, n);
  for (double& e : expected) {
    e *= 0.5;
  }
  for (const int world : {2, 3}) {
    for (const Sbp& out_sbp : {BroadcastSbp(), SplitSbp(0), SplitSbp(1)}) {
      ThreadGroup::Run(world, [&](int rank, ThreadCommunicator*) {
        GlobalTensor out = test::Unwrap(functional::MatMul(
            Global(a, Shape{m, k}, world, BroadcastSbp()),
            Global(b, Shape{k, n}, world, SplitSbp(1)), {out_sbp}, false, false, 0.5));
        const std::string what = "out " + SbpToString(out_sbp) + " rank " + std::to_string(rank);
        EXPECT_EQ(out.sbp()[0], out_sbp) << what;
        EXPECT_EQ(out.shape(), (Shape{m, n})) << what;
        test::ExpectAllClose(Whole(out), expected, 1e-5, what, 1e-5);
      });
    }
  }
}

std::vector<double> SoftmaxReference(const std::vector<double>& x, int64_t rows, int64_t cols) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double max = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c) max = std::max(max, x[static_cast<size_t>(r * cols + c)]);
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[static_cast<size_t>(r * cols + c)] - max);
    for (int64_t c = 0; c < cols; ++c) {
      y[static_cast<size_t>(r * cols + c)] =
          std::exp(x[static_cast<size_t>(r * cols + c)] - max) / sum;
    }
  }
  return y;
}

// Softmax over the split axis cannot run on the shards: the call re-splits the rows.
TEST(GlobalDispatchTest, SoftmaxOverTheSplitAxis) {
  const int64_t rows = 5, cols = 9;
  const std::vector<double> x =
      test::RoundTo(test::RandomValues(rows * cols, 31), DataType::kFloat32);
  const std::vector<double> expected = SoftmaxReference(x, rows, cols);
  for (int world : {2, 3}) {
    ThreadGroup::Run(world, [&](int rank, ThreadCommunicator*) {
      GlobalTensor gx = Global(x, Shape{rows, cols}, world, SplitSbp(1));
      GlobalTrace trace;
      GlobalTensor y = test::Unwrap(functional::Softmax(gx, -1));
      ASSERT_EQ(trace.records().size(), 1u);
      EXPECT_EQ(trace.records()[0].signature, "x:S(0) y:S(0)");
      ASSERT_EQ(trace.records()[0].boxing.size(), 1u);
      EXPECT_EQ(trace.records()[0].boxing[0].method, "all-to-all");
      EXPECT_EQ(y.sbp()[0], SplitSbp(0));
      test::ExpectAllClose(Whole(y), expected, 1e-5, "softmax rank " + std::to_string(rank));
    });
  }
}

// Over dim 0 of a tensor split along 0: transposes move the dim last, keeping the split.
TEST(GlobalDispatchTest, SoftmaxOverANonLastDim) {
  const int64_t rows = 6, cols = 4;
  const std::vector<double> x =
      test::RoundTo(test::RandomValues(rows * cols, 41), DataType::kFloat32);
  // The reference over dim 0: softmax of the transpose, transposed back.
  std::vector<double> xt(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      xt[static_cast<size_t>(c * rows + r)] = x[static_cast<size_t>(r * cols + c)];
  const std::vector<double> yt = SoftmaxReference(xt, cols, rows);
  std::vector<double> expected(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      expected[static_cast<size_t>(r * cols + c)] = yt[static_cast<size_t>(c * rows + r)];
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    GlobalTensor y =
        test::Unwrap(functional::Softmax(Global(x, Shape{rows, cols}, 2, SplitSbp(0)), 0));
    EXPECT_EQ(y.shape(), (Shape{rows, cols}));
    test::ExpectAllClose(Whole(y), expected, 1e-5, "softmax dim 0 rank " + std::to_string(rank));
  });
}

// softmax_grad (dx = y (dy - sum y dy)) or log_softmax_grad (dx = dy - e^y sum dy) of a
// (rows, cols) pair over `dim`, in double.
std::vector<double> SoftmaxGradReference(const std::vector<double>& y,
                                         const std::vector<double>& dy, int64_t rows, int64_t cols,
                                         int64_t dim, bool log) {
  const int64_t lines = dim == 0 ? cols : rows, length = dim == 0 ? rows : cols;
  const auto at = [&](int64_t line, int64_t i) {
    return static_cast<size_t>(dim == 0 ? i * cols + line : line * cols + i);
  };
  std::vector<double> dx(y.size());
  for (int64_t line = 0; line < lines; ++line) {
    double sum = 0;
    for (int64_t i = 0; i < length; ++i) {
      sum += log ? dy[at(line, i)] : y[at(line, i)] * dy[at(line, i)];
    }
    for (int64_t i = 0; i < length; ++i) {
      const size_t k = at(line, i);
      dx[k] = log ? dy[k] - std::exp(y[k]) * sum : y[k] * (dy[k] - sum);
    }
  }
  return dx;
}

// The gradients over either dim of pieces split either way, on 2 and 3 ranks.
TEST(GlobalDispatchTest, SoftmaxGradsOverEveryDim) {
  const int64_t rows = 6, cols = 5;
  const std::vector<double> y =
      test::RoundTo(test::RandomValues(rows * cols, 51, 0.0, 1.0), DataType::kFloat32);
  const std::vector<double> dy =
      test::RoundTo(test::RandomValues(rows * cols, 52), DataType::kFloat32);
  for (int world : {2, 3}) {
    ThreadGroup::Run(world, [&](int rank, ThreadCommunicator*) {
      for (int64_t dim : {0, 1}) {
        for (bool log : {false, true}) {
          const GlobalTensor gy = Global(y, Shape{rows, cols}, world, SplitSbp(0));
          const GlobalTensor gdy = Global(dy, Shape{rows, cols}, world, SplitSbp(1));
          const GlobalTensor dx = test::Unwrap(log ? functional::LogSoftmaxGrad(gy, gdy, dim)
                                                   : functional::SoftmaxGrad(gy, gdy, dim));
          EXPECT_EQ(dx.shape(), (Shape{rows, cols}));
          test::ExpectAllClose(Whole(dx), SoftmaxGradReference(y, dy, rows, cols, dim, log), 1e-5,
                               std::string(log ? "log_" : "") + "softmax_grad dim " +
                                   std::to_string(dim) + " rank " + std::to_string(rank));
        }
      }
      const GlobalTensor gy = Global(y, Shape{rows, cols}, world, BroadcastSbp());
      const GlobalTensor other = Global(y, Shape{cols, rows}, world, BroadcastSbp());
      test::ExpectError(functional::SoftmaxGrad(gy, other, 0), ErrorKind::kValueError,
                        {"softmax_grad", "same shape", "(6, 5)", "(5, 6)"});
    });
  }
}

TEST(GlobalDispatchTest, ElementwiseWithPartialSums) {
  const Shape shape{4, 6};
  const std::vector<double> x = test::RoundTo(test::RandomValues(24, 51), DataType::kFloat32);
  const std::vector<double> y = test::RoundTo(test::RandomValues(24, 52), DataType::kFloat32);
  std::vector<double> sum(24), relu(24);
  for (size_t i = 0; i < 24; ++i) {
    sum[i] = x[i] + y[i];
    relu[i] = std::max(0.0, x[i]);
  }
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    GlobalTensor px = Global(x, shape, 2, PartialSumSbp());
    GlobalTensor py = Global(y, shape, 2, PartialSumSbp());
    GlobalTrace trace;
    GlobalTensor z = test::Unwrap(functional::Add(px, py));  // P + P -> P, nothing moved
    EXPECT_EQ(z.sbp()[0], PartialSumSbp());
    test::ExpectAllClose(Whole(z), sum, 1e-6, "add rank " + std::to_string(rank));
    // relu is not linear: P must be reduced first, and reduce-scatter is the cheaper way.
    GlobalTensor r = test::Unwrap(functional::Relu(px));
    ASSERT_EQ(trace.records().size(), 3u);  // add, the re-shard in Whole, relu
    EXPECT_EQ(trace.records()[2].signature, "x:S(0) y:S(0)");
    EXPECT_EQ(trace.records()[2].boxing[0].method, "reduce-scatter");
    test::ExpectAllClose(Whole(r), relu, 1e-6, "relu rank " + std::to_string(rank));
  });
}

// Errors: each rank gets the same kind and message, none hangs.
struct RankError {
  bool failed = false;
  ErrorKind kind = ErrorKind::kRuntimeError;
  std::string message;
};

template <typename T>
void Note(const Maybe<T>& result, RankError* error) {
  if (!result.ok()) {
    error->failed = true;
    error->kind = result.error().kind();
    error->message = result.error().message();
  }
}

void ExpectSameErrorEverywhere(const std::vector<RankError>& errors, ErrorKind kind,
                               const std::vector<std::string>& fragments) {
  for (size_t r = 0; r < errors.size(); ++r) {
    ASSERT_TRUE(errors[r].failed) << "rank " << r << " succeeded";
    EXPECT_EQ(errors[r].kind, kind) << "rank " << r << ": " << errors[r].message;
    EXPECT_EQ(errors[r].message, errors[0].message) << "rank " << r;
    for (const std::string& f : fragments) {
      EXPECT_NE(errors[r].message.find(f), std::string::npos)
          << "rank " << r << "'s message lacks '" << f << "': " << errors[r].message;
    }
  }
}

TEST(GlobalErrorTest, RanksThatDisagreeOnAShape) {
  std::vector<RankError> errors(3);
  ThreadGroup::Run(3, [&](int rank, ThreadCommunicator*) {
    const Shape shape = rank == 1 ? Shape{2, 5} : Shape{2, 4};
    Note(test::MakeTensor(std::vector<double>(shape.elem_cnt(), 1.0), shape, DataType::kFloat32)
             .ToGlobal(Ranks(3), {SplitSbp(0)}),
         &errors[static_cast<size_t>(rank)]);
  });
  ExpectSameErrorEverywhere(
      errors, ErrorKind::kValueError,
      {"Tensor::ToGlobal", "disagree on the shape", "rank 1 (2, 5)", "every dim but 0"});
}

TEST(GlobalErrorTest, ShardsThatAreNotTheBalancedSplit) {
  std::vector<RankError> errors(2);
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    const Shape shape{rank == 0 ? 1 : 3, 2};  // 4 rows: 2 and 2 expected
    Note(test::MakeTensor(std::vector<double>(shape.elem_cnt(), 1.0), shape, DataType::kFloat32)
             .ToGlobal(Ranks(2), {SplitSbp(0)}),
         &errors[static_cast<size_t>(rank)]);
  });
  ExpectSameErrorEverywhere(errors, ErrorKind::kValueError,
                            {"rank 0 holds 1 of the 4 elements along split axis 0", "gives it 2"});
}

TEST(GlobalErrorTest, RanksThatDisagreeOnTheSbpOrDtype) {
  std::vector<RankError> sbp_errors(2), dtype_errors(2);
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    const Tensor t = test::MakeTensor({1, 2, 3, 4}, Shape{2, 2}, DataType::kFloat32);
    Note(t.ToGlobal(Ranks(2), {rank == 0 ? SplitSbp(0) : BroadcastSbp()}),
         &sbp_errors[static_cast<size_t>(rank)]);
    const Tensor u = test::MakeTensor({1, 2, 3, 4}, Shape{2, 2},
                                      rank == 0 ? DataType::kFloat32 : DataType::kFloat64);
    Note(u.ToGlobal(Ranks(2), {BroadcastSbp()}), &dtype_errors[static_cast<size_t>(rank)]);
  });
  ExpectSameErrorEverywhere(sbp_errors, ErrorKind::kValueError,
                            {"disagree on the sbp", "rank 0 gave S(0), rank 1 B"});
  ExpectSameErrorEverywhere(dtype_errors, ErrorKind::kTypeError,
                            {"disagree on the dtype", "float32", "float64"});
}

TEST(GlobalErrorTest, SplitAxisOutOfRange) {
  std::vector<RankError> make(2), reshard(2);
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    const Tensor t = test::MakeTensor({1, 2, 3, 4}, Shape{2, 2}, DataType::kFloat32);
    Note(t.ToGlobal(Ranks(2), {SplitSbp(2)}), &make[static_cast<size_t>(rank)]);
    GlobalTensor b = test::Unwrap(t.ToGlobal(Ranks(2), {BroadcastSbp()}));
    Note(b.ToGlobal(b.placement(), {SplitSbp(-1)}), &reshard[static_cast<size_t>(rank)]);
  });
  ExpectSameErrorEverywhere(make, ErrorKind::kIndexError,
                            {"Tensor::ToGlobal", "split axis 2 is out of range", "expected 0..1"});
  ExpectSameErrorEverywhere(reshard, ErrorKind::kIndexError,
                            {"GlobalTensor::ToGlobal", "split axis -1 is out of range"});
}

// Ops the tests register: one without SBP signatures, one that takes partial sums only.
OFLITE_REGISTER_OP("test_global.no_sbp")
    .Input("x")
    .Output("y")
    .SetInferFn(InferSameAsInput("x", "y"));
OFLITE_REGISTER_OP("test_global.partial_only")
    .Input("x")
    .Output("y")
    .SetInferFn(InferSameAsInput("x", "y"))
    .SetSbpFn([](const InferContext&) -> Maybe<std::vector<SbpSignature>> {
      return std::vector<SbpSignature>{SbpBuilder().PartialSum({"x", "y"}).Build()};
    });

TEST(GlobalErrorTest, SbpTheOpCannotTake) {
  std::vector<RankError> none(2), partial(2);
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    GlobalTensor x = Global({1, 2, 3, 4}, Shape{2, 2}, 2, SplitSbp(0));
    Note(GlobalDispatch("test_global.no_sbp", {x}), &none[static_cast<size_t>(rank)]);
    Note(GlobalDispatch("test_global.partial_only", {x}), &partial[static_cast<size_t>(rank)]);
  });
  ExpectSameErrorEverywhere(none, ErrorKind::kNotImplemented,
                            {"test_global.no_sbp", "x:S(0)", "without SBP signatures"});
  ExpectSameErrorEverywhere(
      partial, ErrorKind::kNotImplemented,
      {"test_global.partial_only", "no SBP signature", "x:S(0)", "lists 1 signature"});
}

TEST(GlobalErrorTest, BadCallsOnGlobalTensors) {
  std::vector<RankError> dim(2), inner(2), placement(2);
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    GlobalTensor x = Global({1, 2, 3, 4, 5, 6}, Shape{2, 3}, 2, SplitSbp(0));
    Note(functional::Softmax(x, 2), &dim[static_cast<size_t>(rank)]);
    Note(functional::MatMul(x, x), &inner[static_cast<size_t>(rank)]);
  });
  ExpectSameErrorEverywhere(dim, ErrorKind::kIndexError, {"softmax", "dim 2"});
  ExpectSameErrorEverywhere(inner, ErrorKind::kValueError, {"matmul", "inner dims 3 and 2"});
}

TEST(GlobalErrorTest, BadMatmulsNamingTheOutputSbp) {
  std::vector<RankError> undefined(2), inner(2), axis(2);
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    GlobalTensor a = Global({1, 2, 3, 4, 5, 6}, Shape{2, 3}, 2, BroadcastSbp());
    GlobalTensor b = Global({1, 2, 3, 4, 5, 6}, Shape{2, 3}, 2, SplitSbp(1));
    const size_t r = static_cast<size_t>(rank);
    Note(functional::MatMul(GlobalTensor(), b, {BroadcastSbp()}), &undefined[r]);
    Note(functional::MatMul(a, b, {BroadcastSbp()}), &inner[r]);
    Note(functional::MatMul(a, b, {SplitSbp(2)}, false, true), &axis[r]);
  });
  ExpectSameErrorEverywhere(undefined, ErrorKind::kValueError, {"matmul", "a is undefined"});
  ExpectSameErrorEverywhere(inner, ErrorKind::kValueError, {"matmul", "inner dims 3 and 2"});
  ExpectSameErrorEverywhere(axis, ErrorKind::kIndexError,
                            {"split axis 2 is out of range", "shape (2, 2)"});
}

TEST(GlobalErrorTest, PlacementsNotSupportedYet) {
  std::vector<RankError> two_d(4), part(2);
  ThreadGroup::Run(4, [&](int rank, ThreadCommunicator*) {
    const Tensor t = test::MakeTensor({1, 2, 3, 4}, Shape{2, 2}, DataType::kFloat32);
    Note(t.ToGlobal(Placement(DeviceType::kCPU, {0, 1, 2, 3}, Shape{2, 2}),
                    {SplitSbp(0), BroadcastSbp()}),
         &two_d[static_cast<size_t>(rank)]);
  });
  ExpectSameErrorEverywhere(two_d, ErrorKind::kNotImplemented, {"2 dims", "1-D placements"});
  ThreadGroup::Run(2, [&](int rank, ThreadCommunicator*) {
    const Tensor t = test::MakeTensor({1, 2}, Shape{2}, DataType::kFloat32);
    Note(t.ToGlobal(Placement(DeviceType::kCPU, {1}), {BroadcastSbp()}),
         &part[static_cast<size_t>(rank)]);
  });
  ExpectSameErrorEverywhere(part, ErrorKind::kNotImplemented,
                            {"placement cpu:[1]", "whole group of 2 ranks"});
}

TEST(GlobalErrorTest, NoCommunicator) {
  const Tensor t = test::MakeTensor({1, 2}, Shape{2}, DataType::kFloat32);
  test::ExpectError(t.ToGlobal(Placement(DeviceType::kCPU, {0}), {BroadcastSbp()}),
                    ErrorKind::kRuntimeError, {"no communicator for cpu placements"});
}

// A rank that never comes: the others fail within the group's timeout instead of waiting.
TEST(GlobalErrorTest, AMissingRankIsAnErrorNotAHang) {
  std::vector<RankError> errors(3);
  const auto start = std::chrono::steady_clock::now();
  ThreadGroup::Run(
      3,
      [&](int rank, ThreadCommunicator*) {
        if (rank == 2) {
          return;  // gone
        }
        const Tensor t = test::MakeTensor({1, 2}, Shape{2}, DataType::kFloat32);
        Note(t.ToGlobal(Ranks(3), {BroadcastSbp()}), &errors[static_cast<size_t>(rank)]);
      },
      std::chrono::milliseconds(300));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(errors[static_cast<size_t>(r)].failed) << "rank " << r;
    EXPECT_EQ(errors[static_cast<size_t>(r)].kind, ErrorKind::kDeviceError);
    EXPECT_NE(errors[static_cast<size_t>(r)].message.find("did not come"), std::string::npos)
        << errors[static_cast<size_t>(r)].message;
  }
}

TEST(GlobalErrorTest, InputsOnDifferentPlacements) {
  ThreadGroup outer(1);
  ThreadGroup::Run(1, [&](int, ThreadCommunicator*) {
    GlobalTensor x = Global({1, 2}, Shape{2}, 1, BroadcastSbp());
    GlobalTensor y;
    {
      ScopedCommunicator scope(outer.communicator(0));  // another group of one
      y = Global({1, 2}, Shape{2}, 1, BroadcastSbp());
    }
    test::ExpectError(functional::Add(x, y), ErrorKind::kValueError,
                      {"add", "all inputs on one placement"});
  });
}

}  // namespace
}  // namespace oflite
