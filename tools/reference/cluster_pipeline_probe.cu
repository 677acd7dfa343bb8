// The floor of a softmax that holds each long row in a thread-block cluster's shared memory, as
// the cluster-smem kernel does, timed bare under the bench's flush: each CTA brings its slice of
// the row into shared memory, reduces it over the block, shares one float with the cluster's
// other CTAs through distributed shared memory at one cluster barrier, and writes the slice back
// scaled. A cluster a row, or as many clusters as the GPU holds looping over rows. Three ways to
// move a slice: cp.async by every thread (as the kernel does), one thread's bulk copy (the copy
// engine, completing on an mbarrier) with the threads' stores, or bulk copies both ways (the
// slice scaled in place, then stored by the copy engine). Beside cudaMemcpy of the same bytes;
// each run's output is checked against its input (the scale is 1). It says whether the long-row
// line (90% of a copy) is within reach of this design at 1024 rows, and how slice size, cluster
// size and the copy engine move it (docs/BENCHMARKS.md, long rows).
//
// On the GPU machine: nvcc -O2 -std=c++17 -arch=sm_90 tools/reference/cluster_pipeline_probe.cu \
//   -o cluster_pipeline_probe && ./cluster_pipeline_probe
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cuda/ptx>

#include "probe_timing.cuh"

namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;

constexpr int kThreads = 256;

enum class Move { kCpAsync, kBulkLoad, kBulk };
const char* const kMoveNames[] = {"cp.async", "bulk load", "bulk both"};

__device__ void CopyAsync16(float4* dst, const float4* src) {
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(src) : "memory");
}

// Brings count float4s of src into slice; returns when every thread may read them. Bulk moves:
// thread 0 asks the copy engine in pieces of piece_bytes, and `landed` completes phase `phase`.
template <Move kMove>
__device__ void LoadSlice(float4* slice, const float4* src, long count, uint64_t* landed,
                          unsigned phase, unsigned piece_bytes) {
  if (kMove == Move::kCpAsync) {
    for (long i = threadIdx.x; i < count; i += kThreads) CopyAsync16(slice + i, src + i);
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    return;
  }
  __syncthreads();  // every thread has read the last row's slice before the copy engine rewrites it
  if (threadIdx.x == 0) {
    // The last row's bulk store must have read the slice before this row overwrites it.
    if (kMove == Move::kBulk) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    const unsigned bytes = static_cast<unsigned>(count * 16);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, landed,
                                   bytes);
    char* to = reinterpret_cast<char*>(slice);
    const char* from = reinterpret_cast<const char*>(src);
    for (unsigned done = 0; done < bytes; done += piece_bytes) {
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, to + done, from + done,
                         ::min(piece_bytes, bytes - done), landed);
    }
  }
  while (!ptx::mbarrier_try_wait_parity(landed, phase)) {
  }
}

// Writes the slice scaled to dst: the threads' stores, or (kBulk) scaled in place and handed to
// the copy engine, which LoadSlice and the kernel's end wait for.
template <Move kMove>
__device__ void StoreSlice(float4* dst, float4* slice, long count, float scale) {
  for (long i = threadIdx.x; i < count; i += kThreads) {
    float4 v = slice[i];
    v.x *= scale;
    v.y *= scale;
    v.z *= scale;
    v.w *= scale;
    if (kMove == Move::kBulk) {
      slice[i] = v;
    } else {
      dst[i] = v;
    }
  }
  if (kMove != Move::kBulk) return;
  ptx::fence_proxy_async(ptx::space_shared);  // this thread's writes, before the copy engine reads
  __syncthreads();
  if (threadIdx.x == 0 && count > 0) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, dst, slice,
                       static_cast<unsigned>(count * 16));
    ptx::cp_async_bulk_commit_group();
  }
}

// A row is row_f4 float4s; CTA r of a cluster holds float4s [r * slice_f4, (r + 1) * slice_f4).
template <Move kMove>
__global__ void __launch_bounds__(kThreads)
    ClusterRows(const float4* in, float4* out, long rows, long row_f4, long slice_f4,
                unsigned piece_bytes) {
  extern __shared__ float4 slice[];
  __shared__ float partials[32];
  __shared__ float part;
  __shared__ uint64_t landed;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned ctas = cluster.num_blocks();
  const long begin = cluster.block_rank() * slice_f4;
  const long left = row_f4 - begin;
  const long count = left < 0 ? 0 : (left < slice_f4 ? left : slice_f4);
  const long clusters = gridDim.x / ctas;
  if (kMove != Move::kCpAsync && threadIdx.x == 0) {
    ptx::mbarrier_init(&landed, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  unsigned phase = 0;
  for (long row = blockIdx.x / ctas; row < rows; row += clusters, phase ^= 1) {
    LoadSlice<kMove>(slice, in + row * row_f4 + begin, count, &landed, phase, piece_bytes);
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
    StoreSlice<kMove>(out + row * row_f4 + begin, slice, count, total * 0.f + 1.f);
    // No CTA rewrites its slice or partial while another may read them.
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  }
  if (kMove == Move::kBulk && threadIdx.x == 0) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
}

// Index-dependent values, so that a slice stored at the wrong place or not at all shows.
__global__ void FillIndex(float4* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const float v = static_cast<float>(i % 8191);
    p[i] = make_float4(v, v + 0.25f, v + 0.5f, v + 0.75f);
  }
}

__global__ void CountMismatches(const float4* a, const float4* b, size_t n,
                                unsigned long long* bad) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const float4 x = a[i], y = b[i];
    mine += (x.x != y.x) + (x.y != y.y) + (x.z != y.z) + (x.w != y.w);
  }
  if (mine) atomicAdd(bad, mine);
}

unsigned long long* g_bad;

unsigned long long Mismatches(const float4* a, const float4* b, size_t n) {
  CK(cudaMemset(g_bad, 0, sizeof(*g_bad)));
  CountMismatches<<<1056, 512>>>(a, b, n, g_bad);
  unsigned long long bad = 0;
  CK(cudaMemcpy(&bad, g_bad, sizeof(bad), cudaMemcpyDeviceToHost));
  return bad;
}

// Times rows of `cols` float32 on clusters of `ctas`; looped: as many clusters as fit at once.
template <Move kMove>
void Shape(const float4* in, float4* out, long rows, long cols, int ctas, bool looped,
           unsigned piece_bytes) {
  const auto kernel = ClusterRows<kMove>;
  const long row_f4 = cols / 4;
  const long slice_f4 = (row_f4 + ctas - 1) / ctas;
  const size_t smem = slice_f4 * 16;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
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
  CK(cudaOccupancyMaxActiveClusters(&active, kernel, &config));
  if (looped) config.gridDim = dim3(static_cast<unsigned>(std::min<long>(rows, active) * ctas));
  const size_t n = rows * row_f4;
  const float memcpy_us =
      Median([&] { CK(cudaMemcpyAsync(out, in, n * 16, cudaMemcpyDeviceToDevice)); });
  Fill<<<1056, 512>>>(out, n, -7.f);  // poison: an unwritten element shows
  const float us = Median([&] {
    CK(cudaLaunchKernelEx(&config, kernel, in, out, rows, row_f4, slice_f4, piece_bytes));
  });
  CK(cudaDeviceSynchronize());
  const unsigned long long bad = Mismatches(in, out, n);
  char piece[24] = "";
  if (kMove != Move::kCpAsync) snprintf(piece, sizeof(piece), ", %u KB pieces", piece_bytes >> 10);
  printf(
      "%5ld rows of %6ld float32 on %2d CTAs of %5.1f KB, %s (%2d clusters at once), %s%s: "
      "memcpy %8.1f us, kernel %8.1f (%.3f x)%s\n",
      rows, cols, ctas, smem / 1024.0, looped ? "looped   " : "one a row", active,
      kMoveNames[static_cast<int>(kMove)], piece, memcpy_us, us, us / memcpy_us,
      bad ? " WRONG OUTPUT" : "");
  if (bad) printf("  %llu of %zu values differ from the input\n", bad, n * 4);
}

int main() {
  CK(cudaMalloc(&g_flush, g_flush_n * 16));
  CK(cudaMalloc(&g_bad, sizeof(*g_bad)));
  const long max_n = 2048L * 262144 / 4;  // float4s of 2 GB
  float4 *in, *out;
  CK(cudaMalloc(&in, max_n * 16));
  CK(cudaMalloc(&out, max_n * 16));
  FillIndex<<<1056, 512>>>(in, max_n);
  struct Case {
    long cols;
    int ctas;
  };
  // Slices of 64 KB as the kernel plans them, and wider ones on fewer CTAs.
  const Case cases[] = {{16384, 1},   {65536, 4},  {65536, 2},   {131072, 8}, {131072, 5},
                        {151936, 10}, {151936, 6}, {262144, 16}, {262144, 10}};
  for (const Case& c : cases) {
    for (bool looped : {false, true}) {
      Shape<Move::kCpAsync>(in, out, 1024, c.cols, c.ctas, looped, 0);
      for (unsigned piece : {16u << 10, 1u << 20}) {
        Shape<Move::kBulkLoad>(in, out, 1024, c.cols, c.ctas, looped, piece);
      }
      Shape<Move::kBulk>(in, out, 1024, c.cols, c.ctas, looped, 16u << 10);
    }
  }
}
