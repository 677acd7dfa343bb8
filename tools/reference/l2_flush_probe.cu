// What the L2 flush costs the kernel timed after it (docs/BENCHMARKS.md, 2026-11-22). `oflite
// bench` flushes by writing 512 MB before each rep, which leaves L2 full of dirty lines: the
// timed kernel's own accesses evict them, and their write-back shares the memory bus with it.
// For each case this times (median of 21 reps after 3 warm-up runs, a flush before each) our
// softmax, cudaMemcpy of the same bytes and a plain copy kernel with and without L2 eviction
// hints, under three flushes:
//   fill       512 MB written by a kernel (what oflite bench does)
//   memset     512 MB by cudaMemsetAsync
//   fill+read  the fill, then a kernel reading another 512 MB (L2 left full of clean lines)
//
// Runs on the GPU machine against the installed package (PREFIX):
//   nvcc -O2 -std=c++17 -arch=sm_90 -I$PREFIX/include/oneflow_lite
//     tools/reference/l2_flush_probe.cu -o l2_flush_probe -L$PREFIX/lib -loneflow_lite -lglog
//   ./l2_flush_probe f:128:softmax h:1024:log_softmax f:16384:copy
// Cases are DTYPE:COLS:WHAT over 49152 rows: DTYPE f (float32) or h (float16), WHAT softmax,
// log_softmax, or copy (the copies only). Inputs hold 0.5 everywhere: the figures compare
// flushes, not data.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "oneflow_lite/oneflow_lite.h"
#include "primitive/softmax.h"

namespace {

using namespace oflite;

void Check(cudaError_t e, int line) {
  if (e != cudaSuccess) {
    std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e), line);
    std::exit(1);
  }
}
#define CUDA_CHECK(x) Check((x), __LINE__)

template <typename T>
T Unwrap(Maybe<T> m) {
  if (!m.ok()) {
    std::printf("error: %s\n", m.error().message().c_str());
    std::exit(1);
  }
  return std::move(m).value();
}

__global__ void Fill(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    p[i] = v;
  }
}

__global__ void Read(const float4* p, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    const float4 v = p[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.f) {  // never in practice; keeps the loads
    *sink = s;
  }
}

enum Hint { kPlain, kLoadEvictFirst, kStoreEvictFirst, kBothEvictFirst, kStreaming };
const char* const kHintNames[] = {"plain", "ld-ef", "st-ef", "ld+st-ef", "cs"};

__device__ uint64_t EvictFirstPolicy() {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}

template <Hint kHint>
__device__ float4 Load(const float4* a, uint64_t policy) {
  float4 v;
  if constexpr (kHint == kLoadEvictFirst || kHint == kBothEvictFirst) {
    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(a), "l"(policy));
  } else if constexpr (kHint == kStreaming) {
    v = __ldcs(a);
  } else {
    v = *a;
  }
  return v;
}

template <Hint kHint>
__device__ void Store(float4* a, float4 v, uint64_t policy) {
  if constexpr (kHint == kStoreEvictFirst || kHint == kBothEvictFirst) {
    asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(a), "f"(v.x),
                 "f"(v.y), "f"(v.z), "f"(v.w), "l"(policy)
                 : "memory");
  } else if constexpr (kHint == kStreaming) {
    __stcs(a, v);
  } else {
    *a = v;
  }
}

// Each thread copies two 16-byte packs, both loads issued before either store.
constexpr int kCopyThreads = 128;
constexpr int kCopyPacksPerThread = 2;

template <Hint kHint>
__global__ void Copy(const float4* x, float4* y, size_t n) {
  const uint64_t policy = kHint == kPlain || kHint == kStreaming ? 0 : EvictFirstPolicy();
  const size_t i0 = blockIdx.x * size_t{kCopyThreads} * kCopyPacksPerThread + threadIdx.x;
  const size_t i1 = i0 + kCopyThreads;
  float4 a{}, b{};
  if (i0 < n) a = Load<kHint>(x + i0, policy);
  if (i1 < n) b = Load<kHint>(x + i1, policy);
  if (i0 < n) Store<kHint>(y + i0, a, policy);
  if (i1 < n) Store<kHint>(y + i1, b, policy);
}

struct Flusher {
  static constexpr size_t kBytes = size_t{512} << 20;
  float* dirty = nullptr;
  float* clean = nullptr;
  float* sink = nullptr;
  cudaStream_t stream;
  unsigned grid = 0;  // 16 blocks of 128 threads an SM

  explicit Flusher(cudaStream_t s) : stream(s) {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    grid = static_cast<unsigned>(sms) * 16;
    CUDA_CHECK(cudaMalloc(&dirty, kBytes));
    CUDA_CHECK(cudaMalloc(&clean, kBytes));
    CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
    CUDA_CHECK(cudaMemset(clean, 0, kBytes));
  }
  void operator()(int mode, int rep) const {
    if (mode == 1) {
      CUDA_CHECK(cudaMemsetAsync(dirty, rep, kBytes, stream));
      return;
    }
    Fill<<<grid, 128, 0, stream>>>(dirty, kBytes / 4, rep + 1.0f);
    if (mode == 2) {
      Read<<<grid, 128, 0, stream>>>(reinterpret_cast<const float4*>(clean), kBytes / 16, sink);
    }
    CUDA_CHECK(cudaGetLastError());
  }
};
const char* const kFlushNames[] = {"fill", "memset", "fill+read"};

// Median milliseconds of run() over 21 reps after 3 warm-up runs, flushing before each.
template <typename F>
float MedianMs(const Flusher& flush, int mode, F run) {
  for (int i = 0; i < 3; ++i) {
    flush(mode, i);
    run();
  }
  cudaEvent_t begin, end;
  CUDA_CHECK(cudaEventCreate(&begin));
  CUDA_CHECK(cudaEventCreate(&end));
  std::vector<float> ms;
  for (int i = 0; i < 21; ++i) {
    flush(mode, i);
    CUDA_CHECK(cudaEventRecord(begin, flush.stream));
    run();
    CUDA_CHECK(cudaEventRecord(end, flush.stream));
    CUDA_CHECK(cudaEventSynchronize(end));
    float m = 0;
    CUDA_CHECK(cudaEventElapsedTime(&m, begin, end));
    ms.push_back(m);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventDestroy(begin));
  CUDA_CHECK(cudaEventDestroy(end));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <Hint kHint>
void LaunchCopy(const float4* x, float4* y, size_t n, cudaStream_t s) {
  constexpr size_t kPacksPerBlock = size_t{kCopyThreads} * kCopyPacksPerThread;
  const auto grid = static_cast<unsigned>((n + kPacksPerBlock - 1) / kPacksPerBlock);
  Copy<kHint><<<grid, kCopyThreads, 0, s>>>(x, y, n);
}
using CopyLauncher = void (*)(const float4*, float4*, size_t, cudaStream_t);
const CopyLauncher kCopies[] = {LaunchCopy<kPlain>, LaunchCopy<kLoadEvictFirst>,
                                LaunchCopy<kStoreEvictFirst>, LaunchCopy<kBothEvictFirst>,
                                LaunchCopy<kStreaming>};
static_assert(std::size(kCopies) == std::size(kHintNames), "a name for every copy kernel");

struct Case {
  DataType dtype;
  int64_t cols;
  std::string what;  // softmax, log_softmax or copy
};

bool ParseCase(const char* text, Case* c) {
  char dtype = 0;
  long cols = 0;
  char what[32] = {};
  if (std::sscanf(text, "%c:%ld:%31s", &dtype, &cols, what) != 3 || cols < 1 ||
      (dtype != 'f' && dtype != 'h')) {
    return false;
  }
  c->dtype = dtype == 'h' ? DataType::kFloat16 : DataType::kFloat32;
  c->cols = cols;
  c->what = what;
  return c->what == "softmax" || c->what == "log_softmax" || c->what == "copy";
}

// One line per flush: our function (unless c.what is copy), cudaMemcpy, the copy kernels.
void RunCase(const Case& c, ep::Stream* stream, const Flusher& flush) {
  constexpr int64_t kRows = 49152;
  const Shape shape{kRows, c.cols};
  const Tensor x = Unwrap(Tensor::Full(shape, 0.5, c.dtype, Device::Cuda(0)));
  Tensor y = Unwrap(Tensor::Empty(shape, c.dtype, Device::Cuda(0)));
  const size_t bytes = x.nbytes();
  const auto* xs = static_cast<const float4*>(x.data());
  auto* ys = static_cast<float4*>(y.mut_data());
  const bool log = c.what == "log_softmax";
  auto softmax = primitive::NewPrimitive<primitive::SoftmaxFactory>(DeviceType::kCUDA, c.dtype);
  auto log_softmax =
      primitive::NewPrimitive<primitive::LogSoftmaxFactory>(DeviceType::kCUDA, c.dtype);
  if (softmax == nullptr || log_softmax == nullptr) {
    std::printf("no CUDA softmax primitive for %s\n", DataTypeName(c.dtype));
    std::exit(1);
  }
  auto gbps = [&](float ms) { return 2.0 * bytes / (ms * 1e6); };
  for (int mode = 0; mode < 3; ++mode) {
    std::printf("%s:%lld %.1f MB flush=%-9s", DataTypeName(c.dtype), static_cast<long long>(c.cols),
                bytes / 1e6, kFlushNames[mode]);
    if (c.what != "copy") {
      const float ms = MedianMs(flush, mode, [&] {
        const Maybe<void> r =
            log ? log_softmax->Launch(stream, kRows, c.cols, x.data(), y.mut_data())
                : softmax->Launch(stream, kRows, c.cols, x.data(), y.mut_data());
        if (!r.ok()) {
          std::printf("error: %s\n", r.error().message().c_str());
          std::exit(1);
        }
      });
      std::printf(" %s %.0f |", c.what.c_str(), gbps(ms));
    }
    std::printf(
        " memcpy %.0f", gbps(MedianMs(flush, mode, [&] {
          CUDA_CHECK(cudaMemcpyAsync(ys, xs, bytes, cudaMemcpyDeviceToDevice, flush.stream));
        })));
    for (size_t h = 0; h < std::size(kCopies); ++h) {
      const float ms = MedianMs(flush, mode, [&] { kCopies[h](xs, ys, bytes / 16, flush.stream); });
      std::printf(" %s %.0f", kHintNames[h], gbps(ms));
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases(static_cast<size_t>(std::max(argc - 1, 0)));
  for (int a = 1; a < argc; ++a) {
    if (!ParseCase(argv[a], &cases[static_cast<size_t>(a - 1)])) {
      std::printf("usage: %s f|h:COLS:softmax|log_softmax|copy ...\n", argv[0]);
      return 1;
    }
  }
  ep::Device* device = Unwrap(ep::GetDevice(Device::Cuda(0)));
  ep::Stream* stream = device->default_stream();
  const Flusher flush(static_cast<cudaStream_t>(Unwrap(stream->NativeHandle())));
  for (const Case& c : cases) {
    RunCase(c, stream, flush);
  }
  return 0;
}
