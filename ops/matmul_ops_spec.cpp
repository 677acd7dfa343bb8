// Op tests of matmul, batch_matmul and fused_matmul_bias_act (ops/matmul_ops.h): M, N and K
// of 0 to 17, every transpose combination (the stored operands flip), alpha, broadcast batch
// dims and each activation, against the loops of ops/matmul_reference.h.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/framework/op_test_spec.h"
#include "ops/matmul_ops.h"
#include "ops/matmul_reference.h"

namespace oflite {
namespace ops {
namespace {

// Operand values lie in [-1, 1], matrix dims in 0..kMaxDim, |alpha| <= kMaxAlpha.
constexpr int64_t kMaxDim = 17;
constexpr double kMaxAlpha = 2.0;
// gelu's steepest slope (1.129 at x = 2.4); relu and leaky_relu (|slope| <= 1 here) are gentler.
constexpr double kSteepestActivation = 1.13;

// A dim of 0 (empty, or K = 0: zeros), 1 (vectors, a single row or column) or 2..kMaxDim.
int64_t MatrixDim(CaseRng& rng) {
  const double p = rng.Uniform(0.0, 1.0);
  return p < 0.1 ? 0 : p < 0.25 ? 1 : rng.Int(2, kMaxDim);
}

struct Product {
  int64_t m, n, k;
  bool transpose_a, transpose_b;
};

Product RandomProduct(CaseRng& rng) {
  return {MatrixDim(rng), MatrixDim(rng), MatrixDim(rng), rng.Chance(0.5), rng.Chance(0.5)};
}

// The transposes as attrs, left to their default (false) now and then.
void SetTransposes(const Product& p, CaseRng& rng, AttrMap* attrs) {
  if (p.transpose_a || rng.Chance(0.5)) {
    attrs->Set(kMatmulTransposeA, p.transpose_a);
  }
  if (p.transpose_b || rng.Chance(0.5)) {
    attrs->Set(kMatmulTransposeB, p.transpose_b);
  }
}

// alpha: the default 1, 0 (zeros, BLAS's rule), or a value in [-kMaxAlpha, kMaxAlpha).
void SetAlpha(CaseRng& rng, AttrMap* attrs) {
  const double p = rng.Uniform(0.0, 1.0);
  if (p < 0.3) {
    return;
  }
  attrs->Set(kMatmulAlpha, p < 0.35 ? 0.0 : rng.Uniform(-kMaxAlpha, kMaxAlpha));
}

// Operands for batch dims batch_a and batch_b, stored as the transposes ask.
std::vector<HostTensor> Operands(const Product& p, std::vector<int64_t> batch_a,
                                 std::vector<int64_t> batch_b, DataType dtype, CaseRng& rng) {
  batch_a.insert(batch_a.end(), {p.m, p.k});
  batch_b.insert(batch_b.end(), {p.k, p.n});
  return {RandomHostTensor(rng, StoredShape(Shape(batch_a), p.transpose_a), dtype, -1.0, 1.0),
          RandomHostTensor(rng, StoredShape(Shape(batch_b), p.transpose_b), dtype, -1.0, 1.0)};
}

OpCase MatmulCase(DataType dtype, CaseRng& rng) {
  const Product p = RandomProduct(rng);
  OpCase c{Operands(p, {}, {}, dtype, rng), {}};
  SetTransposes(p, rng, &c.attrs);
  SetAlpha(rng, &c.attrs);
  return c;
}

// An operand's batch dims: a suffix of the output's (rank 0 included), each dim 1 (broadcast)
// now and then.
std::vector<int64_t> OperandBatch(const std::vector<int64_t>& batch, CaseRng& rng) {
  std::vector<int64_t> dims(batch.end() - rng.Int(0, static_cast<int64_t>(batch.size())),
                            batch.end());
  for (int64_t& d : dims) {
    d = rng.Chance(0.3) ? 1 : d;
  }
  return dims;
}

OpCase BatchMatmulCase(DataType dtype, CaseRng& rng) {
  std::vector<int64_t> batch(static_cast<size_t>(rng.Int(0, 3)));
  for (int64_t& d : batch) {
    d = rng.Chance(0.05) ? 0 : rng.Int(1, 3);
  }
  const Product p = RandomProduct(rng);
  OpCase c{Operands(p, OperandBatch(batch, rng), OperandBatch(batch, rng), dtype, rng), {}};
  SetTransposes(p, rng, &c.attrs);
  SetAlpha(rng, &c.attrs);
  return c;
}

const std::vector<std::string> kActivations(std::begin(kFusedMatmulActivations),
                                            std::end(kFusedMatmulActivations));

OpCase FusedCase(DataType dtype, CaseRng& rng) {
  const Product p = RandomProduct(rng);
  OpCase c{Operands(p, {}, {}, dtype, rng), {}};
  c.inputs.push_back(RandomHostTensor(rng, Shape{p.n}, dtype, -1.0, 1.0));
  SetTransposes(p, rng, &c.attrs);
  const std::string& activation = rng.Pick(kActivations);
  if (activation != "none" || rng.Chance(0.5)) {
    c.attrs.Set(kFusedMatmulActivation, activation);
  }
  if (activation == "leaky_relu" && rng.Chance(0.7)) {
    c.attrs.Set(kFusedMatmulLeakyAlpha, rng.Uniform(-1.0, 1.0));
  }
  return c;
}

// The attrs with the op's defaults filled in, as the op sees them.
Maybe<AttrMap> CompleteAttrs(const std::string& op_type, const AttrMap& attrs) {
  const OpSchema* schema = nullptr;
  OFLITE_ASSIGN_OR_RETURN(schema, OpRegistry::Global().Find(op_type));
  return schema->CompleteAttrs(attrs);
}

// matmul and batch_matmul: one reference (matmul is the case without batch dims).
Maybe<std::vector<HostTensor>> ProductReference(const std::string& op_type, const OpCase& c) {
  AttrMap attrs;
  OFLITE_ASSIGN_OR_RETURN(attrs, CompleteAttrs(op_type, c.attrs));
  bool transpose_a = false, transpose_b = false;
  double alpha = 1;
  OFLITE_ASSIGN_OR_RETURN(transpose_a, attrs.Get<bool>(kMatmulTransposeA));
  OFLITE_ASSIGN_OR_RETURN(transpose_b, attrs.Get<bool>(kMatmulTransposeB));
  OFLITE_ASSIGN_OR_RETURN(alpha, attrs.Get<double>(kMatmulAlpha));
  return std::vector<HostTensor>{
      ReferenceBatchMatmul(c.inputs[0], c.inputs[1], transpose_a, transpose_b, alpha)};
}

Maybe<std::vector<HostTensor>> FusedReference(const OpCase& c) {
  AttrMap attrs;
  OFLITE_ASSIGN_OR_RETURN(attrs, CompleteAttrs(kFusedMatmulBiasActOp, c.attrs));
  bool transpose_a = false, transpose_b = false;
  std::string activation;
  double leaky_alpha = 0;
  OFLITE_ASSIGN_OR_RETURN(transpose_a, attrs.Get<bool>(kMatmulTransposeA));
  OFLITE_ASSIGN_OR_RETURN(transpose_b, attrs.Get<bool>(kMatmulTransposeB));
  OFLITE_ASSIGN_OR_RETURN(activation, attrs.Get<std::string>(kFusedMatmulActivation));
  OFLITE_ASSIGN_OR_RETURN(leaky_alpha, attrs.Get<double>(kFusedMatmulLeakyAlpha));
  return std::vector<HostTensor>{ReferenceFusedMatmulBiasAct(
      c.inputs[0], c.inputs[1], c.inputs[2], transpose_a, transpose_b, activation, leaky_alpha)};
}

double MaxAbs(const HostTensor& t) {
  double m = 0;
  for (double v : t.values) {
    m = std::max(m, std::abs(v));
  }
  return m;
}

// K max|a| max|b| of this case: the size of one output's terms. The stored a is (.., m, k),
// or (.., k, m) when transposed.
double ProductTermSize(const OpCase& c) {
  const HostTensor& a = c.inputs[0];
  const bool transpose_a =
      c.attrs.Has(kMatmulTransposeA) && c.attrs.Get<bool>(kMatmulTransposeA).value();
  const int64_t k = a.shape.rank() < 2 ? 0 : a.shape[a.shape.rank() - (transpose_a ? 2 : 1)];
  return static_cast<double>(k) * MaxAbs(a) * MaxAbs(c.inputs[1]);
}

// A K-term product's rounding error scales with the size of its terms, K max|a| max|b| |alpha|,
// not with the result, which can cancel to near 0; so the absolute part of the dtype's default
// tolerance is taken relative to that size, this case's (at least 1). The fused op adds the
// bias and an activation of slope <= kSteepestActivation; on CUDA its 16-bit gelu, gelu_tanh
// and leaky_relu epilogues also round the biased sum (of size up to the terms plus max|bias|)
// to the dtype before the activation, an error the same bound holds.
Tolerance MatmulTolerance(const OpCase& c, DataType dtype) {
  const double alpha = c.attrs.Has(kMatmulAlpha) ? c.attrs.Get<double>(kMatmulAlpha).value() : 1;
  Tolerance t = DefaultTolerance(dtype);
  t.atol *= std::max(1.0, ProductTermSize(c) * std::abs(alpha));
  return t;
}

Tolerance FusedTolerance(const OpCase& c, DataType dtype) {
  Tolerance t = DefaultTolerance(dtype);
  t.atol *= std::max(1.0, (ProductTermSize(c) + MaxAbs(c.inputs[2])) * kSteepestActivation);
  return t;
}

DataType OtherFloating(DataType dtype) {
  return dtype == DataType::kFloat64 ? DataType::kFloat32 : DataType::kFloat64;
}

// Shape-and-dtype errors every product checks the same way; `rank` is 2 for matmul and the
// fused op, 3 for batch_matmul (its operands get a batch dim of 2), and `extra` the inputs
// after a and b (the fused op's bias, of n = 5).
std::vector<InvalidCase> OperandInvalid(int64_t rank, const std::vector<HostTensor>& extra,
                                        DataType dtype, CaseRng& rng) {
  const auto t = [&](std::vector<int64_t> matrix, DataType d) {
    std::vector<int64_t> dims(static_cast<size_t>(rank - 2), 2);
    dims.insert(dims.end(), matrix.begin(), matrix.end());
    return RandomHostTensor(rng, Shape(dims), d, -1.0, 1.0);
  };
  const auto inputs = [&](HostTensor a, HostTensor b) {
    std::vector<HostTensor> all = {std::move(a), std::move(b)};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  };
  const DataType int_dtype = rng.Pick(
      std::vector<DataType>{DataType::kInt8, DataType::kUInt8, DataType::kInt32, DataType::kInt64});
  return {
      {"inner dims 3 and 4",
       inputs(t({2, 3}, dtype), t({4, 5}, dtype)),
       {},
       ErrorKind::kValueError,
       {"inner dims 3 and 4 differ"}},
      {"inner dims 2 and 3 after both transposes",
       inputs(t({2, 3}, dtype), t({5, 3}, dtype)),
       {{kMatmulTransposeA, true}, {kMatmulTransposeB, true}},
       ErrorKind::kValueError},
      {"a rank-1 a",
       inputs(RandomHostTensor(rng, Shape{3}, dtype), t({3, 5}, dtype)),
       {},
       ErrorKind::kValueError},
      {"a rank-0 b",
       inputs(t({2, 3}, dtype), RandomHostTensor(rng, Shape(), dtype)),
       {},
       ErrorKind::kValueError},
      {"b of another dtype than a",
       inputs(t({2, 3}, dtype), t({3, 5}, OtherFloating(dtype))),
       {},
       ErrorKind::kTypeError},
      {std::string("a and b of ") + DataTypeName(int_dtype),
       inputs(t({2, 3}, int_dtype), t({3, 5}, int_dtype)),
       {},
       ErrorKind::kNotImplemented},
  };
}

std::vector<InvalidCase> MatmulInvalid(DataType dtype, CaseRng& rng) {
  std::vector<InvalidCase> cases = OperandInvalid(2, {}, dtype, rng);
  cases.push_back(
      {"a rank-3 a (batch_matmul multiplies batches)",
       {RandomHostTensor(rng, Shape{2, 2, 3}, dtype), RandomHostTensor(rng, Shape{3, 5}, dtype)},
       {},
       ErrorKind::kValueError});
  cases.push_back(
      {"alpha as a string",
       {RandomHostTensor(rng, Shape{2, 3}, dtype), RandomHostTensor(rng, Shape{3, 5}, dtype)},
       {{kMatmulAlpha, "2"}},
       ErrorKind::kTypeError});
  return cases;
}

std::vector<InvalidCase> BatchMatmulInvalid(DataType dtype, CaseRng& rng) {
  std::vector<InvalidCase> cases = OperandInvalid(3, {}, dtype, rng);
  cases.push_back(
      {"batch dims (2) and (3) that do not broadcast",
       {RandomHostTensor(rng, Shape{2, 3, 4}, dtype), RandomHostTensor(rng, Shape{3, 4, 5}, dtype)},
       {},
       ErrorKind::kValueError});
  return cases;
}

std::vector<InvalidCase> FusedInvalid(DataType dtype, CaseRng& rng) {
  const HostTensor bias = RandomHostTensor(rng, Shape{5}, dtype, -1.0, 1.0);
  std::vector<InvalidCase> cases = OperandInvalid(2, {bias}, dtype, rng);
  const HostTensor a = RandomHostTensor(rng, Shape{4, 6}, dtype, -1.0, 1.0);
  const HostTensor b = RandomHostTensor(rng, Shape{6, 5}, dtype, -1.0, 1.0);
  const auto bias_of = [&](const Shape& shape, DataType d) {
    return std::vector<HostTensor>{a, b, RandomHostTensor(rng, shape, d, -1.0, 1.0)};
  };
  cases.push_back({"activation \"swish\"",
                   {a, b, bias},
                   {{kFusedMatmulActivation, "swish"}},
                   ErrorKind::kValueError});
  cases.push_back(
      {"bias of (4,) for 5 columns", bias_of(Shape{4}, dtype), {}, ErrorKind::kValueError});
  cases.push_back({"bias of (1, 5)", bias_of(Shape{1, 5}, dtype), {}, ErrorKind::kValueError});
  cases.push_back({"bias of another dtype than a",
                   bias_of(Shape{5}, OtherFloating(dtype)),
                   {},
                   ErrorKind::kTypeError});
  cases.push_back({"no bias", {a, b}, {}, ErrorKind::kValueError});
  return cases;
}

OpTestSpec ProductSpec(const std::string& op_type) {
  OpTestSpec spec;
  spec.dtypes = FloatingDataTypes();
  spec.generate = op_type == kMatmulOp ? MatmulCase : BatchMatmulCase;
  spec.reference = [op_type](const OpCase& c) { return ProductReference(op_type, c); };
  spec.tolerance = MatmulTolerance;
  spec.invalid = op_type == kMatmulOp ? MatmulInvalid : BatchMatmulInvalid;
  return spec;
}

OpTestSpec FusedSpec() {
  OpTestSpec spec;
  spec.dtypes = FloatingDataTypes();
  spec.generate = FusedCase;
  spec.reference = FusedReference;
  spec.tolerance = FusedTolerance;
  spec.invalid = FusedInvalid;
  return spec;
}

OFLITE_REGISTER_OP_TEST(kMatmulOp, ProductSpec(kMatmulOp));
OFLITE_REGISTER_OP_TEST(kBatchMatmulOp, ProductSpec(kBatchMatmulOp));
OFLITE_REGISTER_OP_TEST(kFusedMatmulBiasActOp, FusedSpec());

}  // namespace
}  // namespace ops
}  // namespace oflite
