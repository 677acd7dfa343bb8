// The CPU device's caching allocator, through the public allocator and statistics API: reuse of
// freed blocks, 64-byte alignment, EmptyCache, allocated and peak bytes, zero-byte requests and
// OutOfMemory (never an abort) for requests no block or system can hold.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/support/test_util.h"

// AddressSanitizer aborts on an impossible malloc unless allocator_may_return_null is set.
#if defined(__SANITIZE_ADDRESS__)
#define OFLITE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OFLITE_TEST_ASAN 1
#endif
#endif

namespace oflite {
namespace test {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

class CpuAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    allocator_ = Unwrap(ep::GetDevice(Device::Cpu()))->allocator();
    ASSERT_TRUE(ep::EmptyCache(Device::Cpu()).ok());
  }
  static ep::AllocatorStats Stats() { return Unwrap(ep::GetAllocatorStats(Device::Cpu())); }

  ep::Allocator* allocator_ = nullptr;
};

TEST_F(CpuAllocatorTest, FreedBlockIsReusedForTheSameSizeClass) {
  const ep::AllocatorStats s0 = Stats();
  EXPECT_EQ(s0.reserved_bytes, s0.allocated_bytes) << "EmptyCache left blocks cached";
  void* first = Unwrap(allocator_->Allocate(1000, nullptr));  // class 1024
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.device_malloc_count, s0.device_malloc_count + 1);
  EXPECT_EQ(s1.reserved_bytes, s0.reserved_bytes + 1024);

  allocator_->Deallocate(first, 1000, nullptr);
  const ep::AllocatorStats s2 = Stats();
  EXPECT_EQ(s2.reserved_bytes, s1.reserved_bytes) << "a free must not give memory back";
  EXPECT_EQ(s2.device_free_count, s1.device_free_count);

  void* second = Unwrap(allocator_->Allocate(1024, nullptr));  // same class: the same block
  const ep::AllocatorStats s3 = Stats();
  EXPECT_EQ(second, first);
  EXPECT_EQ(s3.cache_hit_count, s2.cache_hit_count + 1);
  EXPECT_EQ(s3.device_malloc_count, s1.device_malloc_count) << "no new block";
  EXPECT_EQ(s3.allocation_count, s0.allocation_count + 2);

  void* other = Unwrap(allocator_->Allocate(1536, nullptr));  // another class: a new block
  EXPECT_NE(other, second);
  EXPECT_EQ(Stats().device_malloc_count, s1.device_malloc_count + 1);
  allocator_->Deallocate(second, 1024, nullptr);
  allocator_->Deallocate(other, 1536, nullptr);
}

TEST_F(CpuAllocatorTest, BlocksAre64ByteAlignedAndWritable) {
  for (size_t bytes : {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{1000}, size_t{4097},
                       kMiB + 1, 3 * kMiB + 5}) {
    void* ptr = Unwrap(allocator_->Allocate(bytes, nullptr));
    ASSERT_NE(ptr, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u) << bytes;
    std::memset(ptr, 0x5a, bytes);
    allocator_->Deallocate(ptr, bytes, nullptr);
  }
}

TEST_F(CpuAllocatorTest, EmptyCacheGivesCachedBlocksBack) {
  void* kept = Unwrap(allocator_->Allocate(4 * kMiB, nullptr));
  void* freed = Unwrap(allocator_->Allocate(8 * kMiB, nullptr));
  allocator_->Deallocate(freed, 8 * kMiB, nullptr);
  const ep::AllocatorStats s0 = Stats();
  EXPECT_EQ(s0.reserved_bytes - s0.allocated_bytes, 8 * kMiB);

  ASSERT_TRUE(ep::EmptyCache(Device::Cpu()).ok());
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.reserved_bytes, s0.reserved_bytes - 8 * kMiB);
  EXPECT_EQ(s1.reserved_bytes, s1.allocated_bytes);
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes) << "blocks in use stay";
  EXPECT_EQ(s1.device_free_count, s0.device_free_count + 1);

  std::memset(kept, 7, 4 * kMiB);  // the block in use is still good memory
  allocator_->Deallocate(kept, 4 * kMiB, nullptr);
  void* again = Unwrap(allocator_->Allocate(8 * kMiB, nullptr));  // the cache is empty: a new block
  EXPECT_EQ(Stats().device_malloc_count, s1.device_malloc_count + 1);
  allocator_->Deallocate(again, 8 * kMiB, nullptr);
}

TEST_F(CpuAllocatorTest, StatisticsTrackAllocatedAndPeakBytes) {
  const ep::AllocatorStats s0 = Stats();
  void* a = Unwrap(allocator_->Allocate(2 * kMiB, nullptr));
  void* b = Unwrap(allocator_->Allocate(6 * kMiB - 100, nullptr));  // class 6 MiB
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes + 8 * kMiB);
  EXPECT_EQ(s1.allocation_count, s0.allocation_count + 2);
  allocator_->Deallocate(a, 2 * kMiB, nullptr);
  allocator_->Deallocate(b, 6 * kMiB - 100, nullptr);
  const ep::AllocatorStats s2 = Stats();
  EXPECT_EQ(s2.allocated_bytes, s0.allocated_bytes);
  EXPECT_GE(s2.peak_allocated_bytes, s0.allocated_bytes + 8 * kMiB);
  EXPECT_GE(s2.peak_allocated_bytes, s0.peak_allocated_bytes);
  EXPECT_EQ(s2.reserved_bytes, s1.reserved_bytes);
}

TEST_F(CpuAllocatorTest, ZeroBytesCanBeAllocatedAndFreed) {
  const ep::AllocatorStats s0 = Stats();
  void* ptr = Unwrap(allocator_->Allocate(0, nullptr));
  allocator_->Deallocate(ptr, 0, nullptr);
  EXPECT_EQ(Stats().allocated_bytes, s0.allocated_bytes);
  const Tensor empty = Unwrap(Tensor::Empty(Shape{0}, DataType::kFloat32, Device::Cpu()));
  EXPECT_TRUE(ToDoubles(empty).empty());
}

TEST_F(CpuAllocatorTest, SizeBeyondEveryClassIsOutOfMemory) {
  const ep::AllocatorStats s0 = Stats();
  ExpectError(allocator_->Allocate(SIZE_MAX, nullptr), ErrorKind::kOutOfMemory,
              {"cpu: cannot allocate " + std::to_string(SIZE_MAX) + " bytes"});
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes);
  EXPECT_EQ(s1.device_malloc_count, s0.device_malloc_count);
  const Tensor ok = MakeTensor({1, 2, 3}, Shape{3}, DataType::kFloat32);
  EXPECT_EQ(ToDoubles(ok), (std::vector<double>{1, 2, 3}));
}

TEST_F(CpuAllocatorTest, RequestTheSystemRefusesIsOutOfMemoryAfterReleasingTheCache) {
#ifdef OFLITE_TEST_ASAN
  GTEST_SKIP() << "AddressSanitizer aborts on impossible allocations";
#endif
  // Leave a block in the cache: the failed request must release it before it gives up.
  void* cached = Unwrap(allocator_->Allocate(16 * kMiB, nullptr));
  allocator_->Deallocate(cached, 16 * kMiB, nullptr);
  const ep::AllocatorStats s0 = Stats();
  ASSERT_GT(s0.reserved_bytes, s0.allocated_bytes);

  // 2^50 bytes (a PiB) are more than a 47-bit user address space holds, overcommit or not.
  ExpectError(Tensor::Empty(Shape{int64_t{1} << 48}, DataType::kFloat32, Device::Cpu()),
              ErrorKind::kOutOfMemory,
              {"cpu: cannot allocate 1125899906842624 bytes", "a block of 1125899906842624",
               "bytes free of", "cached bytes released before retrying"});
  const ep::AllocatorStats s1 = Stats();
  EXPECT_EQ(s1.reserved_bytes, s1.allocated_bytes) << "the cache was not released";
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes);
  const Tensor ok = MakeTensor({4, 5}, Shape{2}, DataType::kFloat64);
  EXPECT_EQ(ToDoubles(ok), (std::vector<double>{4, 5}));
}

}  // namespace
}  // namespace test
}  // namespace oflite
