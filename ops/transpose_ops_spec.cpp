// Op tests of transpose (ops/transpose_ops.h): every dtype, ranks 1 to 5 and a random
// permutation, against the gather of ops/transpose_reference.h. The default tolerance (exact
// for integers and bool): transpose moves floats without arithmetic too, but the harness's
// partial-sum check adds pieces in the dtype, which rounds.
#include <algorithm>
#include <numeric>
#include <vector>

#include "oneflow_lite/framework/op_test_spec.h"
#include "ops/transpose_ops.h"
#include "ops/transpose_reference.h"

namespace oflite {
namespace ops {
namespace {

// Dims of 1 to 6 (now and then 0), so rank 5 stays under 8K elements.
Shape TransposeShape(CaseRng& rng) {
  std::vector<int64_t> dims(static_cast<size_t>(rng.Int(1, 5)));
  for (int64_t& d : dims) {
    d = rng.Chance(0.03) ? 0 : rng.Int(1, 6);
  }
  return Shape(dims);
}

std::vector<int64_t> RandomPermutation(int64_t rank, CaseRng& rng) {
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng.engine());
  return perm;
}

OpCase TransposeCase(DataType dtype, CaseRng& rng) {
  const Shape shape = TransposeShape(rng);
  return {{RandomHostTensor(rng, shape, dtype)},
          {{kTransposePerm, RandomPermutation(shape.rank(), rng)}}};
}

Maybe<std::vector<HostTensor>> TransposeReference(const OpCase& c) {
  const HostTensor& x = c.inputs[0];
  std::vector<int64_t> perm;
  OFLITE_ASSIGN_OR_RETURN(perm, c.attrs.Get<std::vector<int64_t>>(kTransposePerm));
  std::vector<int64_t> dims;
  for (int64_t axis : perm) {
    dims.push_back(x.shape[axis]);
  }
  return std::vector<HostTensor>{{Shape(dims), x.dtype, ReferencePermute(x.values, x.shape, perm)}};
}

std::vector<InvalidCase> TransposeInvalid(DataType dtype, CaseRng& rng) {
  const HostTensor x = RandomHostTensor(rng, Shape{2, 3, 4}, dtype);
  const auto with_perm = [&](std::vector<int64_t> perm) {
    return AttrMap{{kTransposePerm, std::move(perm)}};
  };
  return {
      {"perm too short for rank 3", {x}, with_perm({1, 0}), ErrorKind::kValueError},
      {"perm too long for rank 3", {x}, with_perm({0, 1, 2, 3}), ErrorKind::kValueError},
      {"perm repeating axis 1", {x}, with_perm({1, 1, 0}), ErrorKind::kValueError},
      {"perm naming axis 3 of a rank-3 tensor", {x}, with_perm({0, 3, 1}), ErrorKind::kIndexError},
      {"perm with a negative axis", {x}, with_perm({0, -1, 1}), ErrorKind::kIndexError},
      {"no perm", {x}, {}, ErrorKind::kValueError},
      {"perm as an int64", {x}, {{kTransposePerm, int64_t{0}}}, ErrorKind::kTypeError},
  };
}

OpTestSpec TransposeSpec() {
  OpTestSpec spec;
  spec.dtypes = AllDataTypes();
  spec.generate = TransposeCase;
  spec.reference = TransposeReference;
  spec.invalid = TransposeInvalid;
  return spec;
}

OFLITE_REGISTER_OP_TEST(kTransposeOp, TransposeSpec());

}  // namespace
}  // namespace ops
}  // namespace oflite
