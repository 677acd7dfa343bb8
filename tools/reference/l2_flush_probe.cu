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
// log_softmax, copy (the copies only), or ceiling. Inputs hold 0.5 everywhere: the figures
// compare flushes, not data.
//
// ceiling: under the bench's fill only, two rounds back to back of our softmax and log_softmax
// beside copies of the same bytes in four access patterns (cudaMemcpy; a warp a row, all its
// loads before its stores, as the one-warp softmax kernel reads and writes; blocks of 256 and
// of 1024 threads of four packs each), then the fastest copy and ours against it: what a
// kernel that reads and writes the tensor once reaches at that size.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oneflow_lite/oneflow_lite.h"
#include "oneflow_lite/primitive/softmax.h"

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

// A warp a row of `packs` 16-byte packs (at most 4 a lane), every load before any store.
__global__ void WarpRowCopy(const float4* x, float4* y, int64_t rows, int packs) {
  const int64_t row = blockIdx.x;
  const int lane = static_cast<int>(threadIdx.x);
  float4 v[4];
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    if (lane + 32 * p < packs) v[p] = x[row * packs + lane + 32 * p];
  }
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    if (lane + 32 * p < packs) y[row * packs + lane + 32 * p] = v[p];
  }
}

// Four packs a thread, a block per 4 x kThreads packs, every load before any store.
template <int kThreads>
__global__ void BlockCopy(const float4* x, float4* y, size_t n) {
  const size_t base = blockIdx.x * size_t{kThreads} * 4 + threadIdx.x;
  float4 v[4];
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    if (base + p * kThreads < n) v[p] = x[base + p * kThreads];
  }
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    if (base + p * kThreads < n) y[base + p * kThreads] = v[p];
  }
}

template <int kThreads>
void LaunchBlockCopy(const float4* x, float4* y, size_t n, cudaStream_t s) {
  const auto grid = static_cast<unsigned>((n + 4 * kThreads - 1) / (4 * kThreads));
  BlockCopy<kThreads><<<grid, kThreads, 0, s>>>(x, y, n);
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
  return c->what == "softmax" || c->what == "log_softmax" || c->what == "copy" ||
         c->what == "ceiling";
}

// One case's tensors (49152 x cols, input 0.5), our two functions on them, and their copies.
struct Subject {
  static constexpr int64_t kRows = 49152;
  const Case& c;
  ep::Stream* stream;
  const Flusher& flush;
  Tensor x, y;
  std::unique_ptr<primitive::Softmax> softmax;
  std::unique_ptr<primitive::LogSoftmax> log_softmax;

  Subject(const Case& c_, ep::Stream* s, const Flusher& f)
      : c(c_),
        stream(s),
        flush(f),
        x(Unwrap(Tensor::Full(Shape{kRows, c.cols}, 0.5, c.dtype, Device::Cuda(0)))),
        y(Unwrap(Tensor::Empty(Shape{kRows, c.cols}, c.dtype, Device::Cuda(0)))),
        softmax(primitive::NewPrimitive<primitive::SoftmaxFactory>(DeviceType::kCUDA, c.dtype)),
        log_softmax(
            primitive::NewPrimitive<primitive::LogSoftmaxFactory>(DeviceType::kCUDA, c.dtype)) {
    if (softmax == nullptr || log_softmax == nullptr) {
      std::printf("no CUDA softmax primitive for %s\n", DataTypeName(c.dtype));
      std::exit(1);
    }
  }
  size_t bytes() const { return x.nbytes(); }
  const float4* xs() const { return static_cast<const float4*>(x.data()); }
  float4* ys() { return static_cast<float4*>(y.mut_data()); }
  double Gbps(float ms) const { return 2.0 * bytes() / (ms * 1e6); }
  template <typename F>
  double Time(int mode, F run) const {
    return Gbps(MedianMs(flush, mode, run));
  }
  double Ours(int mode, bool log) {
    return Time(mode, [&] {
      const Maybe<void> r = log ? log_softmax->Launch(stream, kRows, c.cols, x.data(), y.mut_data())
                                : softmax->Launch(stream, kRows, c.cols, x.data(), y.mut_data());
      if (!r.ok()) {
        std::printf("error: %s\n", r.error().message().c_str());
        std::exit(1);
      }
    });
  }
  double Memcpy(int mode) {
    return Time(mode, [&] {
      CUDA_CHECK(cudaMemcpyAsync(ys(), xs(), bytes(), cudaMemcpyDeviceToDevice, flush.stream));
    });
  }
};

// One line per flush: our function (unless c.what is copy), cudaMemcpy, the copy kernels.
void RunFlushes(Subject& s) {
  const Case& c = s.c;
  for (int mode = 0; mode < 3; ++mode) {
    std::printf("%s:%lld %.1f MB flush=%-9s", DataTypeName(c.dtype), static_cast<long long>(c.cols),
                s.bytes() / 1e6, kFlushNames[mode]);
    if (c.what != "copy") {
      std::printf(" %s %.0f |", c.what.c_str(), s.Ours(mode, c.what == "log_softmax"));
    }
    std::printf(" memcpy %.0f", s.Memcpy(mode));
    for (size_t h = 0; h < std::size(kCopies); ++h) {
      const double g =
          s.Time(mode, [&] { kCopies[h](s.xs(), s.ys(), s.bytes() / 16, s.flush.stream); });
      std::printf(" %s %.0f", kHintNames[h], g);
    }
    std::printf("\n");
  }
}

// Two rounds under the fill of ours and the four copies (see the top of the file), then the
// fastest copy and ours against it.
void RunCeiling(Subject& s) {
  const Case& c = s.c;
  const size_t n = s.bytes() / 16;
  const int64_t row_packs = static_cast<int64_t>(n) / Subject::kRows;
  const bool warp_row = s.bytes() % (16 * Subject::kRows) == 0 && row_packs <= 4 * 32;
  double best_copy = 0, best_softmax = 0, best_log = 0;
  for (int round = 0; round < 2; ++round) {
    const double softmax = s.Ours(0, false);
    const double log = s.Ours(0, true);
    const double copy = s.Memcpy(0);
    // 0 where a row is not whole packs or passes four packs a lane.
    const double row = !warp_row ? 0 : s.Time(0, [&] {
      WarpRowCopy<<<Subject::kRows, 32, 0, s.flush.stream>>>(s.xs(), s.ys(), Subject::kRows,
                                                             static_cast<int>(row_packs));
    });
    const double b256 = s.Time(0, [&] { LaunchBlockCopy<256>(s.xs(), s.ys(), n, s.flush.stream); });
    const double b1024 =
        s.Time(0, [&] { LaunchBlockCopy<1024>(s.xs(), s.ys(), n, s.flush.stream); });
    std::printf(
        "%s:%lld %.1f MB round %d: softmax %.0f log_softmax %.0f | memcpy %.0f "
        "warp-row %.0f block256 %.0f block1024 %.0f\n",
        DataTypeName(c.dtype), static_cast<long long>(c.cols), s.bytes() / 1e6, round, softmax, log,
        copy, row, b256, b1024);
    best_copy = std::max({best_copy, copy, row, b256, b1024});
    best_softmax = std::max(best_softmax, softmax);
    best_log = std::max(best_log, log);
  }
  std::printf(
      "%s:%lld ceiling: fastest copy %.0f, softmax %.0f (%.1f%%), log_softmax %.0f (%.1f%%)\n",
      DataTypeName(c.dtype), static_cast<long long>(c.cols), best_copy, best_softmax,
      100 * best_softmax / best_copy, best_log, 100 * best_log / best_copy);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases(static_cast<size_t>(std::max(argc - 1, 0)));
  for (int a = 1; a < argc; ++a) {
    if (!ParseCase(argv[a], &cases[static_cast<size_t>(a - 1)])) {
      std::printf("usage: %s f|h:COLS:softmax|log_softmax|copy|ceiling ...\n", argv[0]);
      return 1;
    }
  }
  ep::Device* device = Unwrap(ep::GetDevice(Device::Cuda(0)));
  ep::Stream* stream = device->default_stream();
  const Flusher flush(static_cast<cudaStream_t>(Unwrap(stream->NativeHandle())));
  for (const Case& c : cases) {
    Subject subject(c, stream, flush);
    if (c.what == "ceiling") {
      RunCeiling(subject);
    } else {
      RunFlushes(subject);
    }
  }
  return 0;
}
