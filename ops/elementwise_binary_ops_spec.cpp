// Op tests of the broadcast binary ops (add, sub, mul, div, maximum, minimum, pow), the
// comparisons (eq, ne, lt, le, gt, ge) and the activation gradients (relu_grad ...
// leaky_relu_grad): one spec builder per family, registered for every op type of
// ops::BinaryOpTypes(), against ops/elementwise_reference.h.
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

using primitive::BinaryOp;

std::vector<DataType> BinaryDtypes(BinaryOp op) {
  return DtypesWhere([op](DataType dtype) { return BinaryOpAccepts(op, dtype); });
}

// out[i] = op(a[i'], b[i'']) over the broadcast shape of a and b, stored as `dtype` holds it.
HostTensor BroadcastReference(BinaryOp op, const HostTensor& a, const HostTensor& b, DataType dtype,
                              double attr) {
  HostTensor out{BroadcastResultShape(a.shape, b.shape), dtype, {}};
  out.values.resize(static_cast<size_t>(out.shape.elem_cnt()));
  for (size_t i = 0; i < out.values.size(); ++i) {
    const auto flat = static_cast<int64_t>(i);
    const double va = a.values[static_cast<size_t>(BroadcastSourceIndex(flat, out.shape, a.shape))];
    const double vb = b.values[static_cast<size_t>(BroadcastSourceIndex(flat, out.shape, b.shape))];
    out.values[i] = ReferenceStore(ReferenceBinary(op, va, vb, attr), dtype);
  }
  return out;
}

// The two operands of a valid case made incompatible: shapes that do not broadcast (ValueError)
// and the second operand of another dtype (TypeError).
std::vector<InvalidCase> OperandMismatchCases(const OpCase& valid, DataType dtype,
                                              const std::string& x_name, const std::string& y_name,
                                              CaseRng& rng) {
  const auto [a, b] = MismatchedShapes(rng);
  InvalidCase shapes{x_name + " " + a.ToString() + " with " + y_name + " " + b.ToString(),
                     {RandomHostTensor(rng, a, dtype, 0, 3), RandomHostTensor(rng, b, dtype, 0, 3)},
                     valid.attrs,
                     ErrorKind::kValueError};
  InvalidCase dtypes{y_name + " of " + DataTypeName(OtherDtype(dtype)), valid.inputs, valid.attrs,
                     ErrorKind::kTypeError};
  dtypes.inputs[1] = RandomHostTensor(rng, valid.inputs[1].shape, OtherDtype(dtype), 0, 3);
  return {shapes, dtypes};
}

// ---- broadcast binary ops and comparisons ---------------------------------------------------

OpCase BinaryCase(BinaryOp op, DataType dtype, CaseRng& rng) {
  const auto [x_shape, y_shape] = BroadcastingShapes(rng);
  const OperandRanges ranges = BinaryOperandRanges(op, dtype, rng);
  OpCase c;
  c.inputs.push_back(RandomOperand(rng, x_shape, dtype, ranges.a));
  c.inputs.push_back(RandomOperand(rng, y_shape, dtype, ranges.b));
  return c;
}

// Comparisons give bool; the arithmetic ops keep their operands' dtype.
OpTestSpec BinarySpec(BinaryOp op) {
  OpTestSpec spec;
  spec.dtypes = BinaryDtypes(op);
  spec.generate = [op](DataType dtype, CaseRng& rng) { return BinaryCase(op, dtype, rng); };
  spec.reference = [op](const OpCase& c) -> Maybe<std::vector<HostTensor>> {
    const HostTensor &x = c.inputs[0], &y = c.inputs[1];
    const DataType z_dtype = primitive::IsComparison(op) ? DataType::kBool : x.dtype;
    return std::vector<HostTensor>{BroadcastReference(op, x, y, z_dtype, 0.0)};
  };
  spec.invalid = [op](DataType dtype, CaseRng& rng) {
    const OpCase valid = BinaryCase(op, dtype, rng);
    std::vector<InvalidCase> cases = CommonInvalidCases(valid, BinaryDtypes(op), rng);
    for (InvalidCase& c : OperandMismatchCases(valid, dtype, kBinaryX, kBinaryY, rng)) {
      cases.push_back(std::move(c));
    }
    return cases;
  };
  return spec;
}

// ---- activation gradients -------------------------------------------------------------------

// The forward operand: y of sigmoid in [0, 1), y of tanh in [-1, 1); x of gelu, silu and
// leaky_relu, and relu's y (any sign: only its sign matters).
ValueRange GradOperandRange(BinaryOp op) {
  switch (op) {
    case BinaryOp::kSigmoidGrad:
      return {0, 1};
    case BinaryOp::kTanhGrad:
      return {-1, 1};
    default:
      return {-6, 6};
  }
}

OpCase GradCase(BinaryOp op, DataType dtype, CaseRng& rng) {
  const Shape shape = ElementwiseShape(rng);
  OpCase c;
  c.inputs.push_back(RandomOperand(rng, shape, dtype, ValueRange{-4, 4}));
  c.inputs.push_back(RandomOperand(rng, shape, dtype, GradOperandRange(op)));
  SetRandomActivationAttrs(op == BinaryOp::kGeluGrad, op == BinaryOp::kLeakyReluGrad, rng,
                           &c.attrs);
  return c;
}

Maybe<std::vector<HostTensor>> GradReference(BinaryOp op, const OpCase& c) {
  bool tanh_form = false;
  double alpha = 0;
  OFLITE_ASSIGN_OR_RETURN(tanh_form, UsesTanhForm(c.attrs));
  OFLITE_ASSIGN_OR_RETURN(alpha, LeakyReluAlpha(c.attrs));
  const BinaryOp math = op == BinaryOp::kGeluGrad && tanh_form ? BinaryOp::kGeluTanhGrad : op;
  const HostTensor& dy = c.inputs[0];
  return std::vector<HostTensor>{BroadcastReference(math, dy, c.inputs[1], dy.dtype, alpha)};
}

// (dy, y) or (dy, x) of one shape and one floating dtype -> dx of dy's shape and dtype.
OpTestSpec GradSpec(BinaryOp op) {
  OpTestSpec spec;
  spec.dtypes = BinaryDtypes(op);
  spec.generate = [op](DataType dtype, CaseRng& rng) { return GradCase(op, dtype, rng); };
  spec.reference = [op](const OpCase& c) { return GradReference(op, c); };
  spec.invalid = [op](DataType dtype, CaseRng& rng) {
    const OpCase valid = GradCase(op, dtype, rng);
    std::vector<InvalidCase> cases = CommonInvalidCases(valid, BinaryDtypes(op), rng);
    for (InvalidCase& c : OperandMismatchCases(valid, dtype, kGradDy, GradOperand(op), rng)) {
      cases.push_back(std::move(c));
    }
    for (InvalidCase& c : ActivationAttrInvalidCases(valid, op == BinaryOp::kGeluGrad,
                                                     op == BinaryOp::kLeakyReluGrad)) {
      cases.push_back(std::move(c));
    }
    return cases;
  };
  return spec;
}

const bool kBinaryOpTestsRegistered = [] {
  for (BinaryOp op : BinaryOpTypes()) {
    OpTestRegistry::Global().Register(primitive::BinaryOpName(op),
                                      IsGradOp(op) ? GradSpec(op) : BinarySpec(op));
  }
  return true;
}();

}  // namespace
}  // namespace ops
}  // namespace oflite
