// Heap allocations of steady-state eager calls, counted by replacing the global operator new
// in this executable (hence a test binary of its own): after warm-up, a CPU or CUDA call of Add
// or Softmax allocates only its output tensor's storage record.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/functional/functional.h"
#include "tests/support/test_util.h"

namespace {
std::atomic<long> allocations{0};

void* Allocate(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) {
    return p;
  }
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) { return Allocate(size); }
void* operator new[](std::size_t size) { return Allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace oflite {
namespace {

using test::Unwrap;

constexpr int kCalls = 1000;
// An output tensor's own allocation: its Storage and the shared_ptr count in one block (the
// memory itself comes from the device's caching allocator, shapes are inline).
constexpr long kAllocationsPerOutput = 1;

template <typename Call>
long AllocationsPerCall(Call call) {
  for (int i = 0; i < 10; ++i) {  // warm-up: the call cache, the allocator's bins
    EXPECT_TRUE(call().ok());
  }
  int failures = 0;
  const long before = allocations.load();
  for (int i = 0; i < kCalls; ++i) {
    failures += call().ok() ? 0 : 1;
  }
  const long after = allocations.load();
  EXPECT_EQ(failures, 0);
  return after - before;
}

class AllocationCountTest : public ::testing::TestWithParam<DeviceType> {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(GetParam()) == 0) {
      GTEST_SKIP() << "no " << DeviceTypeName(GetParam()) << " device visible";
    }
  }
  Device device() const { return Device(GetParam(), 0); }
};

TEST_P(AllocationCountTest, SteadyStateAddAllocatesOnlyItsOutput) {
  const Tensor a = Unwrap(Tensor::Full(Shape{1}, 1.5, DataType::kFloat32, device()));
  const long count = AllocationsPerCall([&] { return functional::Add(a, a); });
  EXPECT_LE(count, kCalls * kAllocationsPerOutput);
  EXPECT_GE(count, kCalls);  // the counter sees the outputs: it is counting
}

TEST_P(AllocationCountTest, SteadyStateSoftmaxAllocatesOnlyItsOutput) {
  const Tensor x = Unwrap(Tensor::Full(Shape{8, 128}, 0.25, DataType::kFloat32, device()));
  const long count = AllocationsPerCall([&] { return functional::Softmax(x, -1); });
  EXPECT_LE(count, kCalls * kAllocationsPerOutput);
  EXPECT_GE(count, kCalls);
}

INSTANTIATE_TEST_SUITE_P(Devices, AllocationCountTest,
                         ::testing::Values(DeviceType::kCPU, DeviceType::kCUDA),
                         [](const auto& info) { return std::string(DeviceTypeName(info.param)); });

}  // namespace
}  // namespace oflite
