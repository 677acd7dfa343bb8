// The floor of a softmax that holds each row in one block, at few waves (1024 rows of 64 KB)
// against many (49152 rows), timed bare under the bench's flush (512 MB written before each rep):
// a block reads its row into registers, reduces it over the block, and writes it scaled, looping
// over rows (grid = blocks the GPU holds at once). `prefetch` issues the next row's loads before
// this row's reduction and stores, as a persistent kernel would. Beside cudaMemcpy of the same
// bytes (median of 21 reps after 3 warm-up ones). It says whether the long-row line (90% of a
// copy) is within reach of the row-per-block design at 1024 rows (docs/BENCHMARKS.md).
//
// On the GPU machine: nvcc -O2 -std=c++17 -arch=sm_90 tools/reference/row_pipeline_probe.cu \
//   -o row_pipeline_probe && ./row_pipeline_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_timing.cuh"

// A row is kThreads * kVec float4s; thread t holds float4s t, t + kThreads, ...
template <int kThreads, int kVec, bool kPrefetch>
__global__ void __launch_bounds__(kThreads) Rows(const float4* in, float4* out, long rows) {
  constexpr long kRow = (long)kThreads * kVec;
  __shared__ float partials[2][32];
  float4 cur[kVec], next[kVec];
  long row = blockIdx.x;
  if (row >= rows) return;
#pragma unroll
  for (int p = 0; p < kVec; ++p) cur[p] = in[row * kRow + threadIdx.x + p * kThreads];
  for (int it = 0; row < rows; row += gridDim.x, ++it) {
    const long nrow = row + gridDim.x;
    if (kPrefetch && nrow < rows) {
#pragma unroll
      for (int p = 0; p < kVec; ++p) next[p] = in[nrow * kRow + threadIdx.x + p * kThreads];
    }
    float acc = 0.f;
#pragma unroll
    for (int p = 0; p < kVec; ++p) acc += cur[p].x + cur[p].y + cur[p].z + cur[p].w;
    const float scale = BlockSum<kThreads>(acc, partials[it % 2]) * 0.f + 1.f;
#pragma unroll
    for (int p = 0; p < kVec; ++p) {
      float4 v = cur[p];
      v.x *= scale;
      v.y *= scale;
      v.z *= scale;
      v.w *= scale;
      out[row * kRow + threadIdx.x + p * kThreads] = v;
    }
    if (nrow < rows) {
#pragma unroll
      for (int p = 0; p < kVec; ++p)
        cur[p] = kPrefetch ? next[p] : in[nrow * kRow + threadIdx.x + p * kThreads];
    }
  }
}

template <int kThreads, int kVec, bool kPrefetch>
float TimeRows(const float4* in, float4* out, long rows, int sms, int* per_sm) {
  auto k = Rows<kThreads, kVec, kPrefetch>;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, k, kThreads, 0));
  const long blocks = std::min<long>(rows, (long)*per_sm * sms);
  return Median([&] { k<<<blocks, kThreads>>>(in, out, rows); });
}

template <int kThreads, int kVec>
void Shape(const float4* in, float4* out, long rows, int sms) {
  const long n = rows * kThreads * kVec;
  const float memcpy_us =
      Median([&] { CK(cudaMemcpyAsync(out, in, n * 16, cudaMemcpyDeviceToDevice)); });
  int occ_plain = 0, occ_pre = 0;
  const float plain = TimeRows<kThreads, kVec, false>(in, out, rows, sms, &occ_plain);
  const float pre = TimeRows<kThreads, kVec, true>(in, out, rows, sms, &occ_pre);
  printf(
      "%6ld rows of %3d KB (%4d threads x %2d float4, %d/%d an SM): memcpy %8.1f us, "
      "row a block %8.1f (%.3f x), prefetching %8.1f (%.3f x)\n",
      rows, kThreads * kVec * 16 / 1024, kThreads, kVec, occ_plain, occ_pre, memcpy_us, plain,
      plain / memcpy_us, pre, pre / memcpy_us);
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaMalloc(&g_flush, g_flush_n * 16));
  const long max_n = 49152L * 4096;  // 3 GB
  float4 *in, *out;
  CK(cudaMalloc(&in, max_n * 16));
  CK(cudaMalloc(&out, max_n * 16));
  Fill<<<1056, 512>>>(in, max_n, 0.5f);
  for (long rows : {1024L, 4096L, 49152L}) {
    Shape<1024, 4>(in, out, rows, sms);  // 64 KB rows (float32 16384, 16-bit 32768)
    Shape<512, 8>(in, out, rows, sms);
    Shape<256, 16>(in, out, rows, sms);
    Shape<640, 4>(in, out, rows, sms);  // 40 KB rows (16-bit 20000)
  }
}
