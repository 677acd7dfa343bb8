// What the elementwise op tests (ops/elementwise_*_ops_spec.cpp) draw their cases from: shapes
// (broadcasting pairs for binary ops), operand values in each op's domain, an independent
// broadcast for the references, and the invalid calls every elementwise family shares.
#ifndef ONEFLOW_LITE_OPS_ELEMENTWISE_TEST_CASES_H_
#define ONEFLOW_LITE_OPS_ELEMENTWISE_TEST_CASES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/op_test_spec.h"
#include "oneflow_lite/primitive/elementwise_op.h"

namespace oflite {
namespace ops {

// ---- dtypes and shapes ------------------------------------------------------------------------

// The dtypes of AllDataTypes() that `accepts` holds for, in that order.
std::vector<DataType> DtypesWhere(const std::function<bool(DataType)>& accepts);
// Rank 0..4, dims 1..6; about one case in ten has a 0 dim (an empty tensor).
Shape ElementwiseShape(CaseRng& rng);
// Two operand shapes that broadcast: each leaves out some leading axes of a common shape or has
// 1 at some of its axes.
std::pair<Shape, Shape> BroadcastingShapes(CaseRng& rng);
// Two shapes that do not broadcast: (n, k) and (n, k + 1) with k >= 2.
std::pair<Shape, Shape> MismatchedShapes(CaseRng& rng);

// The result shape of broadcasting a with b (ranks aligned from the right), written out plainly
// for the references; the shapes must broadcast.
Shape BroadcastResultShape(const Shape& a, const Shape& b);
// The flat index into an operand of `shape` that element `flat` of the broadcast result `out`
// reads.
int64_t BroadcastSourceIndex(int64_t flat, const Shape& out, const Shape& shape);

// ---- values -----------------------------------------------------------------------------------

// The values an operand draws from: uniform in [lo, hi), or the whole numbers of [lo, hi] when
// `whole` (exact in every dtype; ties for comparisons, integer exponents); `either_sign` negates
// about half of them (denominators: lo > 0 keeps them away from zero). Integer dtypes always
// draw whole numbers; bool draws 0 and 1.
struct ValueRange {
  double lo = -4.0;
  double hi = 4.0;
  bool whole = false;
  bool either_sign = false;
};
HostTensor RandomOperand(CaseRng& rng, const Shape& shape, DataType dtype, const ValueRange& range);

// The ranges of a binary op's left and right operands in `dtype` (not the gradients): integer
// results stay well inside int8 except where wrapping is the point (uint8 sub); denominators stay
// off zero; pow has positive bases, or integer exponents when a base may be negative; comparisons
// draw whole numbers half the time, so that equal operands occur.
struct OperandRanges {
  ValueRange a, b;
};
OperandRanges BinaryOperandRanges(primitive::BinaryOp op, DataType dtype, CaseRng& rng);

// ---- attrs ------------------------------------------------------------------------------------

// attrs[name], or `fallback` (the schema's default) when the case leaves it out.
template <typename T>
Maybe<T> AttrOr(const AttrMap& attrs, const std::string& name, T fallback) {
  if (!attrs.Has(name)) {
    return fallback;
  }
  return attrs.Get<T>(name);
}

// The activation attributes: gelu's and gelu_grad's approximate ("none", "tanh", or left out
// for the default "none"), leaky_relu's and leaky_relu_grad's alpha (in [0, 0.5), or left out for
// kDefaultLeakyReluAlpha). `approximate` and `alpha` say which the op has.
void SetRandomActivationAttrs(bool approximate, bool alpha, CaseRng& rng, AttrMap* attrs);
Maybe<bool> UsesTanhForm(const AttrMap& attrs);
Maybe<double> LeakyReluAlpha(const AttrMap& attrs);

// ---- invalid calls ----------------------------------------------------------------------------

// From a valid case: one input too many and one too few (ValueError), an unknown attribute
// (ValueError), and, when `accepted` leaves some dtype out, the inputs in one such dtype drawn at
// random (TypeError).
std::vector<InvalidCase> CommonInvalidCases(const OpCase& valid,
                                            const std::vector<DataType>& accepted, CaseRng& rng);
// The case with attribute `name` set to `value`, expecting `expected`.
InvalidCase WithAttr(const OpCase& valid, const std::string& name, const AttrValue& value,
                     ErrorKind expected);
// The activation attributes wrong: approximate = "bogus" (ValueError) or 1 (TypeError), alpha =
// "0.1" (TypeError); for the ones the op has.
std::vector<InvalidCase> ActivationAttrInvalidCases(const OpCase& valid, bool approximate,
                                                    bool alpha);
// A dtype other than `dtype`, for operands whose dtypes must agree.
DataType OtherDtype(DataType dtype);

}  // namespace ops
}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_ELEMENTWISE_TEST_CASES_H_
