// Op tests of softmax, log_softmax and their grads (ops/softmax_ops.h): ranks 0 to 4 with rows
// of every length the kernels treat differently, against the double references of
// ops/softmax_reference.h. The ops work on the last axis (a rank-0 tensor is one row of one).
#include <algorithm>
#include <vector>

#include "oneflow_lite/framework/op_test_spec.h"
#include "ops/softmax_ops.h"
#include "ops/softmax_reference.h"

namespace oflite {
namespace ops {
namespace {

// Inputs stay this small, so a case runs in moments on the CPU.
constexpr int64_t kMaxElements = int64_t{1} << 17;

// Row lengths by the CUDA path they take: empty rows; rows of up to 32 (a thread
// group of 1..32 lanes, two rows per group where that fits); odd lengths below 1024; exactly
// 1024, the longest warp row; longer rows of any length, and of whole 16-byte packs (a
// multiple of 8 elements) up to 32768, which the block kernels keep in shared memory or
// registers; and rows of over 116K, which no H100/H200 block holds in its 227 KB even at 2
// bytes an element, for the uncached block kernel.
int64_t RowLength(CaseRng& rng) {
  const double tier = rng.Uniform(0.0, 1.0);
  if (tier < 0.04) {
    return 0;
  }
  if (tier < 0.46) {
    return rng.Int(1, 32);
  }
  if (tier < 0.66) {
    return 2 * rng.Int(16, 511) + 1;
  }
  if (tier < 0.71) {
    return 1024;
  }
  if (tier < 0.83) {
    return rng.Int(1025, 8192);
  }
  if (tier < 0.93) {
    return 8 * rng.Int(129, 4096);
  }
  return rng.Int(120000, kMaxElements);
}

// Rank 0 to 4; the last dim from RowLength, the others 1..5 (now and then 0), fewer rows when
// the rows are long.
Shape SoftmaxShape(CaseRng& rng) {
  const int64_t rank = rng.Chance(0.05) ? 0 : rng.Int(1, 4);
  if (rank == 0) {
    return Shape();
  }
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  dims.back() = RowLength(rng);
  const int64_t max_rows = kMaxElements / std::max<int64_t>(dims.back(), 1);
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    dims[i] = rng.Chance(0.03) ? 0 : std::min(rng.Int(1, 5), std::max<int64_t>(max_rows / rows, 1));
    rows *= std::max<int64_t>(dims[i], 1);
  }
  return Shape(dims);
}

int64_t LastAxis(const Shape& shape) { return std::max<int64_t>(shape.rank() - 1, 0); }

// Rounds every value to what `dtype` holds.
std::vector<double> Rounded(std::vector<double> values, DataType dtype) {
  for (double& v : values) {
    v = RoundToDtype(v, dtype);
  }
  return values;
}

OpCase ForwardCase(DataType dtype, CaseRng& rng) {
  return {{RandomHostTensor(rng, SoftmaxShape(rng), dtype)}, {}};
}

// y is a real forward output (of x in [-4, 4], rounded to the dtype), as the grads assume;
// dy is in [-1, 1] (see GradTolerance).
OpCase GradCase(bool log, DataType dtype, CaseRng& rng) {
  const HostTensor x = RandomHostTensor(rng, SoftmaxShape(rng), dtype);
  const HostTensor y{x.shape, dtype,
                     Rounded(ReferenceSoftmax(x.values, x.shape, LastAxis(x.shape), log), dtype)};
  return {{y, RandomHostTensor(rng, x.shape, dtype, -1.0, 1.0)}, {}};
}

Maybe<std::vector<HostTensor>> ForwardReference(bool log, const OpCase& c) {
  const HostTensor& x = c.inputs[0];
  return std::vector<HostTensor>{
      {x.shape, x.dtype, ReferenceSoftmax(x.values, x.shape, LastAxis(x.shape), log)}};
}

Maybe<std::vector<HostTensor>> GradReference(bool log, const OpCase& c) {
  const HostTensor& y = c.inputs[0];
  const HostTensor& dy = c.inputs[1];
  return std::vector<HostTensor>{
      {y.shape, y.dtype,
       ReferenceSoftmaxGrad(y.values, dy.values, y.shape, LastAxis(y.shape), log)}};
}

// softmax's outputs are compared relative to themselves (docs/TESTING.md's bounds). float16 adds a
// floor at its smallest normal 2^-14: the tiniest outputs here, down to exp(-8) / 131072, are
// float16 subnormals, which hold only absolute precision.
Tolerance SoftmaxOutputTolerance(const OpCase&, DataType dtype) {
  const double tol = SoftmaxTolerance(dtype);
  return {tol, dtype == DataType::kFloat16 ? tol * 0x1p-14 : 0.0};
}

// log_softmax's outputs and the grads' are differences that can cancel to 0, so their rounding
// error is absolute, on the scale of the terms: |x - max| + |log sum| (< 20 here) for
// log_softmax, |y| (|dy| + sum |y dy|) <= 2 for softmax_grad and |dy| + exp(y) sum |dy| (a few
// units, at most 1 + cols) for log_softmax_grad, with |dy| <= 1. The bound taken on a
// term of size 1 (atol = tol) holds them: the compute types (float for 16-bit) lose ~1e-7 of a
// term, 100x below it for float32 (the tightest).
Tolerance TermTolerance(const OpCase&, DataType dtype) {
  const double tol = SoftmaxTolerance(dtype);
  return {tol, tol};
}

DataType OtherFloating(DataType dtype) {
  return dtype == DataType::kFloat64 ? DataType::kFloat32 : DataType::kFloat64;
}

std::vector<InvalidCase> ForwardInvalid(DataType dtype, CaseRng& rng) {
  const HostTensor x = RandomHostTensor(rng, Shape{3, 5}, dtype);
  return {
      {"a dim attribute (the op works on the last axis; functional moves dims there)",
       {x},
       {{"dim", int64_t{0}}},
       ErrorKind::kValueError},
      {"int32 x (no kernel)",
       {RandomHostTensor(rng, Shape{3, 5}, DataType::kInt32)},
       {},
       ErrorKind::kNotImplemented},
      {"two inputs", {x, x}, {}, ErrorKind::kValueError},
  };
}

std::vector<InvalidCase> GradInvalid(DataType dtype, CaseRng& rng) {
  const HostTensor y = RandomHostTensor(rng, Shape{3, 5}, dtype, 0.0, 1.0);
  return {
      {"dy of another shape than y",
       {y, RandomHostTensor(rng, Shape{3, 4}, dtype)},
       {},
       ErrorKind::kValueError},
      {"dy of another dtype than y",
       {y, RandomHostTensor(rng, y.shape, OtherFloating(dtype))},
       {},
       ErrorKind::kTypeError},
      {"a dim attribute", {y, y}, {{"dim", int64_t{1}}}, ErrorKind::kValueError},
      {"y alone", {y}, {}, ErrorKind::kValueError},
  };
}

OpTestSpec ForwardSpec(bool log) {
  OpTestSpec spec;
  spec.dtypes = FloatingDataTypes();
  spec.generate = ForwardCase;
  spec.reference = [log](const OpCase& c) { return ForwardReference(log, c); };
  spec.tolerance = log ? TermTolerance : SoftmaxOutputTolerance;
  spec.invalid = ForwardInvalid;
  return spec;
}

OpTestSpec GradSpec(bool log) {
  OpTestSpec spec;
  spec.dtypes = FloatingDataTypes();
  spec.generate = [log](DataType dtype, CaseRng& rng) { return GradCase(log, dtype, rng); };
  spec.reference = [log](const OpCase& c) { return GradReference(log, c); };
  spec.tolerance = TermTolerance;
  spec.invalid = GradInvalid;
  return spec;
}

OFLITE_REGISTER_OP_TEST(kSoftmaxOp, ForwardSpec(/*log=*/false));
OFLITE_REGISTER_OP_TEST(kLogSoftmaxOp, ForwardSpec(/*log=*/true));
OFLITE_REGISTER_OP_TEST(kSoftmaxGradOp, GradSpec(/*log=*/false));
OFLITE_REGISTER_OP_TEST(kLogSoftmaxGradOp, GradSpec(/*log=*/true));

}  // namespace
}  // namespace ops
}  // namespace oflite
