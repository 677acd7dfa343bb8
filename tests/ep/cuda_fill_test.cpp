// CUDA Fill for every dtype: the bits on the device equal the CPU fill's bits, exactly the
// requested elements are written (poisoned neighbours stay), grids larger than one launch wave
// are covered, and Tensor::Full works on cuda. Skips itself where no GPU is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "oneflow_lite/primitive/fill.h"
#include "oneflow_lite/primitive/memcpy.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

std::vector<uint8_t> Bytes(const Tensor& tensor) {
  std::vector<uint8_t> bytes(tensor.nbytes());
  EXPECT_TRUE(tensor.CopyToHost(bytes.data(), bytes.size()).ok());
  return bytes;
}

// Values each dtype can hold (Tensor::Full refuses the others).
std::vector<double> FillValues(DataType dtype) {
  switch (dtype) {
    case DataType::kBool:
      return {0.0, 1.0, 2.5, -0.25};
    case DataType::kUInt8:
      return {0.0, 7.0, 200.0, 255.0};
    case DataType::kInt8:
    case DataType::kInt32:
    case DataType::kInt64:
      return {0.0, -7.0, 42.0, 127.0};
    default:
      // 1 + 2^-11 + 2^-40 lies just above a float16 tie: rounding it through a plain float
      // would land on the tie and round down; the CPU rounds it up, and so must the GPU.
      return {0.0,
              -2.0,
              0.1,
              1.0 / 3.0,
              1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
              -1e-30,
              std::numeric_limits<double>::infinity(),
              std::numeric_limits<double>::quiet_NaN()};
  }
}

class CudaFillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
    device_ = Unwrap(ep::GetDevice(Device::Cuda(0)));
  }
  ep::Device* device_ = nullptr;
};

TEST_F(CudaFillTest, FullMatchesTheCpuBitForBitInEveryDtype) {
  for (DataType dtype : AllDataTypes()) {
    for (double value : FillValues(dtype)) {
      for (const Shape& shape : {Shape{1}, Shape{3, 1001}, Shape{1000003}}) {
        const Tensor cpu = Unwrap(Tensor::Full(shape, value, dtype, Device::Cpu()));
        const Tensor cuda = Unwrap(Tensor::Full(shape, value, dtype, Device::Cuda(0)));
        EXPECT_EQ(cuda.device(), Device::Cuda(0));
        EXPECT_TRUE(Bytes(cuda) == Bytes(cpu))
            << DataTypeName(dtype) << " value " << value << " shape " << shape;
      }
    }
  }
  // The tie case, spelled out: 1 + 2^-10 in float16.
  const Tensor tie =
      Unwrap(Tensor::Full(Shape{2}, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
                          DataType::kFloat16, Device::Cuda(0)));
  EXPECT_EQ(ToDoubles(tie),
            (std::vector<double>{1.0 + std::ldexp(1.0, -10), 1.0 + std::ldexp(1.0, -10)}));
}

TEST_F(CudaFillTest, FullOfNothingAndBadValues) {
  const Tensor empty = Unwrap(Tensor::Full(Shape{0, 5}, 1.0, DataType::kFloat32, Device::Cuda(0)));
  EXPECT_EQ(empty.elem_cnt(), 0);
  ExpectError(Tensor::Full(Shape{2}, 300.0, DataType::kInt8, Device::Cuda(0)),
              ErrorKind::kValueError, {"cannot be stored as int8"});
}

TEST_F(CudaFillTest, WritesExactlyTheRequestedElements) {
  // Fill count elements starting one element into a poisoned buffer: the element before and
  // the elements after must keep the poison.
  auto to_device = primitive::NewPrimitive<primitive::MemcpyFactory>(
      DeviceType::kCUDA, primitive::MemcpyKind::kHostToDevice);
  auto to_host = primitive::NewPrimitive<primitive::MemcpyFactory>(
      DeviceType::kCUDA, primitive::MemcpyKind::kDeviceToHost);
  ep::Stream* stream = device_->default_stream();
  const size_t count = 4099;
  const size_t tail = 61;
  for (DataType dtype : AllDataTypes()) {
    auto fill = primitive::NewPrimitive<primitive::FillFactory>(DeviceType::kCUDA, dtype);
    ASSERT_NE(fill, nullptr) << DataTypeName(dtype);
    EXPECT_EQ(fill->name(), std::string("cuda.fill<") + DataTypeName(dtype) + ">");
    const size_t size = DataTypeSize(dtype);
    const size_t bytes = (1 + count + tail) * size;
    void* buffer = Unwrap(device_->allocator()->Allocate(bytes, nullptr));
    std::vector<uint8_t> poison(bytes, 0xA5);
    ASSERT_TRUE(to_device->Launch(stream, buffer, poison.data(), bytes).ok());
    const double value = dtype == DataType::kBool ? 1.0 : 3.0;
    ASSERT_TRUE(fill->Launch(stream, static_cast<char*>(buffer) + size, value, count).ok());
    ASSERT_TRUE(fill->Launch(stream, buffer, value, 0).ok());  // zero elements: nothing
    std::vector<uint8_t> back(bytes);
    ASSERT_TRUE(to_host->Launch(stream, back.data(), buffer, bytes).ok());
    ASSERT_TRUE(stream->Sync().ok());
    const std::vector<uint8_t> one = Bytes(Unwrap(Tensor::Full(Shape{1}, value, dtype)));
    std::vector<uint8_t> expected = poison;
    for (size_t i = 0; i < count; ++i) {
      std::copy(one.begin(), one.end(), expected.begin() + (1 + i) * size);
    }
    EXPECT_TRUE(back == expected) << DataTypeName(dtype);
    device_->allocator()->Deallocate(buffer, bytes, nullptr);
  }
}

TEST_F(CudaFillTest, GridStrideCoversMoreThanOneWave) {
  // More elements than the launch has threads (blocks are capped at 32 waves of the device).
  const int64_t count = int64_t{40} << 20;
  const Tensor x = Unwrap(Tensor::Full(Shape{count}, 9.0, DataType::kInt8, Device::Cuda(0)));
  const std::vector<uint8_t> bytes = Bytes(x);
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), uint8_t{9}), count);
}

TEST_F(CudaFillTest, NonCudaStreamIsValueError) {
  auto fill =
      primitive::NewPrimitive<primitive::FillFactory>(DeviceType::kCUDA, DataType::kFloat32);
  ASSERT_NE(fill, nullptr);
  float x = 0;
  ExpectError(fill->Launch(Unwrap(ep::GetDevice(Device::Cpu()))->default_stream(), &x, 1.0, 1),
              ErrorKind::kValueError, {"cuda.fill<float32>", "needs a cuda stream"});
}

}  // namespace
}  // namespace test
}  // namespace oflite
