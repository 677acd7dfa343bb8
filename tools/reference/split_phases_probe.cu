// The phases of a softmax whose rows are split over blocks (the few-rows split path), timed
// bare under the bench's flush (512 MB written before each rep): a read of the tensor into
// registers, a write of it, a grid barrier, and the three together, beside cudaMemcpy and a copy
// kernel of the same bytes (median of 21 reps after 3 warm-up ones). It gives the floor that a
// split kernel reading once, synchronizing and writing once can reach (docs/BENCHMARKS.md).
//
// On the GPU machine: nvcc -O2 -std=c++17 -arch=sm_90 tools/reference/split_phases_probe.cu \
//   -o split_phases_probe && ./split_phases_probe 8 16   (sizes in MB, up to 16)
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_timing.cuh"

template <int kThreads, bool kRead, bool kSync, bool kWrite>
__global__ void __launch_bounds__(kThreads)
    Phases(const float4* in, float4* out, long chunk, long n, float* partial) {
  const long begin = blockIdx.x * chunk;
  const long len = min(chunk, n - begin);
  float4 held[8];
  float acc = 0.f;
  if (kRead) {
#pragma unroll
    for (int p = 0; p < 8; ++p) {
      const long i = threadIdx.x + (long)p * kThreads;
      if (i < len) {
        held[p] = in[begin + i];
      }
    }
#pragma unroll
    for (int p = 0; p < 8; ++p) {
      const long i = threadIdx.x + (long)p * kThreads;
      if (i < len) acc += held[p].x + held[p].y + held[p].z + held[p].w;
    }
  } else {
#pragma unroll
    for (int p = 0; p < 8; ++p) held[p] = make_float4(1, 1, 1, 1);
  }
  __shared__ float s[32];
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(~0u, acc, o);
  if (threadIdx.x % 32 == 0) s[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int w = 0; w < kThreads / 32; ++w) t += s[w];
    partial[blockIdx.x] = t;
  }
  if (kSync) cooperative_groups::this_grid().sync();
  if (kWrite) {
    const float scale = kSync ? partial[(blockIdx.x + 1) % gridDim.x] * 0.f + 1.f : 1.f;
#pragma unroll
    for (int p = 0; p < 8; ++p) {
      const long i = threadIdx.x + (long)p * kThreads;
      if (i < len) {
        float4 v = held[p];
        v.x *= scale;
        v.y *= scale;
        v.z *= scale;
        v.w *= scale;
        out[begin + i] = v;
      }
    }
  }
}

__global__ void __launch_bounds__(256) CopyKernel(const float4* in, float4* out, long n) {
  const long i0 = (blockIdx.x * 256L + threadIdx.x);
  const long stride = (long)gridDim.x * 256;
  for (long i = i0; i < n; i += stride * 4) {
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (i + k * stride < n) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (i + k * stride < n) out[i + k * stride] = v[k];
  }
}

template <int kThreads, bool R, bool S, bool W>
float TimePhases(const float4* in, float4* out, long n, float* partial, int per_sm, int sms) {
  auto k = Phases<kThreads, R, S, W>;
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, kThreads, 0));
  const int blocks = std::min(occ, per_sm) * sms;
  long chunk = (n + blocks - 1) / blocks;
  if (chunk > 8L * kThreads) {
    printf("chunk too big\n");
    return -1;
  }
  return Median([&] {
    void* args[] = {&in, &out, &chunk, &n, &partial};
    if (S)
      CK(cudaLaunchCooperativeKernel((void*)k, blocks, kThreads, args, 0, 0));
    else
      k<<<blocks, kThreads>>>(in, out, chunk, n, partial);
  });
}

int main(int argc, char** argv) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaMalloc(&g_flush, g_flush_n * 16));
  for (int a = 1; a < argc; ++a) {
    const long mb = atol(argv[a]);
    const long n = (mb << 20) / 16;
    float4 *in, *out;
    float* partial;
    CK(cudaMalloc(&in, n * 16));
    CK(cudaMalloc(&out, n * 16));
    CK(cudaMalloc(&partial, 1 << 20));
    Fill<<<1056, 512>>>(in, n, 0.5f);
    const float memcpy_us =
        Median([&] { CK(cudaMemcpyAsync(out, in, n * 16, cudaMemcpyDeviceToDevice)); });
    const float copyk = Median([&] { CopyKernel<<<sms * 8, 256>>>(in, out, n); });
    const float none = Median([] {});
    printf("%ld MB: memcpy %.1f us, copy kernel %.1f, events alone %.1f\n", mb, memcpy_us, copyk,
           none);
    for (int per_sm : {2, 4}) {
      printf(
          "  512 threads, %d/SM: read %.1f  write %.1f  sync %.1f  read+sync %.1f  read+write %.1f "
          " read+sync+write %.1f\n",
          per_sm, TimePhases<512, true, false, false>(in, out, n, partial, per_sm, sms),
          TimePhases<512, false, false, true>(in, out, n, partial, per_sm, sms),
          TimePhases<512, false, true, false>(in, out, n, partial, per_sm, sms),
          TimePhases<512, true, true, false>(in, out, n, partial, per_sm, sms),
          TimePhases<512, true, false, true>(in, out, n, partial, per_sm, sms),
          TimePhases<512, true, true, true>(in, out, n, partial, per_sm, sms));
    }
    printf("  1024 threads, 1/SM: read %.1f  write %.1f  read+sync+write %.1f\n",
           TimePhases<1024, true, false, false>(in, out, n, partial, 1, sms),
           TimePhases<1024, false, false, true>(in, out, n, partial, 1, sms),
           TimePhases<1024, true, true, true>(in, out, n, partial, 1, sms));
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(partial));
  }
}
