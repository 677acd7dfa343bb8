// How `oflite optest` proves swiglu: random cases per floating dtype, a reference written
// plainly in double, and calls that must fail. The harness adds the rest: results on every
// device with a kernel, inferred shapes and dtypes, and each SBP signature the op lists, run
// on pieces and reassembled.
#include <cmath>

#include "swiglu.h"

namespace example {
namespace {

using oflite::CaseRng;
using oflite::DataType;
using oflite::ErrorKind;
using oflite::HostTensor;
using oflite::InvalidCase;
using oflite::OpCase;
using oflite::RandomHostTensor;
using oflite::Shape;

// Rank 0 to 4, dims 1..9, now and then an empty dim: every case runs in moments.
Shape SwigluShape(CaseRng& rng) {
  std::vector<int64_t> dims(static_cast<size_t>(rng.Int(0, 4)));
  for (int64_t& d : dims) {
    d = rng.Chance(0.03) ? 0 : rng.Int(1, 9);
  }
  return Shape(dims);
}

OpCase SwigluCase(DataType dtype, CaseRng& rng) {
  const Shape shape = SwigluShape(rng);
  // Gates far enough out that silu saturates on both sides.
  return {{RandomHostTensor(rng, shape, dtype), RandomHostTensor(rng, shape, dtype, -8.0, 8.0)},
          {}};
}

oflite::Maybe<std::vector<HostTensor>> SwigluReference(const OpCase& c) {
  const HostTensor& x = c.inputs[0];
  const HostTensor& gate = c.inputs[1];
  HostTensor y{x.shape, x.dtype, std::vector<double>(x.values.size())};
  for (size_t i = 0; i < y.values.size(); ++i) {
    y.values[i] = x.values[i] * gate.values[i] / (1.0 + std::exp(-gate.values[i]));
  }
  return std::vector<HostTensor>{y};
}

std::vector<InvalidCase> SwigluInvalid(DataType dtype, CaseRng& rng) {
  const HostTensor x = RandomHostTensor(rng, Shape{3, 5}, dtype);
  const DataType other = dtype == DataType::kFloat64 ? DataType::kFloat32 : DataType::kFloat64;
  const HostTensor int_x = RandomHostTensor(rng, Shape{3, 5}, DataType::kInt32);
  return {
      {"gate of another shape",
       {x, RandomHostTensor(rng, Shape{3, 4}, dtype)},
       {},
       ErrorKind::kValueError},
      {"gate of another dtype",
       {x, RandomHostTensor(rng, Shape{3, 5}, other)},
       {},
       ErrorKind::kTypeError},
      {"int32 operands (no kernel)", {int_x, int_x}, {}, ErrorKind::kNotImplemented},
      {"x alone", {x}, {}, ErrorKind::kValueError},
      {"an attribute swiglu does not have", {x, x}, {{"scale", 2.0}}, ErrorKind::kValueError},
  };
}

oflite::OpTestSpec SwigluTestSpec() {
  oflite::OpTestSpec spec;
  spec.dtypes = oflite::FloatingDataTypes();
  spec.generate = SwigluCase;
  spec.reference = SwigluReference;
  spec.invalid = SwigluInvalid;
  return spec;  // tolerances: the defaults per dtype
}

OFLITE_REGISTER_OP_TEST(kSwigluOp, SwigluTestSpec());

}  // namespace
}  // namespace example
