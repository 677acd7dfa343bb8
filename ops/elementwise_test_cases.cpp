#include "ops/elementwise_test_cases.h"

#include <algorithm>

#include "ops/elementwise_ops.h"

namespace oflite {
namespace ops {

using primitive::BinaryOp;

// ---- dtypes and shapes ------------------------------------------------------------------------

std::vector<DataType> DtypesWhere(const std::function<bool(DataType)>& accepts) {
  std::vector<DataType> dtypes;
  for (DataType dtype : AllDataTypes()) {
    if (accepts(dtype)) {
      dtypes.push_back(dtype);
    }
  }
  return dtypes;
}

Shape ElementwiseShape(CaseRng& rng) {
  Shape shape = rng.RandomShape(0, 4, 1, 6);
  if (shape.rank() > 0 && rng.Chance(0.1)) {
    shape.Set(rng.Int(0, shape.rank() - 1), 0);
  }
  return shape;
}

namespace {

// `full` with its leading axes left out (a third of the time) and some axes 1 (each a quarter
// of the time).
Shape BroadcastOperandShape(const Shape& full, CaseRng& rng) {
  const int64_t dropped = rng.Chance(1.0 / 3) ? rng.Int(0, full.rank()) : 0;
  std::vector<int64_t> dims(full.dims().begin() + dropped, full.dims().end());
  for (int64_t& d : dims) {
    if (rng.Chance(0.25)) {
      d = 1;
    }
  }
  return Shape(dims);
}

// Dim `axis` of a result of rank `rank` as `shape` has it (1 where it has no such axis).
int64_t AlignedDim(const Shape& shape, int64_t axis, int64_t rank) {
  const int64_t own = axis - (rank - shape.rank());
  return own < 0 ? 1 : shape[own];
}

}  // namespace

std::pair<Shape, Shape> BroadcastingShapes(CaseRng& rng) {
  const Shape full = ElementwiseShape(rng);
  Shape a = BroadcastOperandShape(full, rng);
  Shape b = BroadcastOperandShape(full, rng);
  return {a, b};
}

std::pair<Shape, Shape> MismatchedShapes(CaseRng& rng) {
  const int64_t n = rng.Int(1, 3), k = rng.Int(2, 5);
  return {Shape{n, k}, Shape{n, k + 1}};
}

Shape BroadcastResultShape(const Shape& a, const Shape& b) {
  const int64_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int64_t axis = 0; axis < rank; ++axis) {
    const int64_t da = AlignedDim(a, axis, rank), db = AlignedDim(b, axis, rank);
    dims[static_cast<size_t>(axis)] = da == 1 ? db : da;
  }
  return Shape(dims);
}

int64_t BroadcastSourceIndex(int64_t flat, const Shape& out, const Shape& shape) {
  int64_t index = 0, stride = 1;
  for (int64_t axis = out.rank() - 1; axis >= out.rank() - shape.rank(); --axis) {
    const int64_t coord = flat % out[axis];
    flat /= out[axis];
    const int64_t own = shape[axis - (out.rank() - shape.rank())];
    index += (own == 1 ? 0 : coord) * stride;
    stride *= own;
  }
  return index;
}

// ---- values -----------------------------------------------------------------------------------

HostTensor RandomOperand(CaseRng& rng, const Shape& shape, DataType dtype,
                         const ValueRange& range) {
  // Whole numbers for a floating dtype: drawn as int64, exact in the dtype (|v| <= 256).
  const bool whole = range.whole && IsFloatingDataType(dtype);
  HostTensor t = RandomHostTensor(rng, shape, whole ? DataType::kInt64 : dtype, range.lo, range.hi);
  t.dtype = dtype;
  if (range.either_sign) {
    for (double& v : t.values) {
      v = rng.Chance(0.5) ? -v : v;
    }
  }
  return t;
}

namespace {

OperandRanges PowRanges(DataType dtype, CaseRng& rng) {
  if (!IsFloatingDataType(dtype)) {  // |a^b| <= 3^4 = 81 fits int8
    return {dtype == DataType::kUInt8 ? ValueRange{0, 3} : ValueRange{-3, 3}, ValueRange{0, 4}};
  }
  if (rng.Chance(0.5)) {  // a negative base takes whole exponents: (-2.5)^3
    return {ValueRange{-3, 3}, ValueRange{0, 3, /*whole=*/true}};
  }
  return {ValueRange{0.25, 3}, ValueRange{-3, 3}};  // results in [1/64, 64]
}

}  // namespace

OperandRanges BinaryOperandRanges(BinaryOp op, DataType dtype, CaseRng& rng) {
  const bool floating = IsFloatingDataType(dtype), is_unsigned = dtype == DataType::kUInt8;
  if (op == BinaryOp::kDiv) {  // floating only
    return {ValueRange{-4, 4}, ValueRange{0.25, 4, /*whole=*/false, /*either_sign=*/true}};
  }
  if (op == BinaryOp::kPow) {
    return PowRanges(dtype, rng);
  }
  ValueRange r;
  if (op == BinaryOp::kMul) {  // |a b| <= 100 (int8), 225 (uint8)
    r = floating ? ValueRange{-4, 4} : is_unsigned ? ValueRange{0, 15} : ValueRange{-10, 10};
  } else if (primitive::IsComparison(op)) {
    r = floating      ? ValueRange{-3, 3, /*whole=*/rng.Chance(0.5)}
        : is_unsigned ? ValueRange{0, 6}
                      : ValueRange{-3, 3};
  } else {  // add, sub, maximum, minimum: |a +- b| <= 100; uint8 a - b wraps when b > a
    r = floating ? ValueRange{-4, 4} : is_unsigned ? ValueRange{0, 100} : ValueRange{-50, 50};
  }
  return {r, r};
}

// ---- attrs ------------------------------------------------------------------------------------

void SetRandomActivationAttrs(bool approximate, bool alpha, CaseRng& rng, AttrMap* attrs) {
  if (approximate && rng.Chance(2.0 / 3)) {
    attrs->Set(kApproximate, rng.Chance(0.5) ? "none" : "tanh");
  }
  if (alpha && rng.Chance(2.0 / 3)) {
    attrs->Set(kAlpha, rng.Uniform(0.0, 0.5));
  }
}

Maybe<bool> UsesTanhForm(const AttrMap& attrs) {
  std::string form;
  OFLITE_ASSIGN_OR_RETURN(form, AttrOr<std::string>(attrs, kApproximate, "none"));
  return form == "tanh";
}

Maybe<double> LeakyReluAlpha(const AttrMap& attrs) {
  return AttrOr<double>(attrs, kAlpha, kDefaultLeakyReluAlpha);
}

// ---- invalid calls ----------------------------------------------------------------------------

InvalidCase WithAttr(const OpCase& valid, const std::string& name, const AttrValue& value,
                     ErrorKind expected) {
  InvalidCase c{"attribute " + name + " = " + AttrValueToString(value), valid.inputs, valid.attrs,
                expected};
  c.attrs.Set(name, value);
  return c;
}

std::vector<InvalidCase> CommonInvalidCases(const OpCase& valid,
                                            const std::vector<DataType>& accepted, CaseRng& rng) {
  std::vector<HostTensor> more = valid.inputs;
  more.push_back(valid.inputs.front());
  const std::vector<HostTensor> fewer(valid.inputs.begin(), valid.inputs.end() - 1);
  std::vector<InvalidCase> cases = {
      {"one input too many", more, valid.attrs, ErrorKind::kValueError},
      {"one input too few", fewer, valid.attrs, ErrorKind::kValueError},
      WithAttr(valid, "bogus", int64_t{1}, ErrorKind::kValueError),
  };
  const std::vector<DataType> refused = DtypesWhere([&](DataType dtype) {
    return std::find(accepted.begin(), accepted.end(), dtype) == accepted.end();
  });
  if (!refused.empty()) {
    const DataType dtype = rng.Pick(refused);
    InvalidCase c{std::string(DataTypeName(dtype)) + " operands, a dtype the op does not take",
                  {},
                  valid.attrs,
                  ErrorKind::kTypeError};
    for (const HostTensor& t : valid.inputs) {
      c.inputs.push_back(RandomHostTensor(rng, t.shape, dtype, 0, 3));
    }
    cases.push_back(c);
  }
  return cases;
}

std::vector<InvalidCase> ActivationAttrInvalidCases(const OpCase& valid, bool approximate,
                                                    bool alpha) {
  std::vector<InvalidCase> cases;
  if (approximate) {
    cases.push_back(WithAttr(valid, kApproximate, "bogus", ErrorKind::kValueError));
    cases.push_back(WithAttr(valid, kApproximate, int64_t{1}, ErrorKind::kTypeError));
  }
  if (alpha) {
    cases.push_back(WithAttr(valid, kAlpha, "0.1", ErrorKind::kTypeError));
  }
  return cases;
}

DataType OtherDtype(DataType dtype) {
  return dtype == DataType::kFloat32 ? DataType::kFloat64 : DataType::kFloat32;
}

}  // namespace ops
}  // namespace oflite
