// Op names and signature strings: parsing, printing back, the errors a bad signature gives, and
// the registry's rules for names (an op library's ops live in a namespace of their own).
#include "oneflow_lite/framework/op_signature.h"

#include <gtest/gtest.h>

#include "oneflow_lite/common/registration_owner.h"
#include "oneflow_lite/framework/op_registry.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

TEST(OpSignatureTest, ParsesTensorsAttributesAndDefaults) {
  const OpSignature s =
      Unwrap(ParseOpSignature("myns.rms_norm(Tensor x, Tensor weight, float eps=1e-6) -> Tensor"));
  EXPECT_EQ(s.name, "myns.rms_norm");
  EXPECT_EQ(s.inputs, (std::vector<std::string>{"x", "weight"}));
  EXPECT_EQ(s.outputs, (std::vector<std::string>{"out"}));
  ASSERT_EQ(s.attrs.size(), 1u);
  EXPECT_EQ(s.attrs[0].name, "eps");
  EXPECT_EQ(s.attrs[0].type, AttrType::kFloat);
  ASSERT_TRUE(s.attrs[0].default_value.has_value());
  EXPECT_EQ(*s.attrs[0].default_value->TryGet<float>(), 1e-6f);
}

TEST(OpSignatureTest, EveryAttributeTypeAndItsDefault) {
  const OpSignature s = Unwrap(ParseOpSignature(
      "f(Tensor a, bool b=true, int64 i=-3, int j, double d=0.25, str mode='mean', "
      "Shape shape=(2, 3), DataType t=float16, int64[] perm=[2, 0, 1], float[] w=[], "
      "Shape one=(4,)) -> (Tensor y, Tensor z)"));
  EXPECT_EQ(s.outputs, (std::vector<std::string>{"y", "z"}));
  ASSERT_EQ(s.attrs.size(), 10u);
  EXPECT_EQ(*s.attrs[0].default_value, AttrValue(true));
  EXPECT_EQ(*s.attrs[1].default_value, AttrValue(-3));
  EXPECT_EQ(s.attrs[2].type, AttrType::kInt64);
  EXPECT_FALSE(s.attrs[2].default_value.has_value());  // required
  EXPECT_EQ(*s.attrs[3].default_value, AttrValue(0.25));
  EXPECT_EQ(*s.attrs[4].default_value, AttrValue("mean"));
  EXPECT_EQ(*s.attrs[5].default_value, AttrValue(Shape{2, 3}));
  EXPECT_EQ(*s.attrs[6].default_value, AttrValue(DataType::kFloat16));
  EXPECT_EQ(*s.attrs[7].default_value, AttrValue(std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(*s.attrs[8].default_value, AttrValue(std::vector<float>{}));
  EXPECT_EQ(*s.attrs[9].default_value, AttrValue(Shape{4}));
}

// Defaults that need care to print: floats in lists at full precision, quotes in strings, and
// an op without outputs.
TEST(OpSignatureTest, AwkwardDefaultsReadBack) {
  const std::string text =
      "f(Tensor x, float[] w=[0.123456789, 1e-06], str a=\"it's\", str b='say \"hi\"') -> ()";
  const OpSignature s = Unwrap(ParseOpSignature(text));
  EXPECT_TRUE(s.outputs.empty());
  EXPECT_EQ(*s.attrs[0].default_value, AttrValue(std::vector<float>{0.123456789f, 1e-6f}));
  EXPECT_EQ(*s.attrs[1].default_value, AttrValue("it's"));
  EXPECT_EQ(*s.attrs[2].default_value, AttrValue("say \"hi\""));
  const OpSignature back = Unwrap(ParseOpSignature(OpSignatureToString(s)));
  for (size_t i = 0; i < s.attrs.size(); ++i) {
    EXPECT_EQ(back.attrs[i].default_value, s.attrs[i].default_value) << OpSignatureToString(s);
  }
  EXPECT_TRUE(back.outputs.empty());
}

TEST(OpSignatureTest, UnnamedResultsAreOutThenNumbered) {
  EXPECT_EQ(Unwrap(ParseOpSignature("f(Tensor x) -> (Tensor, Tensor)")).outputs,
            (std::vector<std::string>{"out0", "out1"}));
  EXPECT_EQ(Unwrap(ParseOpSignature("f() -> Tensor y")).outputs, std::vector<std::string>{"y"});
}

TEST(OpSignatureTest, BadSignaturesAreValueErrorsSayingWhere) {
  const std::string kWhere = "op signature '";
  ExpectError(ParseOpSignature("f(Tensor x -> Tensor"), ErrorKind::kValueError,
              {kWhere, "expected ')' at position 11"});
  ExpectError(ParseOpSignature("f(Tensor x, long n) -> Tensor"), ErrorKind::kValueError,
              {"expected Tensor or an attribute type", "got 'long'", "double"});
  ExpectError(ParseOpSignature("f(Tensor x)"), ErrorKind::kValueError, {"expected '->'"});
  ExpectError(ParseOpSignature("f(Tensor x) -> int"), ErrorKind::kValueError,
              {"expected a Tensor result"});
  ExpectError(ParseOpSignature("f(Tensor x, float eps=small) -> Tensor"), ErrorKind::kValueError,
              {"a default for 'eps'", "cannot read 'small' as float"});
  ExpectError(ParseOpSignature("f(Tensor x, str s='open) -> Tensor"), ErrorKind::kValueError,
              {"a closing '"});
  ExpectError(ParseOpSignature("f(Tensor x, int x) -> Tensor"), ErrorKind::kValueError,
              {"the name 'x' is used twice"});
  ExpectError(ParseOpSignature("f(Tensor x) -> Tensor x"), ErrorKind::kValueError,
              {"the name 'x' is used twice"});
  ExpectError(ParseOpSignature("f(Tensor x) -> Tensor y z"), ErrorKind::kValueError,
              {"expected the end"});
  ExpectError(ParseOpSignature("1f(Tensor x) -> Tensor"), ErrorKind::kValueError,
              {"expected the op's name"});
  ExpectError(ParseOpSignature("a.b.c(Tensor x) -> Tensor"), ErrorKind::kValueError,
              {"expected '('"});
  ExpectError(ParseOpSignature("f(Tensor) -> Tensor"), ErrorKind::kValueError,
              {"the name of a Tensor parameter"});
  // Keywords are whole words: "Tensorx" is no Tensor parameter, "Tensors" no type.
  ExpectError(ParseOpSignature("f(Tensorx) -> Tensor"), ErrorKind::kValueError,
              {"expected Tensor or an attribute type", "got 'Tensorx'"});
  ExpectError(ParseOpSignature("f(Tensor x) -> Tensory"), ErrorKind::kValueError,
              {"expected a Tensor result"});
}

// Every built-in op's signature, printed and read back, is the same op: names, order, attribute
// types and defaults.
TEST(OpSignatureTest, EveryBuiltInOpReadsBackFromItsSignature) {
  for (const std::string& op : OpRegistry::Global().OpTypes()) {
    const OpSchema* schema = Unwrap(OpRegistry::Global().Find(op));
    const std::string text = schema->Signature();
    const OpSignature parsed = Unwrap(ParseOpSignature(text));
    EXPECT_EQ(parsed.name, schema->name()) << text;
    EXPECT_EQ(parsed.inputs, schema->inputs()) << text;
    EXPECT_EQ(parsed.outputs, schema->outputs()) << text;
    ASSERT_EQ(parsed.attrs.size(), schema->attrs().size()) << text;
    for (size_t i = 0; i < parsed.attrs.size(); ++i) {
      EXPECT_EQ(parsed.attrs[i].name, schema->attrs()[i].name) << text;
      EXPECT_EQ(parsed.attrs[i].type, schema->attrs()[i].type) << text;
      EXPECT_EQ(parsed.attrs[i].default_value, schema->attrs()[i].default_value) << text;
    }
    EXPECT_EQ(OpSignatureToString(parsed), text);
  }
  EXPECT_EQ(Unwrap(OpRegistry::Global().Find("leaky_relu"))->Signature(),
            "leaky_relu(Tensor x, double alpha=0.01) -> Tensor y");
  EXPECT_EQ(Unwrap(OpRegistry::Global().Find("transpose"))->Signature(),
            "transpose(Tensor x, int64[] perm) -> Tensor y");
}

TEST(OpSignatureTest, OpNamesAndNamespaces) {
  EXPECT_TRUE(CheckOpName("softmax").ok());
  EXPECT_TRUE(CheckOpName("myns.rms_norm").ok());
  EXPECT_TRUE(CheckOpName("_a1._b2").ok());
  for (const std::string bad : {"", "1x", "a.b.c", "a.", ".a", "a b", "a-b", "a.(x)"}) {
    ExpectError(CheckOpName(bad), ErrorKind::kValueError, {"'" + bad + "' is not an op name"});
  }
  EXPECT_EQ(OpNamespace("myns.rms_norm"), "myns");
  EXPECT_EQ(OpNamespace("softmax"), "");
}

TEST(OpSignatureTest, ABuilderTakesASignatureOrKeepsItsError) {
  OpSchemaBuilder builder("myns.scale(Tensor x, double factor=2) -> Tensor y");
  builder.SetInferFn(InferSameAsInput("x", "y"));
  EXPECT_TRUE(builder.error().empty());
  EXPECT_EQ(builder.schema().name(), "myns.scale");
  EXPECT_EQ(builder.schema().inputs(), std::vector<std::string>{"x"});
  EXPECT_EQ(builder.schema().Signature(), "myns.scale(Tensor x, double factor=2) -> Tensor y");
  EXPECT_NE(OpSchemaBuilder("f(Tensor x").error().find("op signature 'f(Tensor x'"),
            std::string::npos);
}

// Registrations an op library may not make are refused and recorded for LoadOpLibrary, which
// the scope stands in for here; none of them is registered.
TEST(OpSignatureTest, AnOpLibrarysOpsMustHaveANamespaceOtherThanOflite) {
  std::vector<std::string> refusals;
  {
    RegistrationScope scope("libtest_names.so");
    OpRegistry::Global().Register(OpSchemaBuilder("rms_norm(Tensor x) -> Tensor"));
    OpRegistry::Global().Register(OpSchemaBuilder("oflite.rms_norm(Tensor x) -> Tensor"));
    OpRegistry::Global().Register(OpSchemaBuilder("bad name"));
    OpRegistry::Global().Register(OpSchemaBuilder("names.f(Tensor x -> Tensor"));
    OpRegistry::Global().Register(OpSchemaBuilder("names.rms_norm(Tensor x) -> Tensor"));
    refusals = scope.refusals();
  }
  ASSERT_EQ(refusals.size(), 4u);
  EXPECT_NE(refusals[0].find("op 'rms_norm' without a namespace"), std::string::npos);
  EXPECT_NE(refusals[0].find("'myns.rms_norm'"), std::string::npos);
  EXPECT_NE(refusals[1].find("'oflite', which is reserved"), std::string::npos);
  EXPECT_NE(refusals[2].find("'bad name' is not an op name"), std::string::npos);
  EXPECT_NE(refusals[3].find("signature does not parse"), std::string::npos);
  EXPECT_EQ(OpRegistry::Global().OwnerOf("names.rms_norm"), "libtest_names.so");
  EXPECT_EQ(OpRegistry::Global().OwnerOf("rms_norm"), "");
  EXPECT_EQ(OpRegistry::Global().OwnerOf("oflite.rms_norm"), "");
  // An unknown short name points to the namespaced ops of that name.
  ExpectError(OpRegistry::Global().Find("rms_norm"), ErrorKind::kValueError,
              {"unknown op 'rms_norm'", "ops of that name in a namespace: names.rms_norm"});
  OpRegistry::Global().RemoveOwnedBy("libtest_names.so");
  EXPECT_EQ(OpRegistry::Global().OwnerOf("names.rms_norm"), "");
}

TEST(OpSignatureDeathTest, ABuiltInOpWithABadSignatureIsAProgrammingError) {
  EXPECT_DEATH(OpRegistry::Global().Register(OpSchemaBuilder("f(Tensor x, long n) -> Tensor")),
               "refused registration: an op whose signature does not parse");
}

}  // namespace
}  // namespace oflite
