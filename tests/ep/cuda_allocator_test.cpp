// The CUDA caching allocator: reuse proven by its statistics, size classes, peak tracking,
// EmptyCache, and a clean OutOfMemory after which the device still works. The statistics API
// itself is checked on the CPU too. CUDA cases skip themselves where no GPU is visible.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "oneflow_lite/primitive/fill.h"
#include "tests/support/test_util.h"

#ifdef OFLITE_WITH_CUDA
#include "ep/cuda/caching_allocator.h"
#endif

namespace oflite {
namespace test {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(AllocatorStatsApi, CpuEmptyCacheLeavesNothingCached) {
  ASSERT_TRUE(ep::EmptyCache(Device::Cpu()).ok());
  const ep::AllocatorStats stats = Unwrap(ep::GetAllocatorStats(Device::Cpu()));
  EXPECT_EQ(stats.reserved_bytes, stats.allocated_bytes);
}

TEST(AllocatorStatsApi, UnavailableDeviceIsDeviceError) {
  ExpectError(ep::GetAllocatorStats(Device::Cuda(999)), ErrorKind::kDeviceError, {"cuda:999"});
  ExpectError(ep::EmptyCache(Device::Cuda(999)), ErrorKind::kDeviceError, {"cuda:999"});
}

#ifdef OFLITE_WITH_CUDA
TEST(CachingAllocatorPolicy, RequestsRoundToTheirSizeClass) {
  using ep::CachingAllocator;
  EXPECT_EQ(CachingAllocator::RoundSize(0), 0u);
  EXPECT_EQ(CachingAllocator::RoundSize(1), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(512), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(513), 1024u);
  EXPECT_EQ(CachingAllocator::RoundSize(kMiB), kMiB);
  // Above 1 MiB: eight classes per power of two.
  EXPECT_EQ(CachingAllocator::RoundSize(kMiB + 1), kMiB + kMiB / 8);
  EXPECT_EQ(CachingAllocator::RoundSize(3 * kMiB + 5), 3 * kMiB + kMiB / 4);
  EXPECT_EQ(CachingAllocator::RoundSize(4 * kMiB), 4 * kMiB);
  for (size_t bytes : {kMiB + 1, 5 * kMiB + 3, 1000 * kMiB + 17, size_t{1} << 40}) {
    const size_t rounded = CachingAllocator::RoundSize(bytes);
    EXPECT_GE(rounded, bytes);
    EXPECT_LE(rounded - bytes, bytes / 8) << bytes;
    EXPECT_EQ(rounded % 512, 0u) << bytes;
  }
  EXPECT_EQ(CachingAllocator::RoundSize(SIZE_MAX), 0u);  // no class: OutOfMemory
}
#endif

class CudaAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
    allocator_ = Unwrap(ep::GetDevice(Device::Cuda(0)))->allocator();
    ASSERT_TRUE(ep::EmptyCache(Device::Cuda(0)).ok());
  }
  static ep::AllocatorStats Stats() { return Unwrap(ep::GetAllocatorStats(Device::Cuda(0))); }

  ep::Allocator* allocator_ = nullptr;
};

TEST_F(CudaAllocatorTest, FreedBlockIsReusedWithoutCudaMalloc) {
  const size_t bytes = 3 * kMiB + 5;
  const ep::AllocatorStats s0 = Stats();
  EXPECT_EQ(s0.reserved_bytes, s0.allocated_bytes) << "EmptyCache left blocks cached";

  void* first = Unwrap(allocator_->Allocate(bytes, nullptr));
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.device_malloc_count, s0.device_malloc_count + 1);
  EXPECT_EQ(s1.allocation_count, s0.allocation_count + 1);
  const size_t block = s1.allocated_bytes - s0.allocated_bytes;
  EXPECT_GE(block, bytes);
  EXPECT_LE(block, bytes + bytes / 8);
  EXPECT_EQ(s1.reserved_bytes - s0.reserved_bytes, block);

  allocator_->Deallocate(first, bytes, nullptr);
  const ep::AllocatorStats s2 = Stats();
  EXPECT_EQ(s2.allocated_bytes, s0.allocated_bytes);
  EXPECT_EQ(s2.reserved_bytes, s1.reserved_bytes) << "a free must not give memory back";
  EXPECT_EQ(s2.device_free_count, s1.device_free_count);

  void* second = Unwrap(allocator_->Allocate(bytes, nullptr));
  const ep::AllocatorStats s3 = Stats();
  EXPECT_EQ(second, first);
  EXPECT_EQ(s3.device_malloc_count, s1.device_malloc_count) << "no new cudaMalloc";
  EXPECT_EQ(s3.cache_hit_count, s2.cache_hit_count + 1);
  EXPECT_EQ(s3.reserved_bytes, s1.reserved_bytes);
  EXPECT_EQ(s3.allocated_bytes, s1.allocated_bytes);
  allocator_->Deallocate(second, bytes, nullptr);
}

TEST_F(CudaAllocatorTest, RequestsOfOneSizeClassShareBlocks) {
  const ep::AllocatorStats s0 = Stats();
  void* a = Unwrap(allocator_->Allocate(1000, nullptr));  // class 1024
  allocator_->Deallocate(a, 1000, nullptr);
  void* b = Unwrap(allocator_->Allocate(1024, nullptr));  // same class: the same block
  EXPECT_EQ(b, a);
  void* c = Unwrap(allocator_->Allocate(1536, nullptr));  // another class: a new block
  EXPECT_NE(c, a);
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.device_malloc_count, s0.device_malloc_count + 2);
  EXPECT_EQ(s1.cache_hit_count, s0.cache_hit_count + 1);
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes + 1024 + 1536);
  allocator_->Deallocate(b, 1024, nullptr);
  allocator_->Deallocate(c, 1536, nullptr);
}

TEST_F(CudaAllocatorTest, PeakTracksTheMostAllocatedAtOnce) {
  const ep::AllocatorStats s0 = Stats();
  void* a = Unwrap(allocator_->Allocate(2 * kMiB, nullptr));
  void* b = Unwrap(allocator_->Allocate(6 * kMiB, nullptr));
  allocator_->Deallocate(a, 2 * kMiB, nullptr);
  allocator_->Deallocate(b, 6 * kMiB, nullptr);
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes);
  EXPECT_GE(s1.peak_allocated_bytes, s0.allocated_bytes + 8 * kMiB);
  EXPECT_GE(s1.peak_allocated_bytes, s0.peak_allocated_bytes);
}

TEST_F(CudaAllocatorTest, EmptyCacheGivesCachedBlocksBack) {
  void* kept = Unwrap(allocator_->Allocate(4 * kMiB, nullptr));
  void* freed = Unwrap(allocator_->Allocate(8 * kMiB, nullptr));
  allocator_->Deallocate(freed, 8 * kMiB, nullptr);
  const ep::AllocatorStats s0 = Stats();
  EXPECT_EQ(s0.reserved_bytes - s0.allocated_bytes, 8 * kMiB);

  ASSERT_TRUE(ep::EmptyCache(Device::Cuda(0)).ok());
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.reserved_bytes, s0.reserved_bytes - 8 * kMiB);
  EXPECT_EQ(s1.reserved_bytes, s1.allocated_bytes);
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes) << "blocks in use stay";
  EXPECT_EQ(s1.device_free_count, s0.device_free_count + 1);

  // The block still in use is still good memory.
  auto fill = primitive::NewPrimitive<primitive::FillFactory>(DeviceType::kCUDA, DataType::kInt32);
  ASSERT_NE(fill, nullptr);
  ep::Stream* stream = Unwrap(ep::GetDevice(Device::Cuda(0)))->default_stream();
  ASSERT_TRUE(fill->Launch(stream, kept, 7.0, kMiB).ok());
  ASSERT_TRUE(stream->Sync().ok());
  allocator_->Deallocate(kept, 4 * kMiB, nullptr);
  ASSERT_TRUE(ep::EmptyCache(Device::Cuda(0)).ok());
  EXPECT_EQ(Stats().reserved_bytes, Stats().allocated_bytes);
}

TEST_F(CudaAllocatorTest, WarmTensorOpsDoNotCallCudaMalloc) {
  int64_t mallocs_after_first = 0;
  for (int i = 0; i < 10; ++i) {
    const Tensor x = Unwrap(Tensor::Full(Shape{257, 33}, 1.5, DataType::kFloat32, Device::Cuda(0)));
    const Tensor y = MakeTensor(std::vector<double>(257 * 33, 2.5), x.shape(), DataType::kFloat32,
                                Device::Cuda(0));
    EXPECT_EQ(ToDoubles(x)[0], 1.5);
    EXPECT_EQ(ToDoubles(y)[0], 2.5);
    if (i == 0) {
      mallocs_after_first = Stats().device_malloc_count;
    }
  }
  EXPECT_EQ(Stats().device_malloc_count, mallocs_after_first);
}

TEST_F(CudaAllocatorTest, ImpossibleRequestIsOutOfMemoryAndTheDeviceStillWorks) {
  // Leave a block in the cache: the failed request must release it before it gives up.
  void* cached = Unwrap(allocator_->Allocate(16 * kMiB, nullptr));
  allocator_->Deallocate(cached, 16 * kMiB, nullptr);
  const ep::AllocatorStats s0 = Stats();
  ASSERT_GT(s0.reserved_bytes, s0.allocated_bytes);

  // 2^50 bytes (a PiB) fit on no GPU.
  ExpectError(Tensor::Empty(Shape{int64_t{1} << 48}, DataType::kFloat32, Device::Cuda(0)),
              ErrorKind::kOutOfMemory,
              {"cuda:0: cannot allocate 1125899906842624 bytes", "bytes free of",
               "cached bytes released before retrying"});
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.reserved_bytes, s1.allocated_bytes) << "the cache was not released";
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes);

  // The device still works afterwards.
  const std::vector<double> values = RandomValues(1000, 5);
  const Tensor ok = MakeTensor(values, Shape{1000}, DataType::kFloat64, Device::Cuda(0));
  EXPECT_EQ(ToDoubles(ok), values);
  const Tensor full = Unwrap(Tensor::Full(Shape{3}, 2.0, DataType::kInt64, Device::Cuda(0)));
  EXPECT_EQ(ToDoubles(full), (std::vector<double>{2, 2, 2}));
}

TEST_F(CudaAllocatorTest, SizeBeyondEveryClassIsOutOfMemory) {
  ExpectError(allocator_->Allocate(SIZE_MAX, nullptr), ErrorKind::kOutOfMemory,
              {"cannot allocate " + std::to_string(SIZE_MAX) + " bytes", "bytes free of"});
  const Tensor ok = MakeTensor({1, 2, 3}, Shape{3}, DataType::kFloat32, Device::Cuda(0));
  EXPECT_EQ(ToDoubles(ok), (std::vector<double>{1, 2, 3}));
}

}  // namespace
}  // namespace test
}  // namespace oflite
