// The floor of a softmax that holds each long row in a thread-block cluster's shared memory, as
// the cluster-smem kernel does, timed bare under the bench's flush: each CTA copies its slice of
// the row into shared memory with cp.async, reduces it over the block, shares one float with the
// cluster's other CTAs through distributed shared memory at one cluster barrier, and writes the
// slice back scaled. A cluster a row, or as many clusters as the GPU holds looping over rows.
// Beside cudaMemcpy of the same bytes. It says whether the long-row line (90% of a copy) is
// within reach of this design at 1024 rows, and how slice size and cluster size move it
// (docs/BENCHMARKS.md, long rows).
//
// On the GPU machine: nvcc -O2 -std=c++17 -arch=sm_90 tools/reference/cluster_pipeline_probe.cu \
//   -o cluster_pipeline_probe && ./cluster_pipeline_probe
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>

#include "probe_timing.cuh"

namespace cg = cooperative_groups;

constexpr int kThreads = 256;

__device__ void CopyAsync16(float4* dst, const float4* src) {
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(src) : "memory");
}

// A row is row_f4 float4s; CTA r of a cluster holds float4s [r * slice_f4, (r + 1) * slice_f4).
__global__ void __launch_bounds__(kThreads)
    ClusterRows(const float4* in, float4* out, long rows, long row_f4, long slice_f4) {
  extern __shared__ float4 slice[];
  __shared__ float partials[32];
  __shared__ float part;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned ctas = cluster.num_blocks();
  const long begin = cluster.block_rank() * slice_f4;
  const long left = row_f4 - begin;
  const long count = left < 0 ? 0 : (left < slice_f4 ? left : slice_f4);
  const long clusters = gridDim.x / ctas;
  for (long row = blockIdx.x / ctas; row < rows; row += clusters) {
    const float4* src = in + row * row_f4 + begin;
    for (long i = threadIdx.x; i < count; i += kThreads) CopyAsync16(slice + i, src + i);
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    float acc = 0.f;  // one pass over the slice, as the sum pass makes
    for (long i = threadIdx.x; i < count; i += kThreads) {
      const float4 v = slice[i];
      acc += v.x + v.y + v.z + v.w;
    }
    const float sum = BlockSum<kThreads>(acc, partials);
    if (threadIdx.x == 0) part = sum;
    cluster.sync();
    float total = 0.f;
    for (unsigned r = 0; r < ctas; ++r) total += *cluster.map_shared_rank(&part, r);
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    const float scale = total * 0.f + 1.f;
    float4* dst = out + row * row_f4 + begin;
    for (long i = threadIdx.x; i < count; i += kThreads) {
      float4 v = slice[i];
      v.x *= scale;
      v.y *= scale;
      v.z *= scale;
      v.w *= scale;
      dst[i] = v;
    }
    // No CTA rewrites its slice or partial while another may read them.
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  }
}

// Times rows of `cols` float32 on clusters of `ctas`; looped: as many clusters as fit at once.
void Shape(const float4* in, float4* out, long rows, long cols, int ctas, bool looped) {
  const long row_f4 = cols / 4;
  const long slice_f4 = (row_f4 + ctas - 1) / ctas;
  const size_t smem = slice_f4 * 16;
  CK(cudaFuncSetAttribute(ClusterRows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  CK(cudaFuncSetAttribute(ClusterRows, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = ctas;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = smem;
  config.attrs = attr;
  config.numAttrs = 1;
  config.gridDim = dim3(static_cast<unsigned>(rows * ctas));
  int active = 0;
  CK(cudaOccupancyMaxActiveClusters(&active, ClusterRows, &config));
  if (looped) config.gridDim = dim3(static_cast<unsigned>(std::min<long>(rows, active) * ctas));
  const float memcpy_us =
      Median([&] { CK(cudaMemcpyAsync(out, in, rows * row_f4 * 16, cudaMemcpyDeviceToDevice)); });
  const float us = Median([&] {
    CK(cudaLaunchKernelEx(&config, ClusterRows, (const float4*)in, out, rows, row_f4, slice_f4));
  });
  printf(
      "%5ld rows of %6ld float32 on %2d CTAs of %5.1f KB, %s (%2d clusters at once): memcpy "
      "%8.1f us, kernel %8.1f (%.3f x)\n",
      rows, cols, ctas, smem / 1024.0, looped ? "looped     " : "one a row  ", active, memcpy_us,
      us, us / memcpy_us);
}

int main() {
  CK(cudaMalloc(&g_flush, g_flush_n * 16));
  const long max_n = 2048L * 262144 / 4;  // float4s of 2 GB
  float4 *in, *out;
  CK(cudaMalloc(&in, max_n * 16));
  CK(cudaMalloc(&out, max_n * 16));
  Fill<<<1056, 512>>>(in, max_n, 0.5f);
  struct Case {
    long cols;
    int ctas;
  };
  // Slices of 64 KB as the kernel plans them, and wider ones on fewer CTAs.
  const Case cases[] = {{16384, 1},   {65536, 4},  {65536, 2},   {131072, 8}, {131072, 5},
                        {151936, 10}, {151936, 6}, {262144, 16}, {262144, 10}};
  for (const Case& c : cases) {
    for (bool looped : {false, true}) Shape(in, out, 1024, c.cols, c.ctas, looped);
  }
}
