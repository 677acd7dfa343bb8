// Elementwise functional calls through every layer, on the CPU and (where a GPU is visible) on
// CUDA, against the plain double references of ops/elementwise_reference.h.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "oneflow_lite/common/type_promotion.h"
#include "oneflow_lite/functional/functional.h"
#include "oneflow_lite/functional/operators.h"
#include "ops/elementwise_ops.h"
#include "ops/elementwise_reference.h"
#include "ops/softmax_reference.h"
#include "primitive/broadcast_dims.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

using primitive::BinaryOp;
using primitive::UnaryOp;

std::vector<Device> Devices() {
  std::vector<Device> devices = {Device::Cpu()};
  if (ep::GetDevice(Device::Cuda(0)).ok()) {
    devices.push_back(Device::Cuda(0));
  }
  return devices;
}

// Relative tolerance per dtype with an absolute floor of the same size below 1 (elementwise
// results near 0 carry the absolute error of their float computation); integers are exact.
double Tolerance(DataType dtype) {
  return IsFloatingDataType(dtype) ? SoftmaxTolerance(dtype) : 0.0;
}

void ExpectMatches(const Tensor& actual, const std::vector<double>& expected,
                   const std::string& context) {
  ExpectAllClose(ToDoubles(Unwrap(actual.To(Device::Cpu()))), expected, Tolerance(actual.dtype()),
                 context, /*floor=*/1.0);
}

// Values an op can take in a dtype without leaving the reference's domain: positive where
// log, sqrt, rsqrt or a real pow need it; small integers so integer results never wrap.
std::vector<double> Inputs(size_t n, DataType dtype, uint64_t seed, bool positive, bool exponent) {
  double lo = positive ? 0.5 : -4.0, hi = positive ? 2.0 : 4.0;
  if (exponent) {
    lo = IsFloatingDataType(dtype) ? -2.0 : 0.0;
    hi = 3.0;
  }
  if (dtype == DataType::kUInt8) {
    lo = std::max(lo, 0.0);
  }
  std::vector<double> v = RandomValues(n, seed, lo, hi);
  for (double& x : v) {
    if (dtype == DataType::kBool) {
      x = x > (lo + hi) / 2 ? 1 : 0;
    } else if (!IsFloatingDataType(dtype)) {
      x = std::trunc(x);
    }
  }
  return RoundTo(v, dtype);
}

// Index into an operand of `shape` broadcast to `out` (ranks aligned from the right).
int64_t BroadcastIndex(int64_t flat, const Shape& out, const Shape& shape) {
  int64_t index = 0, stride = 1;
  for (int64_t i = out.rank() - 1, j = shape.rank() - 1; i >= 0; --i, --j) {
    const int64_t coord = flat % out[i];
    flat /= out[i];
    if (j >= 0) {
      index += (shape[j] == 1 ? 0 : coord) * stride;
      stride *= shape[j];
    }
  }
  return index;
}

Maybe<Tensor> CallBinary(BinaryOp op, const Tensor& x, const Tensor& y) {
  switch (op) {
    case BinaryOp::kAdd:
      return functional::Add(x, y);
    case BinaryOp::kSub:
      return functional::Sub(x, y);
    case BinaryOp::kMul:
      return functional::Mul(x, y);
    case BinaryOp::kDiv:
      return functional::Div(x, y);
    case BinaryOp::kMaximum:
      return functional::Maximum(x, y);
    case BinaryOp::kMinimum:
      return functional::Minimum(x, y);
    case BinaryOp::kPow:
      return functional::Pow(x, y);
    case BinaryOp::kEq:
      return functional::Eq(x, y);
    case BinaryOp::kNe:
      return functional::Ne(x, y);
    case BinaryOp::kLt:
      return functional::Lt(x, y);
    case BinaryOp::kLe:
      return functional::Le(x, y);
    case BinaryOp::kGt:
      return functional::Gt(x, y);
    case BinaryOp::kGe:
      return functional::Ge(x, y);
    case BinaryOp::kReluGrad:
      return functional::ReluGrad(x, y);
    case BinaryOp::kSigmoidGrad:
      return functional::SigmoidGrad(x, y);
    case BinaryOp::kTanhGrad:
      return functional::TanhGrad(x, y);
    case BinaryOp::kGeluGrad:
      return functional::GeluGrad(x, y, "none");
    case BinaryOp::kGeluTanhGrad:
      return functional::GeluGrad(x, y, "tanh");
    case BinaryOp::kSiluGrad:
      return functional::SiluGrad(x, y);
    case BinaryOp::kLeakyReluGrad:
      return functional::LeakyReluGrad(x, y, 0.2);
  }
  return OFLITE_ERROR(ValueError) << "no such op";
}

Maybe<Tensor> CallUnary(UnaryOp op, const Tensor& x) {
  switch (op) {
    case UnaryOp::kNeg:
      return functional::Neg(x);
    case UnaryOp::kAbs:
      return functional::Abs(x);
    case UnaryOp::kExp:
      return functional::Exp(x);
    case UnaryOp::kLog:
      return functional::Log(x);
    case UnaryOp::kSqrt:
      return functional::Sqrt(x);
    case UnaryOp::kRsqrt:
      return functional::Rsqrt(x);
    case UnaryOp::kSigmoid:
      return functional::Sigmoid(x);
    case UnaryOp::kTanh:
      return functional::Tanh(x);
    case UnaryOp::kRelu:
      return functional::Relu(x);
    case UnaryOp::kGelu:
      return functional::Gelu(x, "none");
    case UnaryOp::kGeluTanh:
      return functional::Gelu(x, "tanh");
    case UnaryOp::kSilu:
      return functional::Silu(x);
    case UnaryOp::kLeakyRelu:
      return functional::LeakyRelu(x, 0.2);
  }
  return OFLITE_ERROR(ValueError) << "no such op";
}

double AttrOf(BinaryOp op) { return op == BinaryOp::kLeakyReluGrad ? 0.2 : 0.0; }
double AttrOf(UnaryOp op) { return op == UnaryOp::kLeakyRelu ? 0.2 : 0.0; }

std::vector<BinaryOp> AllBinaryOps() {
  std::vector<BinaryOp> all = ops::BinaryOpTypes();
  all.push_back(BinaryOp::kGeluTanhGrad);
  return all;
}
std::vector<UnaryOp> AllUnaryOps() {
  std::vector<UnaryOp> all = ops::UnaryOpTypes();
  all.push_back(UnaryOp::kGeluTanh);
  return all;
}

// The op type a primitive op runs under (gelu's tanh form is gelu with approximate = "tanh").
BinaryOp OpType(BinaryOp op) { return op == BinaryOp::kGeluTanhGrad ? BinaryOp::kGeluGrad : op; }
UnaryOp OpType(UnaryOp op) { return op == UnaryOp::kGeluTanh ? UnaryOp::kGelu : op; }

void CheckBinary(BinaryOp op, DataType dtype, const Shape& xs, const Shape& ys,
                 const Device& device) {
  const bool grad = ops::IsGradOp(op);
  const bool positive = op == BinaryOp::kPow && IsFloatingDataType(dtype);
  const std::vector<double> x =
      Inputs(static_cast<size_t>(xs.elem_cnt()), dtype, 11, positive, false);
  const std::vector<double> y =
      Inputs(static_cast<size_t>(ys.elem_cnt()), dtype, 12, false, op == BinaryOp::kPow);
  const std::string context = std::string(primitive::BinaryOpName(op)) + " " + DataTypeName(dtype) +
                              " " + xs.ToString() + " with " + ys.ToString() + " on " +
                              device.ToString();
  const Tensor result =
      Unwrap(CallBinary(op, MakeTensor(x, xs, dtype, device), MakeTensor(y, ys, dtype, device)));
  const Shape out = grad ? xs : Shape(Unwrap(primitive::BroadcastShape(xs.dims(), ys.dims())));
  ASSERT_EQ(result.shape(), out) << context;
  const DataType out_dtype = primitive::IsComparison(op) ? DataType::kBool : dtype;
  ASSERT_EQ(result.dtype(), out_dtype) << context;
  std::vector<double> expected(static_cast<size_t>(out.elem_cnt()));
  for (int64_t i = 0; i < out.elem_cnt(); ++i) {
    const double e = ReferenceBinary(op, x[BroadcastIndex(i, out, xs)],
                                     y[BroadcastIndex(i, out, ys)], AttrOf(op));
    expected[i] = ReferenceStore(e, out_dtype);
  }
  ExpectMatches(result, expected, context);
}

TEST(ElementwiseFunctional, BinaryOpsMatchTheReferenceInEveryDtypeTheyAccept) {
  for (const Device& device : Devices()) {
    for (BinaryOp op : AllBinaryOps()) {
      for (DataType dtype : AllDataTypes()) {
        if (!ops::BinaryOpAccepts(OpType(op), dtype)) {
          continue;
        }
        if (ops::IsGradOp(op)) {
          CheckBinary(op, dtype, Shape{3, 37}, Shape{3, 37}, device);
        } else {
          CheckBinary(op, dtype, Shape{3, 1, 5}, Shape{4, 1}, device);
          CheckBinary(op, dtype, Shape{1031}, Shape{1031}, device);  // packs and a tail
        }
      }
    }
  }
}

TEST(ElementwiseFunctional, BroadcastShapesIncludingRankZeroAndEmpty) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {Shape{}, Shape{2, 3}},     {Shape{2, 3}, Shape{}},        {Shape{1}, Shape{3}},
      {Shape{3, 1}, Shape{1, 4}}, {Shape{2, 1, 5}, Shape{3, 1}}, {Shape{0, 3}, Shape{1, 3}},
      {Shape{}, Shape{}},         {Shape{64, 33}, Shape{33}},    {Shape{64, 33}, Shape{64, 1}}};
  for (const Device& device : Devices()) {
    for (const auto& [a, b] : shapes) {
      for (DataType dtype : {DataType::kFloat32, DataType::kFloat16, DataType::kInt64}) {
        CheckBinary(BinaryOp::kAdd, dtype, a, b, device);
        CheckBinary(BinaryOp::kLt, dtype, a, b, device);
      }
    }
  }
}

TEST(ElementwiseFunctional, UnaryOpsMatchTheReferenceInEveryDtypeTheyAccept) {
  for (const Device& device : Devices()) {
    for (UnaryOp op : AllUnaryOps()) {
      const bool positive = op == UnaryOp::kLog || op == UnaryOp::kSqrt || op == UnaryOp::kRsqrt;
      for (DataType dtype : AllDataTypes()) {
        if (!ops::UnaryOpAccepts(OpType(op), dtype) ||
            (op == UnaryOp::kNeg && dtype == DataType::kUInt8)) {  // wraps: checked below
          continue;
        }
        for (int64_t n : {1, 7, 1031}) {
          const std::vector<double> x = Inputs(static_cast<size_t>(n), dtype, 13, positive, false);
          const std::string context = std::string(primitive::UnaryOpName(op)) + " " +
                                      DataTypeName(dtype) + " n=" + std::to_string(n) + " on " +
                                      device.ToString();
          const Tensor y = Unwrap(CallUnary(op, MakeTensor(x, Shape{n}, dtype, device)));
          ASSERT_EQ(y.dtype(), dtype) << context;
          std::vector<double> expected(x.size());
          for (size_t i = 0; i < x.size(); ++i) {
            expected[i] = ReferenceCast(ReferenceUnary(op, x[i], AttrOf(op)), dtype);
          }
          ExpectMatches(y, expected, context);
        }
      }
    }
  }
}

TEST(ElementwiseFunctional, IntegerMathPromotesOrWrapsAsPyTorch) {
  for (const Device& device : Devices()) {
    const Tensor i = MakeTensor({1, 4, 9}, Shape{3}, DataType::kInt32, device);
    const Tensor e = Unwrap(functional::Sqrt(i));  // integers compute in float32
    EXPECT_EQ(e.dtype(), DataType::kFloat32);
    ExpectMatches(e, {1, 2, 3}, "sqrt of int32");
    const Tensor q = Unwrap(functional::Div(i, MakeTensor({2, 8, 2}, Shape{3}, DataType::kInt32,
                                                          device)));  // true division
    EXPECT_EQ(q.dtype(), DataType::kFloat32);
    ExpectMatches(q, {0.5, 0.5, 4.5}, "int32 / int32");
    const Tensor u =
        Unwrap(functional::Neg(MakeTensor({3, 0}, Shape{2}, DataType::kUInt8, device)));
    ExpectMatches(u, {253, 0}, "neg of uint8 wraps");
    const Tensor big = MakeTensor({127}, Shape{1}, DataType::kInt8, device);
    ExpectMatches(Unwrap(functional::Add(big, big)), {-2}, "int8 127 + 127 wraps");
    const Tensor b = MakeTensor({1, 0, 1}, Shape{3}, DataType::kBool, device);
    const Tensor c = MakeTensor({1, 1, 0}, Shape{3}, DataType::kBool, device);
    ExpectMatches(Unwrap(functional::Add(b, c)), {1, 1, 1}, "bool add is or");
    ExpectMatches(Unwrap(functional::Mul(b, c)), {1, 0, 0}, "bool mul is and");
  }
}

TEST(ElementwiseFunctional, MixedDtypesPromoteAsPyTorch) {
  for (const Device& device : Devices()) {
    const Tensor i32 = MakeTensor({1, 2}, Shape{2}, DataType::kInt32, device);
    const Tensor f32 = MakeTensor({0.5, 0.25}, Shape{2}, DataType::kFloat32, device);
    const Tensor f16 = MakeTensor({0.5, 0.25}, Shape{2}, DataType::kFloat16, device);
    const Tensor bf16 = MakeTensor({0.5, 0.25}, Shape{2}, DataType::kBFloat16, device);
    struct Case {
      Maybe<Tensor> result;
      DataType dtype;
      std::vector<double> values;
      const char* what;
    };
    const Case cases[] = {
        {functional::Add(i32, f32), DataType::kFloat32, {1.5, 2.25}, "int32 + float32"},
        {functional::Add(f16, f32), DataType::kFloat32, {1, 0.5}, "float16 + float32"},
        {functional::Add(bf16, f16), DataType::kFloat32, {1, 0.5}, "bfloat16 + float16"},
        {functional::Add(f16, Scalar(2.5)), DataType::kFloat16, {3, 2.75}, "float16 + 2.5"},
        {functional::Add(i32, Scalar(2.5)), DataType::kFloat32, {3.5, 4.5}, "int32 + 2.5"},
        {functional::Mul(i32, Scalar(3)), DataType::kInt32, {3, 6}, "int32 * 3"},
        {functional::Sub(Scalar(2.5), f32), DataType::kFloat32, {2, 2.25}, "2.5 - float32"},
        {functional::Div(Scalar(1), i32), DataType::kFloat32, {1, 0.5}, "1 / int32"},
        {functional::Lt(i32, Scalar(1.5)), DataType::kBool, {1, 0}, "int32 < 1.5"},
        {functional::Pow(f32, Scalar(2)), DataType::kFloat32, {0.25, 0.0625}, "float32 ** 2"},
    };
    for (const Case& c : cases) {
      const Tensor t = Unwrap(c.result);
      EXPECT_EQ(t.dtype(), c.dtype) << c.what;
      ExpectMatches(t, c.values, std::string(c.what) + " on " + device.ToString());
    }
  }
}

TEST(ElementwiseFunctional, ScalarsEnterExactlyInTheComputeType) {
  const int64_t big = (int64_t{1} << 53) + 1;  // not a double
  for (const Device& device : Devices()) {
    const std::string on = " on " + device.ToString();
    const Tensor zero = Unwrap(Tensor::FromVector<int64_t>({0, 1}, Shape{2}, device));
    const std::vector<int64_t> sum = Unwrap(
        Unwrap(Unwrap(functional::Add(zero, Scalar(big))).To(Device::Cpu())).ToVector<int64_t>());
    EXPECT_EQ(sum, (std::vector<int64_t>{big, big + 1})) << "int64 + 2^53 + 1" << on;
    const Tensor at = Unwrap(Tensor::FromVector<int64_t>({big - 1}, Shape{1}, device));
    ExpectMatches(Unwrap(functional::Eq(at, Scalar(big))), {0}, "2^53 == 2^53 + 1" + on);
    ExpectMatches(
        Unwrap(functional::Add(MakeTensor({5, 0}, Shape{2}, DataType::kUInt8, device), Scalar(-1))),
        {4, 255}, "uint8 + -1 wraps" + on);
    ExpectMatches(
        Unwrap(functional::Add(MakeTensor({5}, Shape{1}, DataType::kInt8, device), Scalar(1000))),
        {-19}, "int8 + 1000 wraps (1000 is -24 in int8)" + on);
    for (DataType half : {DataType::kFloat16, DataType::kBFloat16}) {
      const std::string what = std::string(" ") + DataTypeName(half) + on;
      // 1e-7 rounded to float16 is 1.19e-7: the product would be 19% off
      ExpectMatches(
          Unwrap(functional::Mul(MakeTensor({1000}, Shape{1}, half, device), Scalar(1e-7))),
          {ReferenceCast(RoundTo({1000}, half)[0] * 1e-7, half)}, "x * 1e-7" + what);
      // 1e5 overflows float16, the product does not
      ExpectMatches(
          Unwrap(functional::Mul(MakeTensor({1e-3}, Shape{1}, half, device), Scalar(1e5))),
          {ReferenceCast(RoundTo({1e-3}, half)[0] * 1e5, half)}, "x * 1e5" + what);
    }
    ExpectError(functional::Pow(MakeTensor({2}, Shape{1}, DataType::kInt32, device), Scalar(-1)),
                ErrorKind::kValueError, {"pow", "negative integer powers"});
    // An exponent past the base's dtype would wrap (int8 ** 256 as ** 0): refused, as in PyTorch.
    ExpectError(functional::Pow(MakeTensor({3}, Shape{1}, DataType::kInt8, device), Scalar(256)),
                ErrorKind::kValueError, {"pow", "exponent 256", "int8", "at most 127"});
    ExpectError(functional::Pow(MakeTensor({3}, Shape{1}, DataType::kUInt8, device), Scalar(256)),
                ErrorKind::kValueError, {"exponent 256", "uint8", "at most 255"});
    ExpectError(functional::Pow(MakeTensor({3}, Shape{1}, DataType::kInt32, device),
                                Scalar(int64_t{1} << 32)),
                ErrorKind::kValueError, {"exponent 4294967296", "int32"});
    // At the dtype's limit the power is the wrapped one: 3^127 mod 256 is 171, as int8 -85.
    ExpectMatches(Unwrap(functional::Pow(
                      MakeTensor({0, 1, 2, 3}, Shape{4}, DataType::kInt8, device), Scalar(127))),
                  {0, 1, 0, -85}, "int8 ** 127");
    ExpectMatches(
        Unwrap(functional::Pow(MakeTensor({2}, Shape{1}, DataType::kInt32, device), Scalar(-1.0))),
        {0.5}, "int32 ** -1.0 is floating");
  }
}

TEST(ElementwiseFunctional, RankZeroTensorsPromoteByCategoryOnly) {
  for (const Device& device : Devices()) {
    const Tensor h = MakeTensor({1, 2}, Shape{2}, DataType::kFloat16, device);
    const Tensor i = MakeTensor({1, 2}, Shape{2}, DataType::kInt32, device);
    EXPECT_EQ(
        Unwrap(functional::Add(h, MakeTensor({1}, Shape{}, DataType::kFloat32, device))).dtype(),
        DataType::kFloat16);
    EXPECT_EQ(
        Unwrap(functional::Add(MakeTensor({1}, Shape{}, DataType::kInt64, device), i)).dtype(),
        DataType::kInt32);
    const Tensor f =
        Unwrap(functional::Add(i, MakeTensor({0.5}, Shape{}, DataType::kFloat64, device)));
    EXPECT_EQ(f.dtype(), DataType::kFloat64);
    ExpectMatches(f, {1.5, 2.5}, "int32 (2,) + float64 ()");
    EXPECT_EQ(Unwrap(functional::Add(MakeTensor({1}, Shape{}, DataType::kFloat16, device),
                                     MakeTensor({1}, Shape{}, DataType::kFloat32, device)))
                  .dtype(),
              DataType::kFloat32);  // both rank 0: the usual rules
  }
}

TEST(ElementwiseFunctional, DivisionByZeroAndNaNFollowIeee) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (const Device& device : Devices()) {
    for (DataType dtype : FloatingDataTypes()) {
      const Tensor a = MakeTensor({1, -1, 0, nan}, Shape{4}, dtype, device);
      const Tensor z = MakeTensor({0, 0, 0, 1}, Shape{4}, dtype, device);
      const std::string on = std::string(" ") + DataTypeName(dtype) + " on " + device.ToString();
      ExpectMatches(Unwrap(functional::Div(a, z)), {inf, -inf, nan, nan}, "x / 0" + on);
      ExpectMatches(Unwrap(functional::Add(a, z)), {1, -1, 0, nan}, "NaN + 1" + on);
      ExpectMatches(Unwrap(functional::Maximum(a, z)), {1, 0, 0, nan}, "maximum with NaN" + on);
      ExpectMatches(Unwrap(functional::Minimum(z, a)), {0, -1, 0, nan}, "minimum with NaN" + on);
    }
  }
}

TEST(ElementwiseFunctional, ActivationsStayFiniteAtLargeMagnitudes) {
  const std::vector<double> x = {-1e4, -100, -20, 20, 100, 1e4};
  for (const Device& device : Devices()) {
    for (DataType dtype : FloatingDataTypes()) {
      const std::vector<double> xr = RoundTo(x, dtype);
      const Tensor t = MakeTensor(xr, Shape{6}, dtype, device);
      for (UnaryOp op : {UnaryOp::kGelu, UnaryOp::kGeluTanh, UnaryOp::kSilu, UnaryOp::kSigmoid}) {
        std::vector<double> expected;
        for (double v : xr) {
          expected.push_back(ReferenceCast(ReferenceUnary(op, v), dtype));
        }
        const std::string context = std::string(primitive::UnaryOpName(op)) + " " +
                                    DataTypeName(dtype) + " on " + device.ToString();
        const std::vector<double> got =
            ToDoubles(Unwrap(Unwrap(CallUnary(op, t)).To(Device::Cpu())));
        for (double g : got) {
          EXPECT_FALSE(std::isnan(g)) << context;
        }
        // below the smallest normal a dtype has no relative precision: compare absolutely there
        ExpectAllClose(got, expected, SoftmaxTolerance(dtype), context,
                       SmallestNormal(dtype) / SoftmaxTolerance(dtype));
      }
    }
  }
}

TEST(ElementwiseFunctional, CastTruncatesSaturatesAndKeepsSameDtype) {
  const double nan = std::nan("");
  for (const Device& device : Devices()) {
    const Tensor f =
        MakeTensor({-3.7, 3.7, nan, 1e10, -1e10, 0.5}, Shape{6}, DataType::kFloat32, device);
    ExpectMatches(Unwrap(functional::Cast(f, DataType::kInt32)),
                  {-3, 3, 0, 2147483647.0, -2147483648.0, 0}, "float32 -> int32");
    ExpectMatches(Unwrap(functional::Cast(f, DataType::kBool)), {1, 1, 1, 1, 1, 1},
                  "float32 -> bool");
    ExpectMatches(Unwrap(functional::Cast(f, DataType::kUInt8)), {0, 3, 0, 255, 0, 0},
                  "float32 -> uint8");
    const Tensor same = Unwrap(functional::Cast(f, DataType::kFloat32));
    EXPECT_EQ(same.data(), f.data()) << "a cast to the same dtype is the tensor itself";
  }
}

TEST(ElementwiseFunctional, OperatorsAreTheFunctionalCalls) {
  const Tensor x = MakeTensor({1, 2, 3}, Shape{3}, DataType::kFloat32);
  const Tensor y = MakeTensor({4, 5, 6}, Shape{3}, DataType::kFloat32);
  ExpectMatches(Unwrap(x + y), {5, 7, 9}, "x + y");
  ExpectMatches(Unwrap(x * 2), {2, 4, 6}, "x * 2");
  ExpectMatches(Unwrap(2.5 - x), {1.5, 0.5, -0.5}, "2.5 - x");
  ExpectMatches(Unwrap(y / x), {4, 2.5, 2}, "y / x");
  ExpectMatches(Unwrap(-x), {-1, -2, -3}, "-x");
  ExpectError(x + MakeTensor({1, 2}, Shape{2}, DataType::kFloat32), ErrorKind::kValueError,
              {"(3,)", "(2,)"});
}

TEST(ElementwiseFunctional, BadInputGivesClearErrors) {
  const Tensor a = MakeTensor(RandomValues(6, 1), Shape{2, 3}, DataType::kFloat32);
  const Tensor b = MakeTensor(RandomValues(4, 2), Shape{4}, DataType::kFloat32);
  ExpectError(functional::Add(a, b), ErrorKind::kValueError,
              {"add", "(2, 3)", "(4,)", "broadcast"});
  const Tensor t = MakeTensor({1, 0}, Shape{2}, DataType::kBool);
  ExpectError(functional::Sub(t, t), ErrorKind::kTypeError, {"sub", "bool"});
  ExpectError(functional::Sub(t, Scalar(true)), ErrorKind::kTypeError, {"sub", "bool"});
  ExpectError(functional::Neg(t), ErrorKind::kTypeError, {"neg", "bool"});
  ExpectError(functional::Pow(t, t), ErrorKind::kTypeError, {"pow", "bool"});
  ExpectError(functional::Gelu(a, "fast"), ErrorKind::kValueError, {"gelu", "approximate", "fast"});
  ExpectError(functional::GeluGrad(a, a, "exact"), ErrorKind::kValueError,
              {"gelu_grad", "approximate", "exact"});
  const Tensor i = MakeTensor({1, 2}, Shape{2}, DataType::kInt32);
  ExpectError(functional::Gelu(i), ErrorKind::kTypeError, {"gelu", "int32", "floating"});
  ExpectError(functional::ReluGrad(a, b), ErrorKind::kValueError, {"relu_grad", "shape"});
  ExpectError(functional::ReluGrad(i, i), ErrorKind::kTypeError, {"relu_grad", "floating"});
  ExpectError(functional::Add(Tensor(), a), ErrorKind::kValueError, {"add", "undefined"});
  ExpectError(functional::Cast(a, static_cast<DataType>(99)), ErrorKind::kValueError,
              {"cast", "99"});
}

}  // namespace
}  // namespace test
}  // namespace oflite
