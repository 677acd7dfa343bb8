// Each op's SBP signatures are exactly the valid ones for a 3-D input. Validity is decided
// independently of the op's own list: every candidate (each argument split on any axis,
// broadcast or partial-sum) runs on two simulated ranks, and is valid when reassembling the
// pieces reproduces the single-device result.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "ops/elementwise_ops.h"
#include "ops/matmul_ops.h"
#include "ops/matmul_reference.h"
#include "ops/softmax_ops.h"
#include "ops/transpose_ops.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

constexpr int kRanks = 2;

struct HostTensor {
  Shape shape;
  std::vector<double> values;
};

// Piece `rank` of `t` split in kRanks along `axis`.
HostTensor SplitPiece(const HostTensor& t, int64_t axis, int rank) {
  const int64_t outer = t.shape.Count(0, axis), inner = t.shape.Count(axis + 1, t.shape.rank());
  const int64_t piece = t.shape[axis] / kRanks;
  HostTensor out{t.shape, {}};
  out.shape.Set(axis, piece);
  for (int64_t o = 0; o < outer; ++o) {
    const auto begin = t.values.begin() + (o * t.shape[axis] + rank * piece) * inner;
    out.values.insert(out.values.end(), begin, begin + piece * inner);
  }
  return out;
}

HostTensor Concat(const std::vector<HostTensor>& pieces, int64_t axis) {
  HostTensor out{pieces[0].shape, {}};
  out.shape.Set(axis, pieces[0].shape[axis] * kRanks);
  const int64_t outer = out.shape.Count(0, axis);
  for (int64_t o = 0; o < outer; ++o) {
    for (const HostTensor& p : pieces) {
      const int64_t block = p.shape.Count(axis, p.shape.rank());
      const auto begin = p.values.begin() + o * block;
      out.values.insert(out.values.end(), begin, begin + block);
    }
  }
  return out;
}

bool SameAs(const HostTensor& a, const HostTensor& b) {
  if (a.shape != b.shape) {
    return false;
  }
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (std::isnan(a.values[i]) || std::isnan(b.values[i])) {  // a NaN matches only a NaN
      if (std::isnan(a.values[i]) != std::isnan(b.values[i])) {
        return false;
      }
      continue;
    }
    if (std::abs(a.values[i] - b.values[i]) > 1e-9 * std::max(1.0, std::abs(b.values[i]))) {
      return false;
    }
  }
  return true;
}

std::vector<Sbp> Candidates(int64_t rank) {
  std::vector<Sbp> all;
  for (int64_t axis = 0; axis < rank; ++axis) {
    all.push_back(SplitSbp(axis));
  }
  all.push_back(BroadcastSbp());
  all.push_back(PartialSumSbp());
  return all;
}

class SbpSimulation {
 public:
  SbpSimulation(std::string op_type, std::vector<HostTensor> inputs, AttrMap attrs)
      : op_type_(std::move(op_type)), inputs_(std::move(inputs)), attrs_(std::move(attrs)) {
    schema_ = Unwrap(OpRegistry::Global().Find(op_type_));
    full_ = Run(inputs_).value();
  }

  // Every candidate signature that reproduces the single-device result, as strings.
  std::set<std::string> ValidSignatures() {
    std::vector<std::string> args = ArgOrder();
    std::set<std::string> valid;
    std::vector<Sbp> chosen(args.size());
    std::function<void(size_t)> choose = [&](size_t i) {
      if (i == args.size()) {
        SbpSignature signature;
        for (size_t k = 0; k < args.size(); ++k) {
          signature[args[k]] = chosen[k];
        }
        if (IsValid(chosen)) {
          valid.insert(SbpSignatureToString(signature, args));
        }
        return;
      }
      const int64_t rank =
          i < inputs_.size() ? inputs_[i].shape.rank() : full_[i - inputs_.size()].shape.rank();
      for (const Sbp& sbp : Candidates(rank)) {
        chosen[i] = sbp;
        choose(i + 1);
      }
    };
    choose(0);
    return valid;
  }

  // What the op lists, as strings.
  std::set<std::string> ListedSignatures() {
    std::vector<TensorDesc> descs;
    for (const HostTensor& t : inputs_) {
      descs.push_back({t.shape, DataType::kFloat64});
    }
    const AttrMap complete = Unwrap(schema_->CompleteAttrs(attrs_));
    std::set<std::string> listed;
    for (const SbpSignature& s : Unwrap(schema_->SbpSignatures(descs, complete))) {
      listed.insert(SbpSignatureToString(s, ArgOrder()));
    }
    return listed;
  }

 private:
  std::vector<std::string> ArgOrder() const {
    std::vector<std::string> args = schema_->inputs();
    args.insert(args.end(), schema_->outputs().begin(), schema_->outputs().end());
    return args;
  }

  Maybe<std::vector<HostTensor>> Run(const std::vector<HostTensor>& inputs) const {
    std::vector<Tensor> tensors;
    for (const HostTensor& t : inputs) {
      tensors.push_back(MakeTensor(t.values, t.shape, DataType::kFloat64));
    }
    std::vector<Tensor> outputs;
    OFLITE_ASSIGN_OR_RETURN(outputs, Dispatch(op_type_, tensors, attrs_));
    std::vector<HostTensor> host;
    for (const Tensor& t : outputs) {
      host.push_back({t.shape(), ToDoubles(t)});
    }
    return host;
  }

  // The local input of `rank` under `sbp`; partial-sum pieces are random and add up to t.
  HostTensor LocalInput(const HostTensor& t, const Sbp& sbp, int rank, uint64_t seed) const {
    if (sbp.is_split()) {
      return SplitPiece(t, sbp.axis(), rank);
    }
    if (sbp.is_broadcast()) {
      return t;
    }
    HostTensor part{t.shape, RandomValues(t.values.size(), seed)};
    if (rank == kRanks - 1) {
      for (size_t i = 0; i < t.values.size(); ++i) {
        part.values[i] = t.values[i] - part.values[i];
      }
    }
    return part;
  }

  // Reassembles one output from its per-rank pieces and compares with the full result.
  static bool Reassembles(const std::vector<HostTensor>& pieces, const Sbp& sbp,
                          const HostTensor& full) {
    if (sbp.is_split()) {
      const int64_t axis = sbp.axis();
      for (const HostTensor& p : pieces) {
        if (p.shape.rank() != full.shape.rank()) {
          return false;
        }
      }
      return SameAs(Concat(pieces, axis), full);
    }
    if (sbp.is_broadcast()) {
      for (const HostTensor& p : pieces) {
        if (!SameAs(p, full)) {
          return false;
        }
      }
      return true;
    }
    HostTensor sum = pieces[0];
    for (size_t r = 1; r < pieces.size(); ++r) {
      if (pieces[r].shape != sum.shape) {
        return false;
      }
      for (size_t i = 0; i < sum.values.size(); ++i) {
        sum.values[i] += pieces[r].values[i];
      }
    }
    return SameAs(sum, full);
  }

  bool IsValid(const std::vector<Sbp>& chosen) const {
    // the same partial-sum split for every candidate keeps the check deterministic
    std::vector<std::vector<HostTensor>> outputs_per_rank;
    for (int rank = 0; rank < kRanks; ++rank) {
      std::vector<HostTensor> local;
      for (size_t i = 0; i < inputs_.size(); ++i) {
        local.push_back(LocalInput(inputs_[i], chosen[i], rank, 1000 + i));
      }
      Maybe<std::vector<HostTensor>> out = Run(local);
      if (!out.ok()) {
        return false;
      }  // e.g. pieces of mismatched shapes
      outputs_per_rank.push_back(out.value());
    }
    for (size_t o = 0; o < full_.size(); ++o) {
      std::vector<HostTensor> pieces;
      for (const auto& outs : outputs_per_rank) {
        pieces.push_back(outs[o]);
      }
      if (!Reassembles(pieces, chosen[inputs_.size() + o], full_[o])) {
        return false;
      }
    }
    return true;
  }

  std::string op_type_;
  std::vector<HostTensor> inputs_;
  AttrMap attrs_;
  const OpSchema* schema_ = nullptr;
  std::vector<HostTensor> full_;
};

const Shape kShape3d = {4, 6, 8};  // even dims: every axis splits in two

HostTensor Random3d(uint64_t seed) {
  return {kShape3d, RandomValues(static_cast<size_t>(kShape3d.elem_cnt()), seed)};
}

void ExpectListedAreExactlyValid(SbpSimulation simulation, const std::string& what) {
  const std::set<std::string> valid = simulation.ValidSignatures();
  const std::set<std::string> listed = simulation.ListedSignatures();
  EXPECT_FALSE(valid.empty()) << what;
  EXPECT_EQ(listed, valid) << what;
}

TEST(SbpSignatures, SoftmaxAndLogSoftmaxListExactlyTheValidOnes) {
  for (const char* op : {ops::kSoftmaxOp, ops::kLogSoftmaxOp}) {
    ExpectListedAreExactlyValid(SbpSimulation(op, {Random3d(1)}, {}), op);
  }
}

TEST(SbpSignatures, GradsListExactlyTheValidOnes) {
  for (const char* op : {ops::kSoftmaxGradOp, ops::kLogSoftmaxGradOp}) {
    ExpectListedAreExactlyValid(SbpSimulation(op, {Random3d(2), Random3d(3)}, {}), op);
  }
}

TEST(SbpSignatures, TransposeListsExactlyTheValidOnesForEveryPermutation) {
  std::vector<int64_t> perm = {0, 1, 2};
  do {
    ExpectListedAreExactlyValid(
        SbpSimulation(ops::kTransposeOp, {Random3d(4)}, {{ops::kTransposePerm, perm}}),
        "transpose perm " + AttrValueToString(AttrValue(perm)));
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(SbpSignatures, SoftmaxNeverSplitsTheLastAxis) {
  SbpSimulation simulation(ops::kSoftmaxOp, {Random3d(5)}, {});
  for (const std::string& s : simulation.ListedSignatures()) {
    EXPECT_EQ(s.find("S(2)"), std::string::npos) << s;
  }
}

// Values in [0.5, 2): log, sqrt, rsqrt and pow stay real, so NaN never hides a mismatch.
HostTensor Positive(const Shape& shape, uint64_t seed) {
  return {shape, RandomValues(static_cast<size_t>(shape.elem_cnt()), seed, 0.5, 2.0)};
}

HostTensor SmallIntegers(const Shape& shape, uint64_t seed) {
  HostTensor t = {shape, RandomValues(static_cast<size_t>(shape.elem_cnt()), seed, 0.0, 3.0)};
  for (double& v : t.values) {
    v = std::floor(v);
  }
  return t;
}

TEST(SbpSignatures, BinaryOpsListExactlyTheValidOnesForBroadcastShapes) {
  const std::vector<std::pair<Shape, Shape>> shapes = {{kShape3d, kShape3d},
                                                       {kShape3d, Shape{6, 1}},
                                                       {kShape3d, Shape{8}},
                                                       {Shape{4, 1, 8}, kShape3d}};
  for (primitive::BinaryOp op : ops::BinaryOpTypes()) {
    if (ops::IsGradOp(op)) {
      continue;
    }
    for (const auto& [a, b] : shapes) {
      const std::string what =
          std::string(primitive::BinaryOpName(op)) + " " + a.ToString() + " with " + b.ToString();
      // eq and ne of continuous values are constant (never equal), which any split reproduces:
      // comparisons get small integers, equal often enough to tell the signatures apart
      const bool ties = primitive::IsComparison(op);
      ExpectListedAreExactlyValid(SbpSimulation(primitive::BinaryOpName(op),
                                                {ties ? SmallIntegers(a, 5) : Positive(a, 5),
                                                 ties ? SmallIntegers(b, 6) : Positive(b, 6)},
                                                {}),
                                  what);
    }
  }
}

TEST(SbpSignatures, ActivationGradsListExactlyTheValidOnes) {
  for (primitive::BinaryOp op : ops::BinaryOpTypes()) {
    if (ops::IsGradOp(op)) {
      ExpectListedAreExactlyValid(
          SbpSimulation(primitive::BinaryOpName(op), {Random3d(7), Random3d(8)}, {}),
          primitive::BinaryOpName(op));
    }
  }
}

TEST(SbpSignatures, UnaryOpsListExactlyTheValidOnes) {
  for (primitive::UnaryOp op : ops::UnaryOpTypes()) {
    ExpectListedAreExactlyValid(
        SbpSimulation(primitive::UnaryOpName(op), {Positive(kShape3d, 9)}, {}),
        primitive::UnaryOpName(op));
  }
}

TEST(SbpSignatures, ScalarBinaryOpsListExactlyTheValidOnesOnEitherSide) {
  for (primitive::BinaryOp op : ops::BinaryOpTypes()) {
    if (ops::IsGradOp(op)) {
      continue;
    }
    for (bool scalar_first : {false, true}) {
      const bool ties = primitive::IsComparison(op);  // as for the tensor-tensor comparisons
      const AttrMap attrs = {{ops::kScalarFloatOperand, ties ? 1.0 : 1.5},
                             {ops::kScalarHasFloatOperand, true},
                             {ops::kScalarFirst, scalar_first}};
      ExpectListedAreExactlyValid(
          SbpSimulation(ops::ScalarOpType(op),
                        {ties ? SmallIntegers(kShape3d, 11) : Positive(kShape3d, 11)}, attrs),
          ops::ScalarOpType(op) + (scalar_first ? " scalar first" : " scalar second"));
    }
  }
}

TEST(SbpSignatures, CastListsExactlyTheValidOnes) {
  ExpectListedAreExactlyValid(
      SbpSimulation(ops::kCastOp, {Random3d(10)}, {{ops::kCastDtype, DataType::kInt64}}),
      "cast to int64");
}

HostTensor RandomOf(const Shape& shape, uint64_t seed) {
  return {shape, RandomValues(static_cast<size_t>(shape.elem_cnt()), seed)};
}

// (m, k) @ (k, n) with m = 4, k = 6, n = 8, stored as the transposes ask.
AttrMap MatmulAttrs(bool ta, bool tb) {
  return {{ops::kMatmulTransposeA, ta}, {ops::kMatmulTransposeB, tb}};
}

std::string MatmulWhat(const char* op, const Shape& a, const Shape& b, bool ta, bool tb) {
  return std::string(op) + " " + a.ToString() + " @ " + b.ToString() + (ta ? " ta" : "") +
         (tb ? " tb" : "");
}

TEST(SbpSignatures, MatmulListsExactlyTheValidOnesForEveryTransposeCombination) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const Shape a = ta ? Shape{6, 4} : Shape{4, 6};
      const Shape b = tb ? Shape{8, 6} : Shape{6, 8};
      ExpectListedAreExactlyValid(
          SbpSimulation(ops::kMatmulOp, {RandomOf(a, 20), RandomOf(b, 21)}, MatmulAttrs(ta, tb)),
          MatmulWhat(ops::kMatmulOp, a, b, ta, tb));
    }
  }
}

TEST(SbpSignatures, MatmulSplitsRowsColumnsOrTheInnerDim) {
  SbpSimulation simulation(ops::kMatmulOp, {RandomOf({4, 6}, 22), RandomOf({6, 8}, 23)}, {});
  const std::set<std::string> listed = simulation.ListedSignatures();
  const std::vector<std::string> args = {ops::kMatmulA, ops::kMatmulB, ops::kMatmulOut};
  auto signature = [&](const Sbp& a, const Sbp& b, const Sbp& out) {
    SbpSignature s;
    s[ops::kMatmulA] = a;
    s[ops::kMatmulB] = b;
    s[ops::kMatmulOut] = out;
    return SbpSignatureToString(s, args);
  };
  const Sbp B = BroadcastSbp(), P = PartialSumSbp();
  const std::set<std::string> expected = {signature(SplitSbp(0), B, SplitSbp(0)),
                                          signature(B, SplitSbp(1), SplitSbp(1)),
                                          signature(SplitSbp(1), SplitSbp(0), P),
                                          signature(B, B, B),
                                          signature(P, B, P),
                                          signature(B, P, P)};
  EXPECT_EQ(listed, expected);
}

TEST(SbpSignatures, BatchMatmulListsExactlyTheValidOnes) {
  struct Case {
    Shape a, b;  // before transposes: (.., 4, 6) and (.., 6, 8)
  };
  const Case cases[] = {{{2, 4, 6}, {2, 6, 8}},
                        {{2, 4, 6}, {6, 8}},
                        {{4, 6}, {2, 6, 8}},
                        {{1, 4, 6}, {2, 6, 8}},
                        {{2, 2, 4, 6}, {2, 6, 8}}};
  for (const Case& c : cases) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        ExpectListedAreExactlyValid(
            SbpSimulation(ops::kBatchMatmulOp,
                          {RandomOf(StoredShape(c.a, ta), 24), RandomOf(StoredShape(c.b, tb), 25)},
                          MatmulAttrs(ta, tb)),
            MatmulWhat(ops::kBatchMatmulOp, StoredShape(c.a, ta), StoredShape(c.b, tb), ta, tb));
      }
    }
  }
}

// fused_matmul_bias_act with positive inputs, in every transpose combination. gelu and
// gelu_tanh bend everywhere: the listed signatures are exactly the valid ones. none is affine,
// and relu and leaky_relu are too where the sums stay positive, so partial sums may reproduce
// the result for them: what is listed must be valid.
TEST(SbpSignatures, FusedMatmulBiasActListsExactlyTheValidOnes) {
  for (const char* activation : {"gelu", "gelu_tanh", "none", "relu", "leaky_relu"}) {
    const bool bends = std::string(activation).rfind("gelu", 0) == 0;
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        const Shape a = ta ? Shape{6, 4} : Shape{4, 6};
        const Shape b = tb ? Shape{8, 6} : Shape{6, 8};
        AttrMap attrs = MatmulAttrs(ta, tb);
        attrs.Set(ops::kFusedMatmulActivation, AttrValue(activation));
        SbpSimulation simulation(ops::kFusedMatmulBiasActOp,
                                 {Positive(a, 26), Positive(b, 27), Positive({8}, 28)}, attrs);
        const std::string what =
            MatmulWhat(ops::kFusedMatmulBiasActOp, a, b, ta, tb) + " " + activation;
        if (bends) {
          ExpectListedAreExactlyValid(simulation, what);
          continue;
        }
        const std::set<std::string> valid = simulation.ValidSignatures();
        for (const std::string& s : simulation.ListedSignatures()) {
          EXPECT_EQ(valid.count(s), 1u) << what << ": " << s;
        }
      }
    }
  }
}

TEST(SbpSignatures, FusedMatmulBiasActSplitsRowsOrColumnsButNeverSums) {
  const std::vector<std::string> args = {ops::kMatmulA, ops::kMatmulB, ops::kFusedMatmulBias,
                                         ops::kMatmulOut};
  auto signature = [&](const Sbp& a, const Sbp& b, const Sbp& bias, const Sbp& out) {
    SbpSignature s;
    s[ops::kMatmulA] = a;
    s[ops::kMatmulB] = b;
    s[ops::kFusedMatmulBias] = bias;
    s[ops::kMatmulOut] = out;
    return SbpSignatureToString(s, args);
  };
  const Sbp B = BroadcastSbp();
  const std::set<std::string> expected = {signature(SplitSbp(0), B, B, SplitSbp(0)),
                                          signature(B, SplitSbp(1), SplitSbp(0), SplitSbp(1)),
                                          signature(B, B, B, B)};
  for (const char* activation : {"none", "gelu"}) {
    SbpSimulation simulation(ops::kFusedMatmulBiasActOp,
                             {Positive({4, 6}, 29), Positive({6, 8}, 30), Positive({8}, 31)},
                             {{ops::kFusedMatmulActivation, activation}});
    EXPECT_EQ(simulation.ListedSignatures(), expected) << activation;
    // what it lists is valid for "none" too, though not all that is
    const std::set<std::string> valid = simulation.ValidSignatures();
    for (const std::string& s : expected) {
      EXPECT_EQ(valid.count(s), 1u) << activation << ": " << s;
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace oflite
