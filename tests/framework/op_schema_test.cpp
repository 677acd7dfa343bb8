// OpSchema: attribute completion, inference, SBP signatures and their text forms, checked on the
// shipped ops through the registry.
#include "oneflow_lite/framework/op_schema.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/proto/op_catalog.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

const OpSchema& Schema(const std::string& op) { return *Unwrap(OpRegistry::Global().Find(op)); }

// Each signature as text, e.g. "x:S(1) y:S(0)", for order-free comparison.
std::set<std::string> SignatureTexts(const std::vector<SbpSignature>& signatures,
                                     const std::vector<std::string>& args) {
  std::set<std::string> texts;
  for (const SbpSignature& s : signatures) {
    texts.insert(SbpSignatureToString(s, args));
  }
  return texts;
}

TEST(SbpTest, ToString) {
  EXPECT_EQ(SbpToString(SplitSbp(1)), "S(1)");
  EXPECT_EQ(SbpToString(SplitSbp(0)), "S(0)");
  EXPECT_EQ(SbpToString(BroadcastSbp()), "B");
  EXPECT_EQ(SbpToString(PartialSumSbp()), "P");
  EXPECT_EQ(Sbp(), BroadcastSbp());
  EXPECT_TRUE(SplitSbp(3).is_split());
  EXPECT_EQ(SplitSbp(3).axis(), 3);
}

TEST(SbpTest, SignatureToStringFollowsArgOrder) {
  SbpSignature signature;
  signature["x"] = SplitSbp(0);
  signature["y"] = BroadcastSbp();
  EXPECT_EQ(SbpSignatureToString(signature, {"x", "y"}), "x:S(0) y:B");
  EXPECT_EQ(SbpSignatureToString(signature, {"y", "x"}), "y:B x:S(0)");
  EXPECT_EQ(SbpSignatureToString(signature, {"x", "z"}), "x:S(0) z:?");
}

TEST(OpSchemaTest, TransposeInferenceAndSbp) {
  const OpSchema& schema = Schema("transpose");
  const AttrMap attrs = Unwrap(schema.CompleteAttrs({{"perm", std::vector<int64_t>{2, 0, 1}}}));
  const std::vector<TensorDesc> outputs =
      Unwrap(schema.InferOutputs({{Shape({2, 3, 4}), DataType::kInt8}}, attrs));
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].shape, Shape({4, 2, 3}));  // y.shape[i] = x.shape[perm[i]]
  EXPECT_EQ(outputs[0].dtype, DataType::kInt8);

  // y's axis i is x's axis perm[i], so splitting one splits the other.
  const AttrMap swap = Unwrap(schema.CompleteAttrs({{"perm", std::vector<int64_t>{1, 0}}}));
  const auto signatures = Unwrap(schema.SbpSignatures({{Shape({2, 3}), DataType::kFloat32}}, swap));
  EXPECT_EQ(SignatureTexts(signatures, {"x", "y"}),
            (std::set<std::string>{"x:S(1) y:S(0)", "x:S(0) y:S(1)", "x:B y:B", "x:P y:P"}));
}

TEST(OpSchemaTest, SoftmaxSbpNeverSplitsTheLastAxis) {
  const OpSchema& schema = Schema("softmax");
  const AttrMap attrs = Unwrap(schema.CompleteAttrs({}));
  const auto signatures =
      Unwrap(schema.SbpSignatures({{Shape({2, 3, 4}), DataType::kFloat32}}, attrs));
  EXPECT_EQ(SignatureTexts(signatures, {"x", "y"}),
            (std::set<std::string>{"x:S(0) y:S(0)", "x:S(1) y:S(1)", "x:B y:B"}));

  const OpSchema& grad = Schema("softmax_grad");
  const auto grad_signatures = Unwrap(grad.SbpSignatures(
      {{Shape({5, 6}), DataType::kFloat32}, {Shape({5, 6}), DataType::kFloat32}}, attrs));
  EXPECT_EQ(SignatureTexts(grad_signatures, {"y", "dy", "dx"}),
            (std::set<std::string>{"y:S(0) dy:S(0) dx:S(0)", "y:B dy:B dx:B", "y:B dy:P dx:P"}));
}

TEST(OpSchemaTest, CompleteAttrsErrors) {
  const OpSchema& transpose = Schema("transpose");
  ExpectError(transpose.CompleteAttrs({}), ErrorKind::kValueError,
              {"transpose", "'perm'", "list_int64", "missing"});
  ExpectError(transpose.CompleteAttrs({{"perm", std::vector<float>{1, 0}}}), ErrorKind::kTypeError,
              {"transpose", "'perm'", "list_int64", "list_float"});
  ExpectError(transpose.CompleteAttrs({{"perm", std::vector<int64_t>{0}}, {"axes", 1}}),
              ErrorKind::kValueError, {"transpose", "'axes'", "perm"});
  ExpectError(Schema("softmax").CompleteAttrs({{"dim", 1}}), ErrorKind::kValueError,
              {"softmax", "'dim'", "none"});
}

// A number of another numeric type is taken where it converts exactly, and keeps the declared
// type; one that would round, or a non-number, is a TypeError naming both types.
TEST(OpSchemaTest, NumbersConvertWhereExact) {
  const std::vector<AttrDef> defs = {{"eps", AttrType::kDouble, AttrValue(1e-6)},
                                     {"scale", AttrType::kFloat, AttrValue(1.0f)},
                                     {"n", AttrType::kInt64, AttrValue(int64_t{1})}};
  const AttrMap attrs =
      Unwrap(CompleteAttrs("op", defs, {{"eps", 1e-5f}, {"scale", 0.25}, {"n", 3.0}}));
  EXPECT_EQ(Unwrap(attrs.Get<double>("eps")), static_cast<double>(1e-5f));
  EXPECT_EQ(Unwrap(attrs.Get<float>("scale")), 0.25f);
  EXPECT_EQ(Unwrap(attrs.Get<int64_t>("n")), 3);
  EXPECT_EQ(Unwrap(Unwrap(CompleteAttrs("op", defs, {{"eps", 2}})).Get<double>("eps")), 2.0);
  EXPECT_EQ(Unwrap(Unwrap(CompleteAttrs("op", defs, {{"scale", -7}})).Get<float>("scale")), -7.0f);

  // A double literal for a float attribute: taken when float keeps its decimal digits.
  EXPECT_EQ(Unwrap(Unwrap(CompleteAttrs("op", defs, {{"scale", 1e-6}})).Get<float>("scale")),
            1e-6f);
  EXPECT_EQ(Unwrap(Unwrap(CompleteAttrs("op", defs, {{"scale", 0.1}})).Get<float>("scale")), 0.1f);
  ExpectError(CompleteAttrs("op", defs, {{"scale", 1.00000001}}), ErrorKind::kTypeError,
              {"op: attribute 'scale' must be float, got double", "does not convert exactly"});
  ExpectError(CompleteAttrs("op", defs, {{"scale", 1e300}}), ErrorKind::kTypeError,
              {"'scale' must be float"});
  ExpectError(CompleteAttrs("op", defs, {{"n", 2.5}}), ErrorKind::kTypeError,
              {"'n' must be int64, got double 2.5", "does not convert exactly"});
  ExpectError(CompleteAttrs("op", defs, {{"scale", int64_t{16777217}}}), ErrorKind::kTypeError,
              {"'scale' must be float, got int64 16777217"});
  // An integer converts only exactly, even where a decimal rule would round it (123456792).
  ExpectError(CompleteAttrs("op", defs, {{"scale", int64_t{123456790}}}), ErrorKind::kTypeError,
              {"'scale' must be float, got int64 123456790"});
  ExpectError(CompleteAttrs("op", defs, {{"n", 1e300}}), ErrorKind::kTypeError, {"'n'"});
  ExpectError(CompleteAttrs("op", defs, {{"eps", true}}), ErrorKind::kTypeError,
              {"'eps' must be double, got bool"});
}

TEST(OpSchemaTest, InferOutputsChecksInputCount) {
  const OpSchema& softmax = Schema("softmax");
  const AttrMap attrs = Unwrap(softmax.CompleteAttrs({}));
  ExpectError(softmax.InferOutputs({}, attrs), ErrorKind::kValueError, {"softmax", "1", "0"});
}

TEST(OpSchemaTest, OpDefDescribesArgsAndAttrs) {
  const proto::OpDef def = OpDefOf(Schema("transpose"));
  EXPECT_EQ(def.name(), "transpose");
  ASSERT_EQ(def.input_size(), 1);
  EXPECT_EQ(def.input(0).name(), "x");
  ASSERT_EQ(def.attr_size(), 1);
  EXPECT_EQ(def.attr(0).name(), "perm");
  EXPECT_TRUE(def.attr(0).required());
  EXPECT_FALSE(def.attr(0).has_default_value());
  EXPECT_EQ(def.kernel_size(), 0);  // kernels come from the kernel registry, not the schema

  // An op with a default: built here, not registered.
  OpSchemaBuilder builder("unregistered");
  builder.Input("x").Output("y").Attr<float>("alpha", 0.5f).Attr<int64_t>("n");
  const proto::OpDef with_default = OpDefOf(builder.schema());
  ASSERT_EQ(with_default.attr_size(), 2);
  EXPECT_EQ(with_default.attr(0).name(), "alpha");
  EXPECT_EQ(with_default.attr(0).type(), "float");
  EXPECT_FALSE(with_default.attr(0).required());
  EXPECT_EQ(with_default.attr(0).default_value().at_float(), 0.5f);
  EXPECT_EQ(with_default.attr(1).type(), "int64");
  EXPECT_TRUE(with_default.attr(1).required());

  const AttrMap completed = Unwrap(builder.schema().CompleteAttrs({{"n", 4}}));
  EXPECT_EQ(Unwrap(completed.Get<float>("alpha")), 0.5f);
  EXPECT_EQ(Unwrap(completed.Get<int64_t>("n")), 4);
}

}  // namespace
}  // namespace oflite
