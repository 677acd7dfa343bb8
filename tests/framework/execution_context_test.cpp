// The host's execution context on the CPU: ScopedStream's arguments, a caller's allocator
// (SetAllocator), stream-ordered frees (Storage::RecordStream) with stand-in streams, the
// caching allocator's per-stream bins, and concurrent calls from several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "oneflow_lite/oneflow_lite.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

// Counts what it serves; `fail` makes every request OutOfMemory.
class CountingAllocator final : public ep::Allocator {
 public:
  Maybe<void*> Allocate(size_t bytes, ep::Stream* stream) override {
    if (fail) {
      return OFLITE_ERROR(OutOfMemory) << "counting allocator: refused " << bytes << " bytes";
    }
    ++allocations;
    last_stream = stream;
    return std::malloc(bytes == 0 ? 1 : bytes);
  }
  void Deallocate(void* ptr, size_t /*bytes*/, ep::Stream* stream) override {
    ++frees;
    freed_on.push_back(stream);
    std::free(ptr);
  }
  ep::AllocatorStats GetStats() const override {
    ep::AllocatorStats stats;
    stats.allocation_count = allocations;
    return stats;
  }

  bool fail = false;
  std::atomic<int64_t> allocations{0};
  std::atomic<int64_t> frees{0};
  ep::Stream* last_stream = nullptr;
  std::vector<ep::Stream*> freed_on;
};

// Restores the CPU's built-in allocator however a test ends.
class CpuAllocatorScope {
 public:
  explicit CpuAllocatorScope(std::shared_ptr<ep::Allocator> allocator) {
    EXPECT_TRUE(ep::SetAllocator(Device::Cpu(), std::move(allocator)).ok());
  }
  ~CpuAllocatorScope() { EXPECT_TRUE(ep::SetAllocator(Device::Cpu(), nullptr).ok()); }
};

TEST(ScopedStreamTest, CpuTakesOnlyTheNullStream) {
  {
    ScopedStream scope = Unwrap(ScopedStream::Make(Device::Cpu(), nullptr));
    const Tensor x = Unwrap(Tensor::FromVector<float>({1, 2, 3}, Shape{3}));
    const std::vector<float> y = Unwrap(Unwrap(functional::Softmax(x, 0)).ToVector<float>());
    EXPECT_NEAR(y[2], 0.66524096f, 1e-6f);
  }
  int not_a_stream = 0;
  ExpectError(ScopedStream::Make(Device::Cpu(), &not_a_stream), ErrorKind::kValueError,
              {"cpu", "null stream"});
}

TEST(ScopedStreamTest, EndedOnAnotherThreadItLogsAndStays) {
  std::vector<std::string> lines;
  ScopedLogSink sink([&lines](LogSeverity, const char*, int, const std::string& message) {
    lines.push_back(message);
  });
  std::optional<ScopedStream> scope(Unwrap(ScopedStream::Make(Device::Cpu(), nullptr)));
  std::thread([&scope] { scope.reset(); }).join();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("ended on another thread"), std::string::npos) << lines[0];
}

TEST(ScopedStreamTest, UnavailableDeviceIsDeviceError) {
  ExpectError(ScopedStream::Make(Device::Cuda(999), nullptr), ErrorKind::kDeviceError,
              {"cuda:999"});
}

TEST(ScopedStreamTest, RecordStreamOnTheCpuTakesOnlyTheNullStream) {
  const Tensor x = Unwrap(Tensor::FromVector<float>({1, 2}, Shape{2}));
  EXPECT_TRUE(x.RecordStream(nullptr).ok());
  int not_a_stream = 0;
  ExpectError(x.RecordStream(&not_a_stream), ErrorKind::kValueError, {"null stream"});
  ExpectError(Tensor().RecordStream(nullptr), ErrorKind::kValueError, {"undefined"});
}

TEST(SetAllocatorTest, NewTensorsTakeTheCallersAllocatorOldOnesKeepTheirs) {
  const Tensor before = Unwrap(Tensor::FromVector<float>({1, 2, 3, 4}, Shape{2, 2}));
  auto counting = std::make_shared<CountingAllocator>();
  {
    CpuAllocatorScope scope(counting);
    ep::Device* cpu = Unwrap(ep::GetDevice(Device::Cpu()));
    {
      const Tensor y = Unwrap(functional::Softmax(before, -1));  // one output from ours
      EXPECT_EQ(counting->allocations, 1);
      EXPECT_EQ(counting->last_stream, cpu->default_stream());
      const std::vector<float> values = Unwrap(y.ToVector<float>());
      EXPECT_NEAR(values[1], 0.7310586f, 1e-6f);
      EXPECT_EQ(Unwrap(ep::GetAllocatorStats(Device::Cpu())).allocation_count, 1);
    }
    EXPECT_EQ(counting->frees, 1);  // the output went back to the allocator it came from
    ASSERT_EQ(counting->freed_on.size(), 1u);
    EXPECT_EQ(counting->freed_on[0], cpu->default_stream());
  }
  // The built-in allocator again; `before` still reads what it held.
  const Tensor after = Unwrap(functional::Softmax(before, -1));
  EXPECT_EQ(counting->allocations, 1);
  EXPECT_EQ(Unwrap(before.ToVector<float>()), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_NEAR(Unwrap(after.ToVector<float>())[3], 0.7310586f, 1e-6f);
}

TEST(SetAllocatorTest, EmptyCacheAlsoEmptiesTheReplacedBuiltInAllocator) {
  { Unwrap(Tensor::FromVector<float>(std::vector<float>(5000, 1.0f), Shape{5000})); }  // cached
  {
    CpuAllocatorScope scope(std::make_shared<CountingAllocator>());
    ASSERT_TRUE(ep::EmptyCache(Device::Cpu()).ok());
  }
  const ep::AllocatorStats builtin = Unwrap(ep::GetAllocatorStats(Device::Cpu()));
  EXPECT_EQ(builtin.reserved_bytes, builtin.allocated_bytes);  // nothing left cached
}

TEST(SetAllocatorTest, AnAllocatorThatRefusesIsOutOfMemoryFromTheCall) {
  const Tensor x = Unwrap(Tensor::FromVector<float>({1, 2}, Shape{2}));
  auto refusing = std::make_shared<CountingAllocator>();
  refusing->fail = true;
  CpuAllocatorScope scope(refusing);
  ExpectError(functional::Softmax(x, 0), ErrorKind::kOutOfMemory, {"refused 8 bytes"});
}

TEST(SetAllocatorTest, UnavailableDeviceIsDeviceError) {
  ExpectError(ep::SetAllocator(Device::Cuda(999), nullptr), ErrorKind::kDeviceError, {"cuda:999"});
  ExpectError(ep::NewCudaPoolAllocator(Device::Cpu()), ErrorKind::kNotImplemented,
              {"cuda device", "cpu"});
}

// Stand-ins for a device's streams and events that record what they were asked to do.
class RecordingEvent final : public ep::Event {
 public:
  explicit RecordingEvent(int* syncs) : syncs_(syncs) {}
  Maybe<void> Record(ep::Stream* /*stream*/) override {
    ++records;
    return Ok();
  }
  Maybe<void> Synchronize() override {
    ++*syncs_;
    return Ok();
  }
  Maybe<float> ElapsedMsSince(const ep::Event& /*start*/) const override { return 0.0f; }
  int records = 1;  // made recorded

 private:
  int* syncs_;  // the stream's count: events go with their storage
};

class RecordingStream final : public ep::Stream {
 public:
  DeviceType device_type() const override { return DeviceType::kCPU; }
  Maybe<void> Sync() override { return Ok(); }
  Maybe<std::unique_ptr<ep::Event>> RecordEvent() override {
    auto event = std::make_unique<RecordingEvent>(&event_syncs);
    made.push_back(event.get());
    return std::unique_ptr<ep::Event>(std::move(event));
  }
  Maybe<void> WaitEvent(ep::Event* event) override {
    waited_for.push_back(static_cast<RecordingEvent*>(event));
    return Ok();
  }
  std::vector<RecordingEvent*> made;
  std::vector<RecordingEvent*> waited_for;
  int event_syncs = 0;  // host waits on this stream's events
};

TEST(StorageRecordStreamTest, TheAllocationStreamWaitsForTheLastUseOfEachOtherStream) {
  CountingAllocator allocator;
  RecordingStream own, other, third;
  void* ptr = Unwrap(allocator.Allocate(64, &own));
  std::vector<int> records;
  {
    Storage storage(&allocator, ptr, 64, Device::Cuda(0), &own);  // a GPU's (stand-in streams)
    storage.RecordStream(&own);  // its own stream: nothing to wait for
    storage.RecordStream(&other);
    storage.RecordStream(&third);
    storage.RecordStream(&other);  // a later use of other: its event moves there
    EXPECT_TRUE(own.made.empty());
    ASSERT_EQ(other.made.size(), 1u);
    ASSERT_EQ(third.made.size(), 1u);
    EXPECT_EQ(other.made[0]->records, 2);
    EXPECT_EQ(allocator.frees, 0);
    EXPECT_TRUE(own.waited_for.empty());
  }
  // Waited for on the allocation stream (events outlive the streams they were recorded on).
  EXPECT_EQ(own.waited_for.size(), 2u);
  EXPECT_EQ(other.event_syncs + third.event_syncs, 0);
  EXPECT_EQ(allocator.frees, 1);
  ASSERT_EQ(allocator.freed_on.size(), 1u);
  EXPECT_EQ(allocator.freed_on[0], &own);
}

TEST(StorageRecordStreamTest, WithoutAnAllocationStreamTheHostWaitsForTheEvents) {
  CountingAllocator allocator;
  RecordingStream other;
  void* ptr = Unwrap(allocator.Allocate(64, nullptr));
  {
    Storage storage(&allocator, ptr, 64, Device::Cuda(0));
    storage.RecordStream(&other);
    EXPECT_EQ(other.made.size(), 1u);
  }
  EXPECT_EQ(other.event_syncs, 1);
  EXPECT_EQ(allocator.frees, 1);
}

TEST(StorageRecordStreamTest, CallersCpuMemoryGoesBackAtOnceDeleterOnce) {
  RecordingStream other;
  std::vector<float> memory(4);
  int deleted = 0;
  {
    Storage storage(memory.data(), 16, Device::Cpu(), [&deleted] { ++deleted; });
    storage.RecordStream(&other);
  }
  EXPECT_TRUE(other.made.empty());
  EXPECT_EQ(deleted, 1);
}

// A GPU's memory lent by the caller (DLPack) goes back only after the work we queued on it: the
// host waits for its recorded uses, then runs the deleter (stand-in streams: no GPU needed).
TEST(StorageRecordStreamTest, CallersGpuMemoryGoesBackAfterOurWorkOnIt) {
  RecordingStream first, second;
  std::vector<float> memory(4);
  int deleted = 0;
  int waits_before_delete = -1;
  {
    Storage storage(memory.data(), 16, Device::Cuda(0), [&] {
      ++deleted;
      waits_before_delete = first.event_syncs + second.event_syncs;
    });
    storage.RecordStream(&first);
    storage.RecordStream(&second);
    storage.RecordStream(&first);  // a later use of first: its event moves there
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(waits_before_delete, 2);
  EXPECT_EQ(first.made.size(), 1u);
}

TEST(CachingAllocatorBinsTest, AFreedBlockServesOnlyItsOwnStream) {
  ep::Allocator* cpu = Unwrap(ep::GetDevice(Device::Cpu()))->allocator();
  RecordingStream a, b;
  void* first = Unwrap(cpu->Allocate(3000, &a));
  cpu->Deallocate(first, 3000, &a);
  void* on_b = Unwrap(cpu->Allocate(3000, &b));
  EXPECT_NE(on_b, first);  // a's block may still be in use by a's queued work
  void* on_a = Unwrap(cpu->Allocate(3000, &a));
  EXPECT_EQ(on_a, first);  // a's own next request reuses it
  cpu->Deallocate(on_a, 3000, &a);
  cpu->Deallocate(on_b, 3000, &b);
  ASSERT_TRUE(ep::EmptyCache(Device::Cpu()).ok());
}

// Each thread runs its own chain of calls; every result must match the one-thread result (the
// BLAS may split the product differently under concurrent calls: within float32 rounding).
TEST(ThreadSafetyTest, ConcurrentCallsOnTheCpuGiveTheOneThreadResults) {
  const Tensor a = MakeTensor(RandomValues(64 * 48, 1), Shape{64, 48}, DataType::kFloat32);
  const Tensor b = MakeTensor(RandomValues(48 * 32, 2), Shape{48, 32}, DataType::kFloat32);
  const ThreadRunCounts counts = RunChainsOnThreads(4, 40, a, b, [](int i) { return 0.25 * i; });
  EXPECT_EQ(counts.errors, 0);
  EXPECT_EQ(counts.mismatches, 0);
}

}  // namespace
}  // namespace test
}  // namespace oflite
