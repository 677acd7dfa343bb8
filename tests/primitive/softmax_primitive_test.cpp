// CPU softmax-family primitives against the double-precision reference, every float dtype,
// row lengths around the sizes the CUDA provider will switch implementations at.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ep/cpu/primitive/streaming_store.h"
#include "oneflow_lite/primitive/softmax.h"
#include "oneflow_lite/primitive/softmax_backward.h"
#include "ops/softmax_reference.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

struct RowShape {
  size_t rows;
  size_t cols;
};
// Ends with a 1M-column row: long rows are where a float row sum drifts past the tolerance.
const RowShape kRowShapes[] = {{1, 1},    {3, 7},    {5, 32},   {4, 33},    {2, 1000},
                               {3, 1024}, {2, 1025}, {2, 4096}, {1, 12345}, {1, 1 << 20}};

ep::Stream* CpuStream() { return Unwrap(ep::GetDevice(Device::Cpu()))->default_stream(); }

// An output tensor poisoned with NaN, so an element the primitive skips fails the comparison.
Tensor Poisoned(const Shape& shape, DataType dtype) {
  return Unwrap(Tensor::Full(shape, NAN, dtype));
}

class SoftmaxPrimitiveTest : public ::testing::TestWithParam<DataType> {};

TEST_P(SoftmaxPrimitiveTest, ForwardMatchesReference) {
  const DataType dtype = GetParam();
  for (bool log : {false, true}) {
    for (const RowShape& rs : kRowShapes) {
      const Shape shape = {static_cast<int64_t>(rs.rows), static_cast<int64_t>(rs.cols)};
      const uint64_t seed = rs.rows * 7919 + rs.cols;
      const std::vector<double> x = RoundTo(RandomValues(rs.rows * rs.cols, seed), dtype);
      const Tensor x_t = MakeTensor(x, shape, dtype);
      const Tensor y_t = Poisoned(shape, dtype);
      std::unique_ptr<primitive::Softmax> softmax;
      std::unique_ptr<primitive::LogSoftmax> log_softmax;
      if (log) {
        log_softmax =
            primitive::NewPrimitive<primitive::LogSoftmaxFactory>(DeviceType::kCPU, dtype);
        ASSERT_NE(log_softmax, nullptr);
        ASSERT_TRUE(
            log_softmax->Launch(CpuStream(), rs.rows, rs.cols, x_t.data(), y_t.mut_data()).ok());
      } else {
        softmax = primitive::NewPrimitive<primitive::SoftmaxFactory>(DeviceType::kCPU, dtype);
        ASSERT_NE(softmax, nullptr);
        ASSERT_TRUE(
            softmax->Launch(CpuStream(), rs.rows, rs.cols, x_t.data(), y_t.mut_data()).ok());
      }
      ExpectAllClose(ToDoubles(y_t), ReferenceSoftmax(x, shape, 1, log), SoftmaxTolerance(dtype),
                     std::string(log ? "log_softmax " : "softmax ") + DataTypeName(dtype) + " " +
                         shape.ToString() + " seed " + std::to_string(seed),
                     SmallestNormal(dtype), SoftmaxScale(x, shape, 1, log));
    }
  }
}

TEST_P(SoftmaxPrimitiveTest, BackwardMatchesReference) {
  const DataType dtype = GetParam();
  for (bool log : {false, true}) {
    for (const RowShape& rs : kRowShapes) {
      const Shape shape = {static_cast<int64_t>(rs.rows), static_cast<int64_t>(rs.cols)};
      const uint64_t seed = rs.rows * 104729 + rs.cols;
      // y as the forward pass makes it, so the sums have realistic magnitudes.
      const std::vector<double> y =
          RoundTo(ReferenceSoftmax(RandomValues(rs.rows * rs.cols, seed), shape, 1, log), dtype);
      const std::vector<double> dy = RoundTo(RandomValues(rs.rows * rs.cols, seed + 1), dtype);
      const Tensor y_t = MakeTensor(y, shape, dtype), dy_t = MakeTensor(dy, shape, dtype);
      const Tensor dx_t = Poisoned(shape, dtype);
      Maybe<void> launched = Ok();
      if (log) {
        auto p =
            primitive::NewPrimitive<primitive::LogSoftmaxBackwardFactory>(DeviceType::kCPU, dtype);
        ASSERT_NE(p, nullptr);
        launched =
            p->Launch(CpuStream(), rs.rows, rs.cols, y_t.data(), dy_t.data(), dx_t.mut_data());
      } else {
        auto p =
            primitive::NewPrimitive<primitive::SoftmaxBackwardFactory>(DeviceType::kCPU, dtype);
        ASSERT_NE(p, nullptr);
        launched =
            p->Launch(CpuStream(), rs.rows, rs.cols, y_t.data(), dy_t.data(), dx_t.mut_data());
      }
      ASSERT_TRUE(launched.ok());
      const std::vector<double> expected = ReferenceSoftmaxGrad(y, dy, shape, 1, log);
      ExpectAllClose(ToDoubles(dx_t), expected, SoftmaxTolerance(dtype),
                     std::string(log ? "log_softmax_backward " : "softmax_backward ") +
                         DataTypeName(dtype) + " " + shape.ToString() + " seed " +
                         std::to_string(seed),
                     SmallestNormal(dtype), SoftmaxGradScale(y, dy, shape, 1, log));
    }
  }
}

TEST_P(SoftmaxPrimitiveTest, NameSaysDeviceAlgorithmAndDtype) {
  const DataType dtype = GetParam();
  auto softmax = primitive::NewPrimitive<primitive::SoftmaxFactory>(DeviceType::kCPU, dtype);
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(softmax->name(), std::string("cpu.softmax<") + DataTypeName(dtype) + ">");
}

INSTANTIATE_TEST_SUITE_P(FloatDtypes, SoftmaxPrimitiveTest,
                         ::testing::Values(DataType::kFloat32, DataType::kFloat64,
                                           DataType::kFloat16, DataType::kBFloat16),
                         [](const auto& info) { return std::string(DataTypeName(info.param)); });

// y == x (the primitive works in place): each row's tail pack is read back from the row only,
// and reads never run past the chunk a thread owns.
TEST(SoftmaxPrimitive, InPlaceMatchesOutOfPlace) {
  for (const bool log : {false, true}) {
    for (const size_t cols : {size_t{7}, size_t{20}, size_t{1000}, size_t{1029}}) {
      const size_t rows = 67;
      const std::vector<double> values = RandomValues(rows * cols, 90 + cols);
      std::vector<float> x(values.begin(), values.end()), y(x.size()), inplace = x;
      if (log) {
        auto p = primitive::NewPrimitive<primitive::LogSoftmaxFactory>(DeviceType::kCPU,
                                                                       DataType::kFloat32);
        ASSERT_TRUE(p->Launch(CpuStream(), rows, cols, x.data(), y.data()).ok());
        ASSERT_TRUE(p->Launch(CpuStream(), rows, cols, inplace.data(), inplace.data()).ok());
      } else {
        auto p = primitive::NewPrimitive<primitive::SoftmaxFactory>(DeviceType::kCPU,
                                                                    DataType::kFloat32);
        ASSERT_TRUE(p->Launch(CpuStream(), rows, cols, x.data(), y.data()).ok());
        ASSERT_TRUE(p->Launch(CpuStream(), rows, cols, inplace.data(), inplace.data()).ok());
      }
      EXPECT_EQ(std::memcmp(y.data(), inplace.data(), y.size() * sizeof(float)), 0)
          << (log ? "log_softmax" : "softmax") << " cols " << cols;
    }
  }
}

// A log_softmax output of kStreamingBytes or more is written with non-temporal stores: every
// element as a call on its row alone (too small to stream) writes it, rows of odd length
// starting at every 16-byte offset, out of place and in place.
TEST(SoftmaxPrimitive, StreamedLogSoftmaxMatchesRowByRow) {
  const size_t cols = 4099;
  const size_t rows = static_cast<size_t>(ep::kStreamingBytes) / (cols * sizeof(float)) + 3;
  const std::vector<double> values = RandomValues(rows * cols, 4099);
  std::vector<float> x(values.begin(), values.end()), y(x.size(), NAN), inplace = x;
  auto p =
      primitive::NewPrimitive<primitive::LogSoftmaxFactory>(DeviceType::kCPU, DataType::kFloat32);
  ASSERT_TRUE(p->Launch(CpuStream(), rows, cols, x.data(), y.data()).ok());
  ASSERT_TRUE(p->Launch(CpuStream(), rows, cols, inplace.data(), inplace.data()).ok());
  std::vector<float> row(cols);
  for (size_t r = 0; r < rows; ++r) {
    ASSERT_TRUE(p->Launch(CpuStream(), 1, cols, x.data() + r * cols, row.data()).ok());
    ASSERT_EQ(std::memcmp(row.data(), y.data() + r * cols, cols * sizeof(float)), 0) << "row " << r;
    ASSERT_EQ(std::memcmp(row.data(), inplace.data() + r * cols, cols * sizeof(float)), 0)
        << "in place, row " << r;
  }
}

// Rows whose max dominates (the sum of exponentials just above 1, as in a confident
// classifier's logits): log_softmax's outputs near 0 keep float's relative precision against a
// double reference, at every row length and with the max in any lane, or tied.
TEST(SoftmaxPrimitive, LogSoftmaxKeepsOutputsNearZeroWhereTheMaxDominates) {
  auto p =
      primitive::NewPrimitive<primitive::LogSoftmaxFactory>(DeviceType::kCPU, DataType::kFloat32);
  for (const size_t cols : {size_t{17}, size_t{1000}, size_t{1024}, size_t{32000}}) {
    for (const size_t at : {size_t{0}, cols / 2 + 5, cols - 1}) {
      for (const bool tie : {false, true}) {
        std::vector<float> x(cols);
        for (size_t j = 0; j < cols; ++j) {  // terms about e^-13 each, of varied mantissas
          x[j] = -13.0f + 0.5f * static_cast<float>(std::sin(0.7 * static_cast<double>(j)));
        }
        x[at] = 2.0f;
        if (tie) {
          x[cols / 3] = 2.0f;
        }
        std::vector<float> y(cols, NAN);
        ASSERT_TRUE(p->Launch(CpuStream(), 1, cols, x.data(), y.data()).ok());
        double sum = 0;
        for (const float v : x) {
          sum += std::exp(static_cast<double>(v) - 2.0);
        }
        for (size_t j = 0; j < cols; ++j) {
          const double expected = static_cast<double>(x[j]) - 2.0 - std::log(sum);
          ASSERT_NEAR(y[j], expected, 2e-6 * std::fabs(expected) + 1e-12)
              << "cols " << cols << ", max at " << at << (tie ? " and tied" : "") << ", column "
              << j;
        }
      }
    }
  }
}

TEST(SoftmaxPrimitive, FactoryRefusesNonFloatingDtypes) {
  for (DataType dtype :
       {DataType::kInt8, DataType::kUInt8, DataType::kInt32, DataType::kInt64, DataType::kBool}) {
    EXPECT_EQ(primitive::NewPrimitive<primitive::SoftmaxFactory>(DeviceType::kCPU, dtype), nullptr)
        << DataTypeName(dtype);
    EXPECT_EQ(primitive::NewPrimitive<primitive::SoftmaxBackwardFactory>(DeviceType::kCPU, dtype),
              nullptr)
        << DataTypeName(dtype);
  }
}

}  // namespace
}  // namespace test
}  // namespace oflite
