// Same-run reference for `oflite bench softmax` / `log_softmax`: cudnnSoftmaxForward (instance
// mode, ACCURATE or LOG) on rows = 49152, float32 and float16 (the reference table in
// docs/BENCHMARKS.md has no cuDNN bfloat16 column). Timed as oflite bench times: CUDA events, a 512
// MB fill kernel writing rep + 1 before each rep, median of 50 reps after 10 warm-up calls; GB/s =
// 2 x tensor bytes / time.
//
// Not built by CMake (cuDNN is on the GPU machine, not here). There:
//   nvcc -O2 -std=c++17 -arch=sm_90 tools/reference/cudnn_softmax.cu -lcudnn -o cudnn_softmax
//   ./cudnn_softmax [float32|float16:COLS ...]     (default: the whole sweep, both dtypes)
// prints one line a timing: `cudnn DTYPE COLS FUNCTION GBPS`.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kRows = 49152;
constexpr int kSweepCols[] = {32,   64,   128,  256,  512,   1000,  1024, 1025,
                              2048, 3000, 4096, 8192, 12345, 16384, 32768};
constexpr size_t kFlushFloats = size_t{128} << 20;  // 512 MB

void Check(int status, const char* what) {
  if (status != 0) {
    std::fprintf(stderr, "cudnn_softmax: %s failed with %d\n", what, status);
    std::exit(1);
  }
}

__global__ void FillKernel(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    p[i] = v;
  }
}

// Uniform in [-4, 4) from a hash of the index, as oflite bench's inputs are.
template <typename T>
__global__ void RandomKernel(T* p, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i * 2654435761u) ^ static_cast<uint32_t>(i >> 32);
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    p[i] = static_cast<T>(static_cast<float>(h >> 8) * (8.0f / 16777216.0f) - 4.0f);
  }
}

struct Case {
  bool half;
  int cols;
};

double TimeGbps(cudnnHandle_t handle, const Case& c, cudnnSoftmaxAlgorithm_t algo, float* flush) {
  const size_t n = size_t{kRows} * c.cols;
  const size_t bytes = n * (c.half ? 2 : 4);
  void *x = nullptr, *y = nullptr;
  Check(cudaMalloc(&x, bytes), "cudaMalloc");
  Check(cudaMalloc(&y, bytes), "cudaMalloc");
  if (c.half) {
    RandomKernel<<<4096, 256>>>(static_cast<__half*>(x), n);
  } else {
    RandomKernel<<<4096, 256>>>(static_cast<float*>(x), n);
  }
  cudnnTensorDescriptor_t desc;
  Check(cudnnCreateTensorDescriptor(&desc), "cudnnCreateTensorDescriptor");
  Check(
      cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW,
                                 c.half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT, kRows, c.cols, 1, 1),
      "cudnnSetTensor4dDescriptor");
  const float alpha = 1, beta = 0;
  auto run = [&] {
    Check(cudnnSoftmaxForward(handle, algo, CUDNN_SOFTMAX_MODE_INSTANCE, &alpha, desc, x, &beta,
                              desc, y),
          "cudnnSoftmaxForward");
  };
  for (int i = 0; i < 10; ++i) {
    run();
  }
  cudaEvent_t start, end;
  Check(cudaEventCreate(&start), "cudaEventCreate");
  Check(cudaEventCreate(&end), "cudaEventCreate");
  std::vector<float> ms;
  for (int rep = 0; rep < 50; ++rep) {
    FillKernel<<<132 * 16, 128>>>(flush, kFlushFloats, rep + 1.0f);
    Check(cudaEventRecord(start), "cudaEventRecord");
    run();
    Check(cudaEventRecord(end), "cudaEventRecord");
    Check(cudaEventSynchronize(end), "cudaEventSynchronize");
    float m = 0;
    Check(cudaEventElapsedTime(&m, start, end), "cudaEventElapsedTime");
    ms.push_back(m);
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  Check(cudaGetLastError(), "a launch");
  cudnnDestroyTensorDescriptor(desc);
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  cudaFree(x);
  cudaFree(y);
  return 2.0 * bytes / (ms[ms.size() / 2] * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const size_t colon = arg.find(':');
    const std::string dtype = arg.substr(0, colon);
    const int cols = colon == std::string::npos ? 0 : std::atoi(arg.c_str() + colon + 1);
    if (cols < 1 || (dtype != "float32" && dtype != "float16")) {
      std::fprintf(stderr, "cudnn_softmax: expected float32:COLS or float16:COLS, got '%s'\n",
                   argv[a]);
      return 2;
    }
    cases.push_back({dtype == "float16", cols});
  }
  if (cases.empty()) {
    for (bool half : {false, true}) {
      for (int cols : kSweepCols) {
        cases.push_back({half, cols});
      }
    }
  }
  cudnnHandle_t handle;
  Check(cudnnCreate(&handle), "cudnnCreate");
  float* flush = nullptr;
  Check(cudaMalloc(&flush, kFlushFloats * sizeof(float)), "cudaMalloc");
  for (const Case& c : cases) {
    for (auto algo : {CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG}) {
      const double gbps = TimeGbps(handle, c, algo, flush);
      std::printf("cudnn %s %d %s %.0f\n", c.half ? "float16" : "float32", c.cols,
                  algo == CUDNN_SOFTMAX_LOG ? "log_softmax" : "softmax", gbps);
      std::fflush(stdout);
    }
  }
  cudnnDestroy(handle);
  return 0;
}
