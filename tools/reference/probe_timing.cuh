// What the bare-kernel probes in this folder share: an error check, a fill kernel, a block sum,
// and the median of 21 timed reps (after 3 warm-up ones), each after 512 MB written to flush L2
// as `oflite bench` does.
#ifndef ONEFLOW_LITE_TOOLS_REFERENCE_PROBE_TIMING_CUH_
#define ONEFLOW_LITE_TOOLS_REFERENCE_PROBE_TIMING_CUH_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                      \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      printf("err %s line %d\n", cudaGetErrorString(e), __LINE__); \
      exit(1);                                                     \
    }                                                              \
  } while (0)

__global__ void Fill(float4* p, size_t n, float v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = make_float4(v, v, v, v);
}

// The sum of v over a block of kThreads threads, every thread getting it (partials: 32 floats).
template <int kThreads>
__device__ float BlockSum(float v, float* partials) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(~0u, v, o);
  if (threadIdx.x % 32 == 0) partials[threadIdx.x / 32] = v;
  __syncthreads();
  float t = 0;
  for (int w = 0; w < kThreads / 32; ++w) t += partials[w];
  return t;
}

float4* g_flush;  // allocated by the probe's main: g_flush_n float4s
size_t g_flush_n = (512ul << 20) / 16;

template <typename F>
float Median(F run) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < 24; ++r) {
    Fill<<<1056, 512>>>(g_flush, g_flush_n, (float)r);
    CK(cudaEventRecord(a));
    run();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 3) t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

#endif  // ONEFLOW_LITE_TOOLS_REFERENCE_PROBE_TIMING_CUH_
