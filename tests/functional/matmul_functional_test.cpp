// MatMul, Linear and FusedMatmulBiasAct through every layer, on the CPU and (where a GPU is
// visible and the CUDA provider has a BatchMatmul primitive for the dtype) on CUDA, against a
// plain double-precision reference of torch.matmul written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/functional/functional.h"
#include "oneflow_lite/primitive/batch_matmul.h"
#include "ops/matmul_ops.h"
#include "ops/matmul_reference.h"
#include "tests/support/test_util.h"
#ifdef OFLITE_WITH_CUDA
#include "ep/cuda/primitive/batch_matmul_plan_cache.h"
#endif

namespace oflite {
namespace test {
namespace {

const DataType kFloatingDtypes[] = {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16,
                                    DataType::kBFloat16};

// The CPU, and cuda:0 where a GPU is visible and its provider multiplies this dtype (until the
// CUDA BatchMatmul primitive is registered the CUDA runs are skipped, not failed).
std::vector<Device> Devices(DataType dtype) {
  std::vector<Device> devices = {Device::Cpu()};
  if (ep::GetDevice(Device::Cuda(0)).ok() &&
      primitive::NewPrimitive<primitive::BatchMatmulFactory>(DeviceType::kCUDA, dtype, false,
                                                             false) != nullptr) {
    devices.push_back(Device::Cuda(0));
  }
  return devices;
}

using Host = HostTensor;

Host RandomHost(const Shape& shape, DataType dtype, uint64_t seed) {
  return {shape, dtype,
          RoundTo(RandomValues(static_cast<size_t>(shape.elem_cnt()), seed, -1.0, 1.0), dtype)};
}

// alpha * a @ b as torch.matmul defines it: a 1-D a is a row, a 1-D b a column, and their dims
// are dropped after; matrices and batches are the ops' reference (ops/matmul_reference.h).
Host ReferenceMatMul(const Host& a, const Host& b, bool ta, bool tb, double alpha) {
  const bool a_vector = a.shape.rank() == 1, b_vector = b.shape.rank() == 1;
  Host a2 = a, b2 = b;
  if (a_vector) {
    a2.shape = Shape{1, a.shape[0]};
  }
  if (b_vector) {
    b2.shape = Shape{b.shape[0], 1};
  }
  Host out = ReferenceBatchMatmul(a2, b2, ta, tb, alpha);
  std::vector<int64_t> dims = out.shape.dims();
  if (b_vector) {
    dims.pop_back();  // n
  }
  if (a_vector) {
    dims.erase(dims.end() - (b_vector ? 1 : 2));  // m
  }
  out.shape = Shape(dims);
  return out;
}

void ExpectNormClose(const Tensor& actual_tensor, const Host& expected, double tol,
                     const std::string& context) {
  ASSERT_EQ(actual_tensor.shape(), expected.shape) << context;
  const std::vector<double> actual = ToDoubles(Unwrap(actual_tensor.To(Device::Cpu())));
  ASSERT_EQ(actual.size(), expected.values.size()) << context;
  double diff = 0, norm = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_FALSE(std::isnan(actual[i])) << context << ": NaN at " << i;
    diff += (actual[i] - expected.values[i]) * (actual[i] - expected.values[i]);
    norm += expected.values[i] * expected.values[i];
  }
  if (norm == 0) {
    EXPECT_EQ(diff, 0) << context << ": expected all zeros";
    return;
  }
  EXPECT_LE(std::sqrt(diff / norm), tol) << context;
}

std::string Describe(const Shape& a, const Shape& b, bool ta, bool tb, DataType dtype,
                     const Device& device) {
  return a.ToString() + " @ " + b.ToString() + (ta ? " ta" : "") + (tb ? " tb" : "") + " " +
         DataTypeName(dtype) + " on " + device.ToString();
}

// Runs MatMul on every device for the dtype and compares with the reference.
void CheckMatMul(const Shape& a_shape, const Shape& b_shape, bool ta, bool tb, DataType dtype,
                 double alpha = 1.0, uint64_t seed = 1) {
  const Host a = RandomHost(a_shape, dtype, seed);
  const Host b = RandomHost(b_shape, dtype, seed + 1000);
  const Host expected = ReferenceMatMul(a, b, ta, tb, alpha);
  for (const Device& device : Devices(dtype)) {
    const std::string what = Describe(a_shape, b_shape, ta, tb, dtype, device) + " alpha " +
                             std::to_string(alpha) + " seed " + std::to_string(seed);
    const Tensor at = MakeTensor(a.values, a.shape, dtype, device);
    const Tensor bt = MakeTensor(b.values, b.shape, dtype, device);
    Maybe<Tensor> out = functional::MatMul(at, bt, ta, tb, alpha);
    ASSERT_TRUE(out.ok()) << what << ": " << out.error().ToString();
    EXPECT_EQ(out.value().dtype(), dtype) << what;
    EXPECT_EQ(out.value().device(), device) << what;
    ExpectNormClose(out.value(), expected, MatmulTolerance(dtype), what);
  }
}

// (m, k) and (k, n) stored as the transposes ask.
Shape StoredA(int64_t m, int64_t k, bool ta) { return ta ? Shape{k, m} : Shape{m, k}; }
Shape StoredB(int64_t k, int64_t n, bool tb) { return tb ? Shape{n, k} : Shape{k, n}; }

class MatMulTest : public ::testing::TestWithParam<DataType> {};

struct Mnk {
  int64_t m, n, k;
};

TEST_P(MatMulTest, MatricesInEveryTransposeCombination) {
  const DataType dtype = GetParam();
  // square, tall, wide, K = 1, odd sizes past a blocking boundary, 1x1x1, many short rows
  const Mnk sizes[] = {{16, 16, 16},   {100, 5, 8}, {3, 200, 8}, {7, 9, 1},
                       {129, 257, 65}, {1, 1, 1},   {1000, 3, 7}};
  uint64_t seed = 1;
  for (const Mnk& s : sizes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        CheckMatMul(StoredA(s.m, s.k, ta), StoredB(s.k, s.n, tb), ta, tb, dtype, 1.0, seed++);
      }
    }
  }
}

TEST_P(MatMulTest, BatchesBroadcastAsNumPy) {
  const DataType dtype = GetParam();
  struct Case {
    Shape a, b;
  };
  // (m, k) = (3, 4), (k, n) = (4, 6) in the last two dims before transposes
  const Case cases[] = {
      {{2, 1, 3, 4}, {5, 4, 6}},     // (2, 5, 3, 6): both broadcast, one launch per matrix
      {{3, 3, 4}, {3, 4, 6}},        // equal batches: one strided launch
      {{3, 4}, {2, 3, 4, 6}},        // a single matrix against a batch: stride 0
      {{2, 3, 3, 4}, {4, 6}},        // a batch against a single matrix
      {{1, 3, 4}, {2, 4, 6}},        // a batch of one broadcast
      {{2, 3, 3, 4}, {3, 4, 6}},     // b repeats along the leading dim
      {{2, 1, 3, 4}, {1, 3, 4, 6}},  // each broadcasts along a different dim
  };
  uint64_t seed = 100;
  for (const Case& c : cases) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        CheckMatMul(StoredShape(c.a, ta), StoredShape(c.b, tb), ta, tb, dtype, 1.0, seed++);
      }
    }
  }
}

TEST_P(MatMulTest, BroadcastBatchShapeIsNumPys) {
  const DataType dtype = GetParam();
  const Tensor a = Unwrap(Tensor::Full({2, 1, 3, 4}, 1.0, dtype));
  const Tensor b = Unwrap(Tensor::Full({5, 4, 6}, 1.0, dtype));
  const Tensor out = Unwrap(functional::MatMul(a, b));
  EXPECT_EQ(out.shape(), Shape({2, 5, 3, 6}));
}

TEST_P(MatMulTest, OneDimensionalOperandsFollowPyTorch) {
  const DataType dtype = GetParam();
  struct Case {
    Shape a, b;
    bool ta, tb;
    Shape out;
  };
  const Case cases[] = {
      {{5}, {5}, false, false, {}},                 // dot product: rank 0
      {{5}, {5, 3}, false, false, {3}},             // row vector times matrix
      {{5}, {3, 5}, false, true, {3}},              // with b transposed
      {{4, 5}, {5}, false, false, {4}},             // matrix times column vector
      {{5, 4}, {5}, true, false, {4}},              // with a transposed
      {{5}, {2, 5, 3}, false, false, {2, 3}},       // vector times a batch
      {{5}, {2, 3, 5}, false, true, {2, 3}},        //
      {{2, 4, 5}, {5}, false, false, {2, 4}},       // a batch times a vector
      {{2, 2, 5, 4}, {5}, true, false, {2, 2, 4}},  //
      {{1}, {1}, false, false, {}},                 //
  };
  uint64_t seed = 200;
  for (const Case& c : cases) {
    CheckMatMul(c.a, c.b, c.ta, c.tb, dtype, 1.0, seed++);
    const Tensor out = Unwrap(functional::MatMul(
        Unwrap(Tensor::Full(c.a, 1.0, dtype)), Unwrap(Tensor::Full(c.b, 1.0, dtype)), c.ta, c.tb));
    EXPECT_EQ(out.shape(), c.out) << c.a << " @ " << c.b;
  }
}

TEST_P(MatMulTest, AlphaScalesTheProduct) {
  const DataType dtype = GetParam();
  for (double alpha : {2.5, -0.5, 0.0}) {
    CheckMatMul({6, 5}, {5, 7}, false, false, dtype, alpha, 300);
    CheckMatMul({4, 5}, {2, 7, 5}, false, true, dtype, alpha, 301);
    CheckMatMul({5}, {5}, false, false, dtype, alpha, 302);
  }
}

TEST_P(MatMulTest, EmptyDimsGiveEmptyTensorsOrZeros) {
  const DataType dtype = GetParam();
  struct Case {
    Shape a, b, out;
  };
  const Case cases[] = {
      {{0, 3}, {3, 4}, {0, 4}},           // M = 0: empty
      {{3, 4}, {4, 0}, {3, 0}},           // N = 0: empty
      {{3, 0}, {0, 4}, {3, 4}},           // K = 0: zeros
      {{0}, {0}, {}},                     // an empty dot product is 0
      {{2, 3, 0}, {0, 5}, {2, 3, 5}},     // K = 0 in a batch: zeros
      {{0, 3, 4}, {4, 5}, {0, 3, 5}},     // no batches: empty
      {{2, 0, 4}, {2, 4, 5}, {2, 0, 5}},  // M = 0 in a batch
      // Batches that broadcast to 2^60 empty matrices: no work (one launch each would never end).
      {{1 << 30, 1, 0, 5}, {1, 1 << 30, 5, 0}, {1 << 30, 1 << 30, 0, 0}},
      {{2, 1, 3, 4}, {1, int64_t{1} << 40, 4, 0}, {2, int64_t{1} << 40, 3, 0}},
  };
  for (const Case& c : cases) {
    for (const Device& device : Devices(dtype)) {
      // Leave nonzero results in freed memory first, so zeros cannot come from a fresh page.
      {
        const Tensor ones = Unwrap(Tensor::Full({8, 8}, 1.0, dtype, device));
        for (int i = 0; i < 4; ++i) {
          Unwrap(functional::MatMul(ones, ones));
        }
      }
      const Tensor a = Unwrap(Tensor::Full(c.a, 1.0, dtype, device));
      const Tensor b = Unwrap(Tensor::Full(c.b, 1.0, dtype, device));
      const Tensor out = Unwrap(functional::MatMul(a, b));
      EXPECT_EQ(out.shape(), c.out) << c.a << " @ " << c.b;
      for (double v : ToDoubles(Unwrap(out.To(Device::Cpu())))) {
        EXPECT_EQ(v, 0.0) << c.a << " @ " << c.b << " on " << device.ToString();
      }
    }
  }
}

// ---- Linear ---------------------------------------------------------------------------------

// Whether the fused op stores the biased sum in the dtype before the activation reads it: on
// CUDA, gelu, gelu_tanh and leaky_relu run after cuBLASLt's bias epilogue, so 16-bit results
// are rounded twice (the CPU and the relu epilogue round once).
bool RoundsBeforeActivation(const Device& device, DataType dtype, const std::string& activation) {
  return device.type() == DeviceType::kCUDA && DataTypeSize(dtype) == 2 &&
         (activation == "gelu" || activation == "gelu_tanh" || activation == "leaky_relu");
}

TEST_P(MatMulTest, LinearWithAndWithoutBiasAndEachActivation) {
  const DataType dtype = GetParam();
  const Shape x_shapes[] = {{4, 6}, {2, 3, 6}, {6}};
  uint64_t seed = 400;
  for (const Shape& x_shape : x_shapes) {
    for (bool with_bias : {false, true}) {
      for (const char* activation : {"none", "relu", "gelu", "leaky_relu"}) {
        const Host x = RandomHost(x_shape, dtype, seed++);
        const Host w = RandomHost({5, 6}, dtype, seed++);
        const Host bias = RandomHost({5}, dtype, seed++);
        const Host product = ReferenceMatMul(x, w, false, true, 1.0);
        for (const Device& device : Devices(dtype)) {
          // With a bias the fused op rounds once, at the end (or also before the activation,
          // see RoundsBeforeActivation); without, the activation takes the product rounded to
          // the dtype, as the composition does.
          Host expected = product;
          for (size_t i = 0; i < expected.values.size(); ++i) {
            double v = with_bias ? product.values[i] + bias.values[i % 5]
                                 : RoundTo({product.values[i]}, dtype)[0];
            if (with_bias && RoundsBeforeActivation(device, dtype, activation)) {
              v = RoundTo({v}, dtype)[0];
            }
            expected.values[i] = ReferenceBiasActivation(v, activation, 0.01);
          }
          const std::string what = std::string("linear ") + x_shape.ToString() +
                                   (with_bias ? " with bias " : " without bias ") + activation +
                                   " " + DataTypeName(dtype) + " on " + device.ToString();
          const Tensor bias_t =
              with_bias ? MakeTensor(bias.values, bias.shape, dtype, device) : Tensor();
          Maybe<Tensor> y =
              functional::Linear(MakeTensor(x.values, x.shape, dtype, device),
                                 MakeTensor(w.values, w.shape, dtype, device), bias_t, activation);
          ASSERT_TRUE(y.ok()) << what << ": " << y.error().ToString();
          ExpectNormClose(y.value(), expected, MatmulTolerance(dtype), what);
        }
      }
    }
  }
}

// ---- FusedMatmulBiasAct ------------------------------------------------------------------

const char* const kFusedActivations[] = {"none", "relu", "gelu", "gelu_tanh", "leaky_relu"};

// act(op(a) @ op(b) + bias) in double; round_biased: the biased sum rounded to dtype first.
Host ReferenceFused(const Host& a, const Host& b, const Host& bias, bool ta, bool tb,
                    const std::string& activation, double leaky_alpha, DataType dtype,
                    bool round_biased) {
  Host out = ReferenceBatchMatmul(a, b, ta, tb, 1.0);
  const size_t n = bias.values.size();
  for (size_t i = 0; i < out.values.size(); ++i) {
    double v = out.values[i] + bias.values[i % n];
    if (round_biased) {
      v = RoundTo({v}, dtype)[0];
    }
    out.values[i] = ReferenceBiasActivation(v, activation, leaky_alpha);
  }
  return out;
}

void CheckFused(const Mnk& s, bool ta, bool tb, const std::string& activation, DataType dtype,
                uint64_t seed, double leaky_alpha = 0.01) {
  const Host a = RandomHost(StoredA(s.m, s.k, ta), dtype, seed);
  const Host b = RandomHost(StoredB(s.k, s.n, tb), dtype, seed + 1000);
  const Host bias = RandomHost({s.n}, dtype, seed + 2000);
  for (const Device& device : Devices(dtype)) {
    const Host expected = ReferenceFused(a, b, bias, ta, tb, activation, leaky_alpha, dtype,
                                         RoundsBeforeActivation(device, dtype, activation));
    const std::string what = "fused " + activation + " " +
                             Describe(a.shape, b.shape, ta, tb, dtype, device) + " seed " +
                             std::to_string(seed);
    Maybe<Tensor> out = functional::FusedMatmulBiasAct(
        MakeTensor(a.values, a.shape, dtype, device), MakeTensor(b.values, b.shape, dtype, device),
        MakeTensor(bias.values, bias.shape, dtype, device), activation, ta, tb, leaky_alpha);
    ASSERT_TRUE(out.ok()) << what << ": " << out.error().ToString();
    EXPECT_EQ(out.value().dtype(), dtype) << what;
    EXPECT_EQ(out.value().device(), device) << what;
    ExpectNormClose(out.value(), expected, MatmulTolerance(dtype), what);
  }
}

TEST_P(MatMulTest, FusedMatmulBiasActInEveryActivationAndTransposeCombination) {
  const DataType dtype = GetParam();
  // square, odd sizes past a blocking boundary (rows of c not 16-byte aligned), K = 1, 1x1x1,
  // many short rows, a wide row
  const Mnk sizes[] = {{16, 16, 16}, {129, 257, 65}, {7, 9, 1},
                       {1, 1, 1},    {1000, 3, 7},   {2, 520, 33}};
  uint64_t seed = 500;
  for (const Mnk& s : sizes) {
    for (const char* activation : kFusedActivations) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          CheckFused(s, ta, tb, activation, dtype, seed++);
        }
      }
    }
  }
}

TEST_P(MatMulTest, FusedMatmulBiasActLeakyReluTakesItsSlope) {
  const DataType dtype = GetParam();
  CheckFused({33, 17, 12}, false, false, "leaky_relu", dtype, 600, 0.2);
  CheckFused({33, 17, 12}, true, true, "leaky_relu", dtype, 601, -1.5);
}

TEST_P(MatMulTest, FusedMatmulBiasActWithEmptyDims) {
  const DataType dtype = GetParam();
  for (const char* activation : kFusedActivations) {
    // K = 0: every row is act(bias)
    CheckFused({3, 4, 0}, false, false, activation, dtype, 700);
    CheckFused({3, 4, 0}, true, true, activation, dtype, 701);
    for (const Device& device : Devices(dtype)) {
      const Tensor out = Unwrap(functional::FusedMatmulBiasAct(
          Unwrap(Tensor::Full({0, 3}, 1.0, dtype, device)),
          Unwrap(Tensor::Full({3, 4}, 1.0, dtype, device)),
          Unwrap(Tensor::Full({4}, 1.0, dtype, device)), activation));
      EXPECT_EQ(out.shape(), Shape({0, 4})) << activation;
      const Tensor no_cols = Unwrap(functional::FusedMatmulBiasAct(
          Unwrap(Tensor::Full({2, 3}, 1.0, dtype, device)),
          Unwrap(Tensor::Full({3, 0}, 1.0, dtype, device)),
          Unwrap(Tensor::Full({0}, 1.0, dtype, device)), activation));
      EXPECT_EQ(no_cols.shape(), Shape({2, 0})) << activation;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FloatingDtypes, MatMulTest, ::testing::ValuesIn(kFloatingDtypes),
                         [](const ::testing::TestParamInfo<DataType>& info) {
                           return std::string(DataTypeName(info.param));
                         });

// ---- bad input ------------------------------------------------------------------------------

Tensor Filled(const Shape& shape, DataType dtype = DataType::kFloat32,
              const Device& device = Device::Cpu()) {
  return Unwrap(Tensor::Full(shape, 1.0, dtype, device));
}

TEST(MatMulErrors, InnerDimsThatDifferNameBothShapes) {
  for (const Device& device : Devices(DataType::kFloat32)) {
    ExpectError(functional::MatMul(Filled({2, 3}, DataType::kFloat32, device),
                                   Filled({4, 5}, DataType::kFloat32, device)),
                ErrorKind::kValueError, {"matmul", "(2, 3)", "(4, 5)", "inner dims 3 and 4"});
    ExpectError(functional::MatMul(Filled({2, 3}, DataType::kFloat32, device),
                                   Filled({2, 3}, DataType::kFloat32, device), true, true),
                ErrorKind::kValueError, {"inner dims 2 and 3", "transpose_a = true"});
    ExpectError(functional::MatMul(Filled({3}, DataType::kFloat32, device),
                                   Filled({4}, DataType::kFloat32, device)),
                ErrorKind::kValueError, {"(3,)", "(4,)", "inner dims 3 and 4"});
    ExpectError(functional::MatMul(Filled({2, 5, 3}, DataType::kFloat32, device),
                                   Filled({4, 5}, DataType::kFloat32, device)),
                ErrorKind::kValueError, {"(2, 5, 3)", "(4, 5)", "inner dims 3 and 4"});
  }
  // The ops check too, naming both shapes.
  ExpectError(DispatchOne(ops::kMatmulOp, {Filled({2, 3}), Filled({4, 5})}), ErrorKind::kValueError,
              {"matmul: a (2, 3) and b (4, 5): inner dims 3 and 4 differ"});
  ExpectError(DispatchOne(ops::kBatchMatmulOp, {Filled({2, 2, 3}), Filled({2, 4, 5})}),
              ErrorKind::kValueError, {"batch_matmul", "(2, 2, 3)", "(2, 4, 5)", "3 and 4"});
}

TEST(MatMulErrors, BatchDimsThatDoNotBroadcastNameBothShapes) {
  ExpectError(functional::MatMul(Filled({2, 3, 4}), Filled({3, 4, 5})), ErrorKind::kValueError,
              {"batch_matmul", "(2, 3, 4)", "(3, 4, 5)", "do not broadcast"});
}

TEST(MatMulErrors, RankZeroOperandsAreRefused) {
  ExpectError(functional::MatMul(Filled({}), Filled({3})), ErrorKind::kValueError,
              {"both arguments to matmul need to be at least 1-D", "rank 0", "rank 1"});
  ExpectError(functional::MatMul(Filled({2, 3}), Filled({})), ErrorKind::kValueError,
              {"at least 1-D", "rank 2", "rank 0"});
}

TEST(MatMulErrors, TransposingAOneDimensionalOperandIsRefused) {
  ExpectError(functional::MatMul(Filled({3}), Filled({3, 2}), true, false), ErrorKind::kValueError,
              {"transpose_a", "1-D", "(3,)"});
  ExpectError(functional::MatMul(Filled({2, 3}), Filled({3}), false, true), ErrorKind::kValueError,
              {"transpose_b", "1-D", "(3,)"});
}

TEST(MatMulErrors, DtypesThatDifferAreNamed) {
  ExpectError(
      functional::MatMul(Filled({2, 3}, DataType::kFloat32), Filled({3, 4}, DataType::kFloat64)),
      ErrorKind::kTypeError, {"float32", "float64"});
  ExpectError(functional::MatMul(Filled({2, 2, 3}, DataType::kFloat16),
                                 Filled({3, 4}, DataType::kBFloat16)),
              ErrorKind::kTypeError, {"float16", "bfloat16"});
}

TEST(MatMulErrors, IntegerAndBoolDtypesAreNotImplemented) {
  for (DataType dtype :
       {DataType::kInt8, DataType::kUInt8, DataType::kInt32, DataType::kInt64, DataType::kBool}) {
    ExpectError(functional::MatMul(Filled({2, 3}, dtype), Filled({3, 4}, dtype)),
                ErrorKind::kNotImplemented, {"matmul", DataTypeName(dtype), "floating"});
    ExpectError(functional::MatMul(Filled({2, 2, 3}, dtype), Filled({3, 4}, dtype)),
                ErrorKind::kNotImplemented, {"batch_matmul", DataTypeName(dtype)});
  }
}

TEST(MatMulErrors, OpsCheckTheirRanks) {
  ExpectError(DispatchOne(ops::kMatmulOp, {Filled({2, 2, 3}), Filled({3, 4})}),
              ErrorKind::kValueError, {"matmul", "a must have rank 2", "rank 3"});
  ExpectError(DispatchOne(ops::kMatmulOp, {Filled({2, 3}), Filled({3})}), ErrorKind::kValueError,
              {"matmul", "b must have rank 2", "rank 1"});
  ExpectError(DispatchOne(ops::kBatchMatmulOp, {Filled({3}), Filled({3, 4})}),
              ErrorKind::kValueError, {"batch_matmul", "a must have rank >= 2", "rank 1"});
}

TEST(MatMulErrors, UndefinedOperandsAreRefused) {
  ExpectError(functional::MatMul(Tensor(), Filled({3})), ErrorKind::kValueError,
              {"matmul", "a is undefined"});
}

TEST(LinearErrors, BadArgumentsAreRefused) {
  ExpectError(functional::Linear(Filled({4, 6}), Filled({5, 6}), Tensor(), "tanh"),
              ErrorKind::kValueError, {"linear", "activation", "\"tanh\"", "leaky_relu"});
  ExpectError(functional::Linear(Filled({4, 6}), Filled({5, 7}), Tensor()), ErrorKind::kValueError,
              {"linear", "(4, 6)", "(5, 7)", "7"});
  ExpectError(functional::Linear(Filled({4, 6}), Filled({6}), Tensor()), ErrorKind::kValueError,
              {"linear", "weight must have rank 2"});
  ExpectError(functional::Linear(Filled({4, 6}), Filled({5, 6}), Filled({4})),
              ErrorKind::kValueError, {"linear", "bias", "(5,)", "(4,)"});
  ExpectError(functional::Linear(Filled({4, 6}), Filled({5, 6}), Filled({5}, DataType::kFloat64)),
              ErrorKind::kTypeError, {"linear", "bias", "float32", "float64"});
  // the user's argument names, not the ops' a and b
  ExpectError(functional::Linear(Filled({4, 6}), Filled({5, 6}, DataType::kFloat64), Tensor()),
              ErrorKind::kTypeError, {"linear", "weight", "float32", "float64"});
  ExpectError(functional::Linear(Filled({4, 6}, DataType::kInt32), Filled({5, 6}, DataType::kInt32),
                                 Tensor()),
              ErrorKind::kNotImplemented, {"linear", "x", "floating", "int32"});
}

// BLAS's rule, the same on every device: alpha = 0 reads neither operand.
TEST(MatMulSemantics, AlphaZeroGivesZerosWithoutReadingTheOperands) {
  const Tensor nan_a = Unwrap(Tensor::Full({2, 3}, std::nan(""), DataType::kFloat32));
  const Tensor ones = Unwrap(Tensor::Full({3, 2}, 1.0, DataType::kFloat32));
  EXPECT_EQ(ToDoubles(Unwrap(functional::MatMul(nan_a, ones, false, false, 0.0))),
            std::vector<double>(4, 0.0));
}

TEST(FusedMatmulBiasActErrors, BadArgumentsAreRefused) {
  for (const Device& device : Devices(DataType::kFloat32)) {
    const auto f = [&](const Shape& shape, DataType dtype = DataType::kFloat32) {
      return Filled(shape, dtype, device);
    };
    ExpectError(functional::FusedMatmulBiasAct(f({4, 6}), f({6, 5}), f({4}), "relu"),
                ErrorKind::kValueError,
                {"fused_matmul_bias_act", "bias must have shape (5,)", "got (4,)"});
    ExpectError(functional::FusedMatmulBiasAct(f({4, 6}), f({5, 6}), f({6}), "none", false, true),
                ErrorKind::kValueError, {"bias must have shape (5,)", "transpose_b", "got (6,)"});
    ExpectError(functional::FusedMatmulBiasAct(f({4, 6}), f({6, 5}), f({1, 5}), "none"),
                ErrorKind::kValueError, {"bias must have shape (5,)", "got (1, 5)"});
    ExpectError(
        functional::FusedMatmulBiasAct(f({4, 6}), f({6, 5}), f({5}, DataType::kFloat64), "none"),
        ErrorKind::kTypeError, {"fused_matmul_bias_act", "bias", "float32", "float64"});
    ExpectError(functional::FusedMatmulBiasAct(f({4, 6}), f({6, 5}), f({5}), "swish"),
                ErrorKind::kValueError,
                {"fused_matmul_bias_act", "unknown activation \"swish\"", "gelu_tanh"});
    // matmul's own checks
    ExpectError(functional::FusedMatmulBiasAct(f({4, 6}), f({7, 5}), f({5}), "none"),
                ErrorKind::kValueError,
                {"fused_matmul_bias_act: a (4, 6) and b (7, 5): inner dims 6 and 7 differ"});
    ExpectError(functional::FusedMatmulBiasAct(f({2, 4, 6}), f({6, 5}), f({5}), "none"),
                ErrorKind::kValueError, {"fused_matmul_bias_act", "a must have rank 2", "rank 3"});
    ExpectError(
        functional::FusedMatmulBiasAct(f({4, 6}), f({6, 5}, DataType::kFloat64), f({5}), "none"),
        ErrorKind::kTypeError, {"a and b must have the same dtype", "float32", "float64"});
    ExpectError(functional::FusedMatmulBiasAct(f({4, 6}), f({6, 5}), Tensor(), "none"),
                ErrorKind::kValueError, {"fused_matmul_bias_act", "bias is undefined"});
  }
  ExpectError(functional::FusedMatmulBiasAct(Filled({4, 6}, DataType::kInt32),
                                             Filled({6, 5}, DataType::kInt32),
                                             Filled({5}, DataType::kInt32), "none"),
              ErrorKind::kNotImplemented, {"fused_matmul_bias_act", "int32", "floating"});
}

#ifdef OFLITE_WITH_CUDA
// The epilogue is part of the plan's key: relu_bias is a plan of its own, and gelu, gelu_tanh
// and leaky_relu share the bias epilogue's plan (their activation runs after it).
TEST(FusedMatmulBiasActCuda, EpilogueEntersThePlanCacheKey) {
  if (!ep::GetDevice(Device::Cuda(0)).ok()) {
    GTEST_SKIP() << "no CUDA device visible";
  }
  const Device cuda = Device::Cuda(0);
  const Tensor a = Unwrap(Tensor::Full({40, 24}, 0.5, DataType::kFloat16, cuda));
  const Tensor b = Unwrap(Tensor::Full({24, 56}, 0.25, DataType::kFloat16, cuda));
  const Tensor bias = Unwrap(Tensor::Full({56}, 1.0, DataType::kFloat16, cuda));
  const size_t before = ep::CudaBatchMatmulPlanCacheSize();
  Unwrap(functional::FusedMatmulBiasAct(a, b, bias, "none"));
  EXPECT_EQ(ep::CudaBatchMatmulPlanCacheSize(), before + 1);
  Unwrap(functional::FusedMatmulBiasAct(a, b, bias, "relu"));
  EXPECT_EQ(ep::CudaBatchMatmulPlanCacheSize(), before + 2);
  Unwrap(functional::FusedMatmulBiasAct(a, b, bias, "gelu_tanh"));
  Unwrap(functional::FusedMatmulBiasAct(a, b, bias, "gelu"));
  Unwrap(functional::FusedMatmulBiasAct(a, b, bias, "leaky_relu"));
  Unwrap(functional::FusedMatmulBiasAct(a, b, bias, "relu"));
  EXPECT_EQ(ep::CudaBatchMatmulPlanCacheSize(), before + 2);
  Unwrap(functional::MatMul(a, b));  // no epilogue: another plan
  EXPECT_EQ(ep::CudaBatchMatmulPlanCacheSize(), before + 3);
}
#endif

}  // namespace
}  // namespace test
}  // namespace oflite
