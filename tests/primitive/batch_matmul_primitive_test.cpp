// The CPU BatchMatmul primitive directly: strides (including 0, a broadcast matrix), beta (the
// kernels always pass 0), k = 0, and which dtypes have one.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "oneflow_lite/primitive/batch_matmul.h"
#include "ops/matmul_reference.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

ep::Stream* CpuStream() { return Unwrap(ep::GetDevice(Device::Cpu()))->default_stream(); }

const DataType kFloatingDtypes[] = {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16,
                                    DataType::kBFloat16};

// c[i] = alpha * a[i or 0] @ b[i] + beta * c0[i], no transposes: the ops' reference (a single
// matrix is a batch of one, which broadcasts) plus beta's term.
std::vector<double> Reference(size_t batch, size_t m, size_t n, size_t k, double alpha,
                              const std::vector<double>& a, bool a_single,
                              const std::vector<double>& b, double beta,
                              const std::vector<double>& c0) {
  const auto dim = [](size_t d) { return static_cast<int64_t>(d); };
  const HostTensor ha{Shape{dim(a_single ? 1 : batch), dim(m), dim(k)}, DataType::kFloat64, a};
  const HostTensor hb{Shape{dim(batch), dim(k), dim(n)}, DataType::kFloat64, b};
  std::vector<double> c = ReferenceBatchMatmul(ha, hb, false, false, alpha).values;
  for (size_t e = 0; e < c.size(); ++e) {
    c[e] += beta == 0 ? 0.0 : beta * c0[e];
  }
  return c;
}

class BatchMatmulPrimitiveTest : public ::testing::TestWithParam<DataType> {};

TEST_P(BatchMatmulPrimitiveTest, StridesAlphaAndBeta) {
  const DataType dtype = GetParam();
  const size_t batch = 3, m = 5, n = 7, k = 4;
  auto matmul =
      primitive::NewPrimitive<primitive::BatchMatmulFactory>(DeviceType::kCPU, dtype, false, false);
  ASSERT_NE(matmul, nullptr);
  for (bool a_single : {false, true}) {
    for (double beta : {0.0, 0.5}) {
      const std::vector<double> a =
          RoundTo(RandomValues((a_single ? 1 : batch) * m * k, 1, -1, 1), dtype);
      const std::vector<double> b = RoundTo(RandomValues(batch * k * n, 2, -1, 1), dtype);
      std::vector<double> c0 = RoundTo(RandomValues(batch * m * n, 3, -1, 1), dtype);
      Tensor c;
      if (beta == 0) {  // beta = 0 ignores c, NaN included
        c = Unwrap(Tensor::Full({static_cast<int64_t>(batch * m * n)}, NAN, dtype));
      } else {
        c = MakeTensor(c0, {static_cast<int64_t>(batch * m * n)}, dtype);
      }
      const Tensor at = MakeTensor(a, {static_cast<int64_t>(a.size())}, dtype);
      const Tensor bt = MakeTensor(b, {static_cast<int64_t>(b.size())}, dtype);
      ASSERT_TRUE(matmul
                      ->Launch(CpuStream(), batch, m, n, k, 1.5, at.data(),
                               a_single ? 0 : static_cast<int64_t>(m * k), bt.data(),
                               static_cast<int64_t>(k * n), beta, c.mut_data(),
                               static_cast<int64_t>(m * n))
                      .ok());
      ExpectAllClose(ToDoubles(c), Reference(batch, m, n, k, 1.5, a, a_single, b, beta, c0),
                     MatmulTolerance(dtype),
                     std::string(DataTypeName(dtype)) + (a_single ? " a single" : "") + " beta " +
                         std::to_string(beta),
                     /*floor=*/1.0);
    }
  }
}

TEST_P(BatchMatmulPrimitiveTest, EmptyInnerDimScalesC) {
  const DataType dtype = GetParam();
  auto matmul =
      primitive::NewPrimitive<primitive::BatchMatmulFactory>(DeviceType::kCPU, dtype, true, true);
  ASSERT_NE(matmul, nullptr);
  const Tensor nan_c = Unwrap(Tensor::Full({2, 3, 4}, NAN, dtype));
  ASSERT_TRUE(
      matmul
          ->Launch(CpuStream(), 2, 3, 4, 0, 1.0, nullptr, 0, nullptr, 0, 0.0, nan_c.mut_data(), 12)
          .ok());
  for (double v : ToDoubles(nan_c)) {
    EXPECT_EQ(v, 0.0);
  }
  const Tensor c = Unwrap(Tensor::Full({2, 3, 4}, 1.5, dtype));
  ASSERT_TRUE(
      matmul->Launch(CpuStream(), 2, 3, 4, 0, 1.0, nullptr, 0, nullptr, 0, 2.0, c.mut_data(), 12)
          .ok());
  for (double v : ToDoubles(c)) {
    EXPECT_EQ(v, 3.0);
  }
  // m = 0 or n = 0: nothing to touch.
  EXPECT_TRUE(
      matmul->Launch(CpuStream(), 2, 0, 4, 3, 1.0, nullptr, 0, nullptr, 0, 0.0, nullptr, 0).ok());
  EXPECT_TRUE(
      matmul->Launch(CpuStream(), 2, 3, 0, 3, 1.0, nullptr, 0, nullptr, 0, 0.0, nullptr, 0).ok());
}

INSTANTIATE_TEST_SUITE_P(FloatingDtypes, BatchMatmulPrimitiveTest,
                         ::testing::ValuesIn(kFloatingDtypes),
                         [](const ::testing::TestParamInfo<DataType>& info) {
                           return std::string(DataTypeName(info.param));
                         });

TEST(BatchMatmulPrimitive, StridesThatOverlapOutputsAreErrors) {
  auto matmul = primitive::NewPrimitive<primitive::BatchMatmulFactory>(
      DeviceType::kCPU, DataType::kFloat32, false, false);
  ASSERT_NE(matmul, nullptr);
  std::vector<float> a(4, 1.0f), b(4, 1.0f), c(8, 0.0f);
  ExpectError(matmul->Launch(CpuStream(), 2, 2, 2, 2, 1, a.data(), 0, b.data(), 0, 0, c.data(), 0),
              ErrorKind::kValueError, {"cpu.batch_matmul<float32>", "stride_c 0 with batch 2"});
  ExpectError(matmul->Launch(CpuStream(), 2, 2, 2, 2, 1, a.data(), -4, b.data(), 0, 0, c.data(), 4),
              ErrorKind::kValueError, {"negative batch stride"});
  // an empty output writes nothing, whatever the strides
  EXPECT_TRUE(
      matmul->Launch(CpuStream(), 2, 0, 2, 2, 1, nullptr, 0, nullptr, 0, 0, nullptr, 0).ok());
}

TEST(BatchMatmulPrimitive, IntegerAndBoolDtypesHaveNone) {
  for (DataType dtype :
       {DataType::kInt8, DataType::kUInt8, DataType::kInt32, DataType::kInt64, DataType::kBool}) {
    for (bool t : {false, true}) {
      EXPECT_EQ(
          primitive::NewPrimitive<primitive::BatchMatmulFactory>(DeviceType::kCPU, dtype, t, t),
          nullptr)
          << DataTypeName(dtype);
    }
  }
}

TEST(BatchMatmulPrimitive, DescribesItsGemm) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  auto matmul = primitive::NewPrimitive<primitive::BatchMatmulFactory>(
      DeviceType::kCPU, DataType::kFloat16, false, true);
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->name(), "cpu.batch_matmul<float16>");
  EXPECT_EQ(notes.Describe(*matmul), "cpu.batch_matmul<float16>");  // nothing launched yet
  const std::vector<float16> a(2, float16(1.0f)), b(2, float16(2.0f)), bias(1, float16(0.5f));
  std::vector<float16> c(1);
  ASSERT_TRUE(
      matmul->Launch(nullptr, 1, 1, 1, 2, 1.0, a.data(), 0, b.data(), 0, 0.0, c.data(), 0).ok());
  EXPECT_EQ(notes.Describe(*matmul), "cpu.batch_matmul<float16>[onednn sgemm nt]");
  ASSERT_TRUE(matmul
                  ->LaunchBiasAct(nullptr, 1, 1, 2, a.data(), b.data(), bias.data(),
                                  primitive::BiasActivation::kRelu, 0.0, c.data())
                  .ok());
  EXPECT_EQ(notes.Describe(*matmul), "cpu.batch_matmul<float16>[onednn sgemm nt + bias, relu]");
  EXPECT_EQ(static_cast<float>(c[0]), 4.5f);
}

}  // namespace
}  // namespace test
}  // namespace oflite
