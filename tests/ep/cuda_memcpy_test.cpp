// CUDA Memcpy in every direction: pageable host memory through the pinned staging buffer at
// sizes around its chunk boundaries, device-to-device copies, unaligned ranges, and the
// tensor-level round trip. Skips itself where no GPU is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "oneflow_lite/primitive/memcpy.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

// PinnedStagingBuffer::kChunkBytes (ep/cuda/pinned_staging_buffer.h): sizes below straddle it.
constexpr size_t kChunk = size_t{4} << 20;

std::vector<uint8_t> RandomBytes(size_t count, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<uint8_t> bytes(count);
  for (uint8_t& b : bytes) {
    b = static_cast<uint8_t>(engine());
  }
  return bytes;
}

class CudaMemcpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
    device_ = Unwrap(ep::GetDevice(Device::Cuda(0)));
  }
  void TearDown() override {
    for (auto& block : blocks_) {
      device_->allocator()->Deallocate(block.first, block.second, nullptr);
    }
  }
  void* DeviceBuffer(size_t bytes) {
    void* ptr = Unwrap(device_->allocator()->Allocate(bytes, nullptr));
    blocks_.emplace_back(ptr, bytes);
    return ptr;
  }
  std::unique_ptr<primitive::Memcpy> NewMemcpy(primitive::MemcpyKind kind) {
    return primitive::NewPrimitive<primitive::MemcpyFactory>(DeviceType::kCUDA, kind);
  }
  ep::Stream* stream() { return device_->default_stream(); }

  ep::Device* device_ = nullptr;
  std::vector<std::pair<void*, size_t>> blocks_;
};

TEST_F(CudaMemcpyTest, PageableHostRoundTripsAcrossChunkBoundaries) {
  auto to_device = NewMemcpy(primitive::MemcpyKind::kHostToDevice);
  auto on_device = NewMemcpy(primitive::MemcpyKind::kDeviceToDevice);
  auto to_host = NewMemcpy(primitive::MemcpyKind::kDeviceToHost);
  ASSERT_NE(to_device, nullptr);
  ASSERT_NE(on_device, nullptr);
  ASSERT_NE(to_host, nullptr);
  EXPECT_EQ(to_device->name(), "cuda.memcpy<host_to_device>");
  EXPECT_EQ(to_host->name(), "cuda.memcpy<device_to_host>");
  EXPECT_EQ(on_device->name(), "cuda.memcpy<device_to_device>");
  const size_t sizes[] = {1,      7,          4093,           kChunk - 1,
                          kChunk, kChunk + 1, 2 * kChunk + 3, 5 * kChunk + 13};
  uint64_t seed = 100;
  for (size_t bytes : sizes) {
    const std::vector<uint8_t> source = RandomBytes(bytes, ++seed);
    void* a = DeviceBuffer(bytes);
    void* b = DeviceBuffer(bytes);
    std::vector<uint8_t> back(bytes, 0xAB);
    ASSERT_TRUE(to_device->Launch(stream(), a, source.data(), bytes).ok());
    ASSERT_TRUE(on_device->Launch(stream(), b, a, bytes).ok());
    ASSERT_TRUE(to_host->Launch(stream(), back.data(), b, bytes).ok());
    ASSERT_TRUE(stream()->Sync().ok());
    EXPECT_TRUE(back == source) << bytes << " bytes, seed " << seed;
  }
}

TEST_F(CudaMemcpyTest, HostBufferIsFreeOnceTheCopyReturns) {
  // To the device, Launch returns once the pageable source has been read: changing it before
  // the stream finishes must not change what arrives.
  const size_t bytes = 3 * kChunk + 5;
  std::vector<uint8_t> source = RandomBytes(bytes, 7);
  const std::vector<uint8_t> expected = source;
  void* dst = DeviceBuffer(bytes);
  auto to_device = NewMemcpy(primitive::MemcpyKind::kHostToDevice);
  ASSERT_TRUE(to_device->Launch(stream(), dst, source.data(), bytes).ok());
  std::fill(source.begin(), source.end(), uint8_t{0});
  std::vector<uint8_t> back(bytes, 0xAB);
  auto to_host = NewMemcpy(primitive::MemcpyKind::kDeviceToHost);
  ASSERT_TRUE(to_host->Launch(stream(), back.data(), dst, bytes).ok());
  // To the host, Launch returns with the bytes in place (no Sync needed to read them).
  EXPECT_TRUE(back == expected);
}

TEST_F(CudaMemcpyTest, DeviceToDeviceAtUnalignedOffsets) {
  const size_t bytes = kChunk + 333;
  const std::vector<uint8_t> source = RandomBytes(bytes, 11);
  char* a = static_cast<char*>(DeviceBuffer(bytes));
  char* b = static_cast<char*>(DeviceBuffer(bytes));
  std::vector<uint8_t> poison(bytes, 0xCD);
  auto to_device = NewMemcpy(primitive::MemcpyKind::kHostToDevice);
  ASSERT_TRUE(to_device->Launch(stream(), a, source.data(), bytes).ok());
  ASSERT_TRUE(to_device->Launch(stream(), b, poison.data(), bytes).ok());
  auto on_device = NewMemcpy(primitive::MemcpyKind::kDeviceToDevice);
  ASSERT_TRUE(on_device->Launch(stream(), b + 3, a + 1, bytes - 5).ok());
  ASSERT_TRUE(on_device->Launch(stream(), b, a, 0).ok());  // zero bytes: nothing happens
  std::vector<uint8_t> back(bytes);
  auto to_host = NewMemcpy(primitive::MemcpyKind::kDeviceToHost);
  ASSERT_TRUE(to_host->Launch(stream(), back.data(), b, bytes).ok());
  ASSERT_TRUE(stream()->Sync().ok());
  std::vector<uint8_t> expected = poison;
  std::copy(source.begin() + 1, source.begin() + 1 + (bytes - 5), expected.begin() + 3);
  EXPECT_TRUE(back == expected);
}

TEST_F(CudaMemcpyTest, NonCudaStreamIsValueError) {
  ep::Stream* cpu_stream = Unwrap(ep::GetDevice(Device::Cpu()))->default_stream();
  char byte = 0;
  auto to_host = NewMemcpy(primitive::MemcpyKind::kDeviceToHost);
  ExpectError(to_host->Launch(cpu_stream, &byte, &byte, 1), ErrorKind::kValueError,
              {"cuda.memcpy<device_to_host>", "needs a cuda stream"});
}

TEST_F(CudaMemcpyTest, TensorsRoundTripAcrossChunkBoundaries) {
  // float64: three chunks and 168 bytes; float16: one chunk and one element.
  for (const auto& [shape, dtype] :
       {std::pair<Shape, DataType>{Shape{3, int64_t(kChunk / 8) + 7}, DataType::kFloat64},
        std::pair<Shape, DataType>{Shape{int64_t(kChunk / 2) + 1}, DataType::kFloat16}}) {
    const std::vector<double> values = RandomValues(static_cast<size_t>(shape.elem_cnt()), 3);
    const Tensor host = MakeTensor(values, shape, dtype);
    const Tensor device = Unwrap(host.To(Device::Cuda(0)));
    EXPECT_EQ(ToDoubles(device), ToDoubles(host)) << DataTypeName(dtype);
    EXPECT_EQ(ToDoubles(Unwrap(device.To(Device::Cpu()))), ToDoubles(host)) << DataTypeName(dtype);
  }
}

}  // namespace
}  // namespace test
}  // namespace oflite
