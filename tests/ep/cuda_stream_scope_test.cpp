// The caller's CUDA streams: calls in a ScopedStream run on the caller's stream (a host gate
// holds that stream and nothing else), memory used on another stream is not reused before that
// use (a gated reader, then a writer given the freed block), the CUDA memory pool allocator,
// and threads on their own streams. Skipped where no GPU is visible.
#include <gtest/gtest.h>

#ifdef OFLITE_WITH_CUDA
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "oneflow_lite/oneflow_lite.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

// Holds a stream at a host function until Open (or destruction, so a failed test cannot hang).
class Gate {
 public:
  explicit Gate(cudaStream_t stream) {
    EXPECT_EQ(cudaLaunchHostFunc(stream, &Gate::Wait, this), cudaSuccess);
  }
  ~Gate() { Open(); }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    opened_.notify_all();
  }

 private:
  static void CUDART_CB Wait(void* self) {
    auto* gate = static_cast<Gate*>(self);
    std::unique_lock<std::mutex> lock(gate->mutex_);
    gate->opened_.wait(lock, [gate] { return gate->open_; });
  }
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

class OwnStream {
 public:
  OwnStream() {
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  ~OwnStream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

std::vector<float> Floats(const Tensor& t) { return Unwrap(t.ToVector<float>()); }

class CudaStreamScopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
    cuda_ = Unwrap(ep::GetDevice(Device::Cuda(0)));
  }
  ep::Device* cuda_ = nullptr;
};

TEST_F(CudaStreamScopeTest, CallsInAScopeRunOnTheCallersStream) {
  OwnStream mine;
  const Tensor x =
      MakeTensor(RandomValues(64 * 100, 3), Shape{64, 100}, DataType::kFloat32, Device::Cuda(0));
  const std::vector<float> expected = Floats(Unwrap(functional::Softmax(x, -1)));
  Tensor y;
  {
    ScopedStream scope = Unwrap(ScopedStream::Make(Device::Cuda(0), mine.get()));
    Unwrap(functional::Softmax(x, -1));  // a first call leaves a block for the output in the cache
    ASSERT_EQ(cudaStreamSynchronize(mine.get()), cudaSuccess);
    Gate gate(mine.get());
    y = Unwrap(functional::Softmax(x, -1));
    EXPECT_EQ(cudaStreamQuery(mine.get()), cudaErrorNotReady);  // queued behind the gate
    void* own = Unwrap(cuda_->default_stream()->NativeHandle());
    EXPECT_EQ(cudaStreamQuery(static_cast<cudaStream_t>(own)), cudaSuccess);  // not on ours
    gate.Open();
    ASSERT_EQ(cudaStreamSynchronize(mine.get()), cudaSuccess);
  }
  EXPECT_EQ(Floats(y), expected);
}

TEST_F(CudaStreamScopeTest, ScopesNestEndInAnyOrderAndStayOnTheirThread) {
  OwnStream a, b;
  ep::Stream* own = cuda_->default_stream();
  std::optional<ScopedStream> outer(Unwrap(ScopedStream::Make(Device::Cuda(0), a.get())));
  ep::Stream* on_a = cuda_->stream();
  EXPECT_EQ(Unwrap(on_a->NativeHandle()), static_cast<void*>(a.get()));
  std::optional<ScopedStream> inner(Unwrap(ScopedStream::Make(Device::Cuda(0), b.get())));
  EXPECT_EQ(Unwrap(cuda_->stream()->NativeHandle()), static_cast<void*>(b.get()));
  std::thread([&] { EXPECT_EQ(cuda_->stream(), own); }).join();  // other threads: unaffected
  outer.reset();  // the outer scope ends first: the inner one still holds
  EXPECT_EQ(Unwrap(cuda_->stream()->NativeHandle()), static_cast<void*>(b.get()));
  inner.reset();
  EXPECT_EQ(cuda_->stream(), own);
  // One wrapper per queue, and the legacy default stream is one too.
  EXPECT_EQ(Unwrap(cuda_->ExternalStream(a.get())), on_a);
  EXPECT_EQ(Unwrap(Unwrap(cuda_->ExternalStream(nullptr))->NativeHandle()), nullptr);
  // One handle naming another stream on each thread cannot be one stream here.
  ExpectError(ScopedStream::Make(Device::Cuda(0), cudaStreamPerThread), ErrorKind::kValueError,
              {"cudaStreamPerThread"});
}

TEST_F(CudaStreamScopeTest, MemoryUsedOnAnotherStreamIsNotReusedBeforeThatUse) {
  OwnStream a, b;
  const Shape shape{1 << 20};
  const std::vector<double> x_values = RandomValues(1 << 20, 5);
  const std::vector<double> w_values = RandomValues(1 << 20, 6);
  Tensor x, w, r, z;
  {
    ScopedStream on_b = Unwrap(ScopedStream::Make(Device::Cuda(0), b.get()));
    x = MakeTensor(x_values, shape, DataType::kFloat32, Device::Cuda(0));
    w = MakeTensor(w_values, shape, DataType::kFloat32, Device::Cuda(0));
  }
  {
    ScopedStream on_a = Unwrap(ScopedStream::Make(Device::Cuda(0), a.get()));
    Unwrap(x * 2.0);  // leaves a block of the size in a's bin: no cudaMalloc while a is held
  }
  ASSERT_EQ(cudaStreamSynchronize(a.get()), cudaSuccess);
  Gate gate(a.get());
  {
    ScopedStream on_a = Unwrap(ScopedStream::Make(Device::Cuda(0), a.get()));
    r = Unwrap(x * 2.0);  // reads x on a, behind the gate
  }
  const void* x_block = x.data();
  x = Tensor();  // freed while a's read of it is still queued
  {
    ScopedStream on_b = Unwrap(ScopedStream::Make(Device::Cuda(0), b.get()));
    z = Unwrap(w * 3.0);  // b's next block of that size: x's
  }
  EXPECT_EQ(z.data(), x_block);
  EXPECT_EQ(cudaStreamQuery(b.get()), cudaErrorNotReady);  // b waits for a's read of x
  gate.Open();
  ASSERT_EQ(cudaStreamSynchronize(a.get()), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(b.get()), cudaSuccess);
  std::vector<double> twice_x, thrice_w;
  for (size_t i = 0; i < x_values.size(); ++i) {
    twice_x.push_back(2.0 * RoundTo({x_values[i]}, DataType::kFloat32)[0]);
    thrice_w.push_back(3.0 * RoundTo({w_values[i]}, DataType::kFloat32)[0]);
  }
  ExpectAllClose(ToDoubles(r), twice_x, 1e-6, "x * 2 read on a");
  ExpectAllClose(ToDoubles(z), thrice_w, 1e-6, "w * 3 written on b");
}

TEST_F(CudaStreamScopeTest, PoolAllocatorServesCallsOnAnyStream) {
  std::shared_ptr<ep::Allocator> pool = Unwrap(ep::NewCudaPoolAllocator(Device::Cuda(0)));
  const Tensor x = MakeTensor(RandomValues(256 * 1000, 7), Shape{256, 1000}, DataType::kFloat32,
                              Device::Cuda(0));
  const std::vector<float> expected = Floats(Unwrap(functional::Softmax(x, -1)));
  ASSERT_TRUE(ep::SetAllocator(Device::Cuda(0), pool).ok());
  OwnStream mine;
  {
    const Tensor y = Unwrap(functional::Softmax(x, -1));
    EXPECT_EQ(Unwrap(ep::GetAllocatorStats(Device::Cuda(0))).allocated_bytes, 256u * 1000 * 4);
    EXPECT_EQ(Floats(y), expected);
    ScopedStream scope = Unwrap(ScopedStream::Make(Device::Cuda(0), mine.get()));
    const Tensor on_mine = Unwrap(functional::Softmax(x, -1));
    ASSERT_EQ(cudaStreamSynchronize(mine.get()), cudaSuccess);
    EXPECT_EQ(Floats(on_mine), expected);
  }
  const ep::AllocatorStats stats = Unwrap(ep::GetAllocatorStats(Device::Cuda(0)));
  EXPECT_EQ(stats.allocated_bytes, 0u);
  EXPECT_EQ(stats.allocation_count, 2);
  ASSERT_TRUE(ep::SetAllocator(Device::Cuda(0), nullptr).ok());
}

TEST_F(CudaStreamScopeTest, ThreadsOnTheirOwnStreamsGiveTheOneThreadResults) {
  const Tensor a =
      MakeTensor(RandomValues(128 * 96, 8), Shape{128, 96}, DataType::kFloat32, Device::Cuda(0));
  const Tensor b =
      MakeTensor(RandomValues(96 * 4000, 9), Shape{96, 4000}, DataType::kFloat32, Device::Cuda(0));
  // Each thread on a stream of its own, for all of its calls.
  struct OwnScope {
    OwnStream stream;
    std::optional<ScopedStream> scope;
  };
  auto context = [](int) -> Maybe<std::shared_ptr<void>> {
    auto own = std::make_shared<OwnScope>();
    Maybe<ScopedStream> scope = ScopedStream::Make(Device::Cuda(0), own->stream.get());
    if (!scope.ok()) {
      return scope.error();
    }
    own->scope.emplace(std::move(scope).value());
    return std::shared_ptr<void>(own);
  };
  const ThreadRunCounts counts = RunChainsOnThreads(
      4, 30, a, b, [](int i) { return 0.25 * i; }, context);
  EXPECT_EQ(counts.errors, 0);
  EXPECT_EQ(counts.mismatches, 0);
}

}  // namespace
}  // namespace test
}  // namespace oflite
#endif  // OFLITE_WITH_CUDA
