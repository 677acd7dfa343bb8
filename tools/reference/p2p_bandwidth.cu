// How fast two GPUs of one process move a (rows, cols) float32 block to each other over their
// link, by copy engine and by SM stores and loads: the probe for an S(0) -> S(1) that packs
// while it sends (each GPU reads its peer part with the row stride of its shard and stores it
// contiguously into the peer's output), read against NCCL's all-to-all in the same job
// (`oflite bench --global --nproc 2 --threads`, the collective alone). Bandwidth is per
// direction; "both ways" runs both GPUs at once, as the all-to-all does.
//
// usage: p2p_bandwidth [rows cols]   (nvcc -O2 -arch=sm_90 -o p2p_bandwidth p2p_bandwidth.cu;
//        default 4096 x 8192, rows of 32 KB; 4096 x 4096 is the peer half of a (8192, 8192)
//        float32 S(0) -> S(1) on 2 ranks, 8192 x 2048 has the 8 KB rows of a (16384, 8192)
//        bfloat16 one)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(call)                                                      \
  do {                                                                   \
    const cudaError_t err_ = (call);                                     \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

// rows x words 16-byte words from src (rows src_stride words apart) to dst (dst_stride apart);
// either may be the peer's memory. Threads over a row's words, blocks' y over rows.
__global__ void CopyWords(const uint4* __restrict__ src, uint4* __restrict__ dst, long rows,
                          long words, long src_stride, long dst_stride) {
  const long w = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (w >= words) {
    return;
  }
  for (long r = blockIdx.y; r < rows; r += gridDim.y) {
    dst[r * dst_stride + w] = src[r * src_stride + w];
  }
}

// A grid of about per_sm blocks of 256 threads an SM.
static dim3 Grid(long rows, long words, int sms, int per_sm) {
  const long x = (words + 255) / 256;
  const long y = std::max(1L, std::min({rows, 65535L, sms * per_sm / x + 1}));
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y));
}

struct Gpu {
  int id;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  int sms;
};

// Median milliseconds of `reps` runs of launch(gpu) on each GPU in `gpus` at once (each GPU's
// own events; the slowest GPU's time counts).
static double Time(std::vector<Gpu>& gpus, const std::function<void(Gpu&)>& launch, int reps) {
  std::vector<double> times;
  for (int rep = 0; rep < reps + 2; ++rep) {
    for (Gpu& g : gpus) {
      CHECK(cudaSetDevice(g.id));
      CHECK(cudaDeviceSynchronize());
    }
    for (Gpu& g : gpus) {
      CHECK(cudaSetDevice(g.id));
      CHECK(cudaEventRecord(g.start, g.stream));
      launch(g);
      CHECK(cudaEventRecord(g.stop, g.stream));
    }
    double slowest = 0;
    for (Gpu& g : gpus) {
      CHECK(cudaSetDevice(g.id));
      CHECK(cudaEventSynchronize(g.stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, g.start, g.stop));
      slowest = std::max(slowest, static_cast<double>(ms));
    }
    if (rep >= 2) {  // two warm-up runs
      times.push_back(slowest);
    }
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char** argv) {
  const long rows = argc > 2 ? std::atol(argv[1]) : 4096;
  const long cols = argc > 2 ? std::atol(argv[2]) : 8192;
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  if (count < 2 || cols % 8 != 0) {
    std::fprintf(stderr, "needs two GPUs and cols a multiple of 8 (got %d GPUs)\n", count);
    return 1;
  }
  // Each GPU: a shard of rows x 2*cols (the peer part is every row's second half, strided) and
  // an output of rows x cols the peer writes into (contiguous).
  const long words = cols / 4;  // 16-byte words of a part's row
  const size_t part_bytes = static_cast<size_t>(rows * cols) * 4;
  std::vector<Gpu> gpus(2);
  std::vector<uint4*> shard(2), out(2);
  for (int d = 0; d < 2; ++d) {
    Gpu& g = gpus[d];
    g.id = d;
    CHECK(cudaSetDevice(d));
    int can = 0;
    CHECK(cudaDeviceCanAccessPeer(&can, d, 1 - d));
    if (!can) {
      std::fprintf(stderr, "GPU %d cannot reach GPU %d\n", d, 1 - d);
      return 1;
    }
    CHECK(cudaDeviceEnablePeerAccess(1 - d, 0));
    CHECK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&g.start));
    CHECK(cudaEventCreate(&g.stop));
    CHECK(cudaDeviceGetAttribute(&g.sms, cudaDevAttrMultiProcessorCount, d));
    CHECK(cudaMalloc(&shard[d], 2 * part_bytes));
    CHECK(cudaMalloc(&out[d], part_bytes));
    CHECK(cudaMemset(shard[d], d + 1, 2 * part_bytes));
  }
  const double gb = static_cast<double>(part_bytes) / 1e9;
  const auto report = [&](const char* what, double ms) {
    std::printf("%-44s %8.3f ms  %7.1f GB/s a direction\n", what, ms, gb / (ms / 1e3));
  };
  std::vector<Gpu> first(gpus.begin(), gpus.begin() + 1);
  const auto blocks = [&](const Gpu& g, int per_sm) { return Grid(rows, words, g.sms, per_sm); };
  const int reps = 20;

  report(
      "copy engine, contiguous, one way",
      Time(
          first,
          [&](Gpu& g) { CHECK(cudaMemcpyPeerAsync(out[1], 1, shard[0], 0, part_bytes, g.stream)); },
          reps));
  report("copy engine, contiguous, both ways",
         Time(
             gpus,
             [&](Gpu& g) {
               CHECK(cudaMemcpyPeerAsync(out[1 - g.id], 1 - g.id, shard[g.id], g.id, part_bytes,
                                         g.stream));
             },
             reps));
  for (int per_sm : {2, 4, 8}) {
    char name[64];
    std::snprintf(name, sizeof(name), "SM stores, contiguous, one way, %d/SM", per_sm);
    report(name, Time(
                     first,
                     [&](Gpu& g) {
                       CopyWords<<<blocks(g, per_sm), 256, 0, g.stream>>>(shard[0], out[1], rows,
                                                                          words, words, words);
                     },
                     reps));
  }
  report("SM loads (pull), contiguous, one way",
         Time(
             gpus,
             [&](Gpu& g) {
               if (g.id == 1) {
                 CopyWords<<<blocks(g, 4), 256, 0, g.stream>>>(shard[0], out[1], rows, words, words,
                                                               words);
               }
             },
             reps));
  report("SM stores, contiguous, both ways", Time(
                                                 gpus,
                                                 [&](Gpu& g) {
                                                   CopyWords<<<blocks(g, 4), 256, 0, g.stream>>>(
                                                       shard[g.id], out[1 - g.id], rows, words,
                                                       words, words);
                                                 },
                                                 reps));
  // The fused pack: each GPU's peer part is the second half of its shard's rows.
  report("SM stores, strided peer part, both ways",
         Time(
             gpus,
             [&](Gpu& g) {
               CopyWords<<<blocks(g, 4), 256, 0, g.stream>>>(shard[g.id] + words, out[1 - g.id],
                                                             rows, words, 2 * words, words);
             },
             reps));
  // The same two strided copies by cudaMemcpy2DAsync (what wip/a2a-peer-rows timed as a whole).
  const size_t row_bytes = static_cast<size_t>(cols) * 4;
  report("copy engine 2-D, strided peer part, both ways",
         Time(
             gpus,
             [&](Gpu& g) {
               CHECK(cudaMemcpy2DAsync(out[1 - g.id], row_bytes, shard[g.id] + words, 2 * row_bytes,
                                       row_bytes, rows, cudaMemcpyDefault, g.stream));
             },
             reps));
  report("cudaMemcpy2DAsync, local own part",
         Time(
             first,
             [&](Gpu& g) {
               CHECK(cudaMemcpy2DAsync(out[0], row_bytes, shard[0], 2 * row_bytes, row_bytes, rows,
                                       cudaMemcpyDeviceToDevice, g.stream));
             },
             reps));
  report("local strided copy of the own part", Time(
                                                   first,
                                                   [&](Gpu& g) {
                                                     CopyWords<<<blocks(g, 4), 256, 0, g.stream>>>(
                                                         shard[0], out[0], rows, words, 2 * words,
                                                         words);
                                                   },
                                                   reps));
  std::printf("(%ld x %ld float32 a part, %.1f MB)\n", rows, cols, gb * 1e3);
  return 0;
}
