// Op tests of the tensor-scalar ops (scalar_add ... scalar_ge): one spec builder, registered for
// every binary op type that has a scalar form, against ops/elementwise_reference.h. The scalar
// comes in attrs as functional::BinaryWithScalar sends it: an int64 for integer tensors and half
// the time for floating ones, otherwise a double; on either side (scalar_first). Bool tensors,
// which functional promotes first, take an int64 0 or 1.
#include <string>
#include <vector>

#include "oneflow_lite/framework/op_test_spec.h"
#include "ops/elementwise_ops.h"
#include "ops/elementwise_reference.h"
#include "ops/elementwise_test_cases.h"

namespace oflite {
namespace ops {
namespace {

using primitive::BinaryOp;

std::vector<DataType> ScalarDtypes(BinaryOp op) {
  return DtypesWhere([op](DataType dtype) { return BinaryOpAccepts(op, dtype); });
}

// One value from `range` as the attrs carry it. A float operand is drawn in the compute type
// (float64 for float64 tensors, float32 otherwise), which holds it exactly, so that ties and
// comparisons come out as the reference decides them; an integer operand is a whole number (0 or
// 1 for bool tensors).
void SetScalarOperand(DataType dtype, const ValueRange& range, CaseRng& rng, AttrMap* attrs) {
  const bool has_float = IsFloatingDataType(dtype) && rng.Chance(0.5);
  attrs->Set(kScalarHasFloatOperand, has_float);
  if (has_float) {
    const DataType compute = dtype == DataType::kFloat64 ? dtype : DataType::kFloat32;
    attrs->Set(kScalarFloatOperand, RandomOperand(rng, Shape{}, compute, range).values[0]);
  } else {
    const DataType whole = dtype == DataType::kBool ? dtype : DataType::kInt64;
    const double value = RandomOperand(rng, Shape{}, whole, range).values[0];
    attrs->Set(kScalarIntOperand, static_cast<int64_t>(value));
  }
}

// The tensor takes the range of the side it is on: x op s, or s op x when scalar_first (left
// out half the time when false, its default).
OpCase ScalarCase(BinaryOp op, DataType dtype, CaseRng& rng) {
  const bool scalar_first = rng.Chance(0.5);
  const OperandRanges ranges = BinaryOperandRanges(op, dtype, rng);
  OpCase c;
  c.inputs.push_back(
      RandomOperand(rng, ElementwiseShape(rng), dtype, scalar_first ? ranges.b : ranges.a));
  SetScalarOperand(dtype, scalar_first ? ranges.a : ranges.b, rng, &c.attrs);
  if (scalar_first || rng.Chance(0.5)) {
    c.attrs.Set(kScalarFirst, scalar_first);
  }
  return c;
}

Maybe<double> ScalarOperand(const AttrMap& attrs) {
  bool has_float = false;
  OFLITE_ASSIGN_OR_RETURN(has_float, AttrOr(attrs, kScalarHasFloatOperand, false));
  if (has_float) {
    return AttrOr(attrs, kScalarFloatOperand, 0.0);
  }
  int64_t value = 0;
  OFLITE_ASSIGN_OR_RETURN(value, AttrOr(attrs, kScalarIntOperand, int64_t{0}));
  return static_cast<double>(value);
}

// y[i] = x[i] op s (s op x[i] when scalar_first): bool for comparisons, else x's dtype.
Maybe<std::vector<HostTensor>> ScalarReference(BinaryOp op, const OpCase& c) {
  double s = 0;
  bool scalar_first = false;
  OFLITE_ASSIGN_OR_RETURN(s, ScalarOperand(c.attrs));
  OFLITE_ASSIGN_OR_RETURN(scalar_first, AttrOr(c.attrs, kScalarFirst, false));
  const HostTensor& x = c.inputs[0];
  HostTensor y{x.shape, primitive::IsComparison(op) ? DataType::kBool : x.dtype, x.values};
  for (double& v : y.values) {
    const double r = scalar_first ? ReferenceBinary(op, s, v) : ReferenceBinary(op, v, s);
    v = ReferenceStore(r, y.dtype);
  }
  return std::vector<HostTensor>{y};
}

OpTestSpec ScalarSpec(BinaryOp op) {
  OpTestSpec spec;
  spec.dtypes = ScalarDtypes(op);
  spec.generate = [op](DataType dtype, CaseRng& rng) { return ScalarCase(op, dtype, rng); };
  spec.reference = [op](const OpCase& c) { return ScalarReference(op, c); };
  spec.invalid = [op](DataType dtype, CaseRng& rng) {
    const OpCase valid = ScalarCase(op, dtype, rng);
    std::vector<InvalidCase> cases = CommonInvalidCases(valid, ScalarDtypes(op), rng);
    cases.push_back(WithAttr(valid, kScalarIntOperand, 2.5, ErrorKind::kTypeError));
    cases.push_back(WithAttr(valid, kScalarFirst, int64_t{1}, ErrorKind::kTypeError));
    return cases;
  };
  return spec;
}

const bool kScalarOpTestsRegistered = [] {
  for (BinaryOp op : BinaryOpTypes()) {
    if (!IsGradOp(op)) {
      OpTestRegistry::Global().Register(ScalarOpType(op), ScalarSpec(op));
    }
  }
  return true;
}();

}  // namespace
}  // namespace ops
}  // namespace oflite
