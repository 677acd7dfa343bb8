// Op tests of the unary ops (neg ... leaky_relu), registered for every op type of
// ops::UnaryOpTypes() from one spec builder, and of cast; against ops/elementwise_reference.h.
#include <string>
#include <utility>
#include <vector>

#include "oneflow_lite/framework/op_test_spec.h"
#include "ops/elementwise_ops.h"
#include "ops/elementwise_reference.h"
#include "ops/elementwise_test_cases.h"

namespace oflite {
namespace ops {
namespace {

using primitive::UnaryOp;

// ---- unary math and activations -------------------------------------------------------------

std::vector<DataType> UnaryDtypes(UnaryOp op) {
  return DtypesWhere([op](DataType dtype) { return UnaryOpAccepts(op, dtype); });
}

// Each op's domain: log, sqrt and rsqrt positive; exp, sigmoid, tanh and the activations far
// enough out to saturate. Integers for neg, abs and relu: uint8 negation wraps (as in PyTorch),
// int8 stays off -128, whose negation wraps to itself.
ValueRange UnaryRange(UnaryOp op, DataType dtype) {
  switch (op) {
    case UnaryOp::kNeg:
    case UnaryOp::kAbs:
    case UnaryOp::kRelu:
      return IsFloatingDataType(dtype)   ? ValueRange{-4, 4}
             : dtype == DataType::kUInt8 ? ValueRange{0, 200}
                                         : ValueRange{-100, 100};
    case UnaryOp::kLog:
    case UnaryOp::kSqrt:
    case UnaryOp::kRsqrt:
      return {0.05, 8};
    default:
      return {-8, 8};
  }
}

OpCase UnaryCase(UnaryOp op, DataType dtype, CaseRng& rng) {
  OpCase c;
  c.inputs.push_back(RandomOperand(rng, ElementwiseShape(rng), dtype, UnaryRange(op, dtype)));
  SetRandomActivationAttrs(op == UnaryOp::kGelu, op == UnaryOp::kLeakyRelu, rng, &c.attrs);
  return c;
}

// y[i] = op(x[i]) in x's dtype.
Maybe<std::vector<HostTensor>> UnaryReference(UnaryOp op, const OpCase& c) {
  bool tanh_form = false;
  double alpha = 0;
  OFLITE_ASSIGN_OR_RETURN(tanh_form, UsesTanhForm(c.attrs));
  OFLITE_ASSIGN_OR_RETURN(alpha, LeakyReluAlpha(c.attrs));
  const UnaryOp math = op == UnaryOp::kGelu && tanh_form ? UnaryOp::kGeluTanh : op;
  HostTensor y = c.inputs[0];
  for (double& v : y.values) {
    v = ReferenceStore(ReferenceUnary(math, v, alpha), y.dtype);
  }
  return std::vector<HostTensor>{y};
}

OpTestSpec UnarySpec(UnaryOp op) {
  OpTestSpec spec;
  spec.dtypes = UnaryDtypes(op);
  spec.generate = [op](DataType dtype, CaseRng& rng) { return UnaryCase(op, dtype, rng); };
  spec.reference = [op](const OpCase& c) { return UnaryReference(op, c); };
  spec.invalid = [op](DataType dtype, CaseRng& rng) {
    const OpCase valid = UnaryCase(op, dtype, rng);
    std::vector<InvalidCase> cases = CommonInvalidCases(valid, UnaryDtypes(op), rng);
    for (InvalidCase& c :
         ActivationAttrInvalidCases(valid, op == UnaryOp::kGelu, op == UnaryOp::kLeakyRelu)) {
      cases.push_back(std::move(c));
    }
    return cases;
  };
  return spec;
}

// ---- cast -------------------------------------------------------------------------------------

// Floating sources in [-4, 4), or half the time [-300, 300) so that int8 and uint8 destinations
// saturate; integer sources over int8's and uint8's whole range and within 1e5 for int32 and int64
// (exact in float32: no destination rounds twice), negative ones wrapping into uint8.
HostTensor CastSource(CaseRng& rng, const Shape& shape, DataType dtype) {
  double bound = rng.Chance(0.5) ? 300 : 4;
  if (dtype == DataType::kInt8 || dtype == DataType::kUInt8) {
    const bool is_signed = dtype == DataType::kInt8;
    return RandomHostTensor(rng, shape, dtype, is_signed ? -128 : 0, is_signed ? 127 : 255);
  }
  if (!IsFloatingDataType(dtype)) {
    bound = 1e5;
  }
  return RandomHostTensor(rng, shape, dtype, -bound, bound);
}

OpCase CastCase(DataType dtype, CaseRng& rng) {
  OpCase c;
  c.inputs.push_back(CastSource(rng, ElementwiseShape(rng), dtype));
  c.attrs.Set(kCastDtype, rng.Pick(AllDataTypes()));
  return c;
}

Maybe<std::vector<HostTensor>> CastReference(const OpCase& c) {
  DataType to = DataType::kFloat32;
  OFLITE_ASSIGN_OR_RETURN(to, c.attrs.Get<DataType>(kCastDtype));
  const HostTensor& x = c.inputs[0];
  HostTensor y{x.shape, to, x.values};
  for (double& v : y.values) {
    v = ReferenceCast(v, x.dtype, to);
  }
  return std::vector<HostTensor>{y};
}

// x of any dtype -> y of attr dtype. Exact: the cast rounds once, as the reference does.
OpTestSpec CastSpec() {
  OpTestSpec spec;
  spec.dtypes = AllDataTypes();
  spec.generate = CastCase;
  spec.reference = CastReference;
  spec.tolerance = [](const OpCase&, DataType) { return Tolerance{0, 0}; };
  spec.invalid = [](DataType dtype, CaseRng& rng) {
    const OpCase valid = CastCase(dtype, rng);
    std::vector<InvalidCase> cases = CommonInvalidCases(valid, AllDataTypes(), rng);
    cases.push_back({"no dtype attribute", valid.inputs, {}, ErrorKind::kValueError});
    cases.push_back(WithAttr(valid, kCastDtype, static_cast<DataType>(42), ErrorKind::kValueError));
    cases.push_back(WithAttr(valid, kCastDtype, "float32", ErrorKind::kTypeError));
    return cases;
  };
  return spec;
}

const bool kUnaryOpTestsRegistered = [] {
  for (UnaryOp op : UnaryOpTypes()) {
    OpTestRegistry::Global().Register(primitive::UnaryOpName(op), UnarySpec(op));
  }
  OpTestRegistry::Global().Register(kCastOp, CastSpec());
  return true;
}();

}  // namespace
}  // namespace ops
}  // namespace oflite
