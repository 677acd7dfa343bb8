// The launch floor: host microseconds per launch of an empty kernel, 20,000 launches per run
// with the device synchronized only around the loop, median of 3 runs. No CUDA op can cost its
// caller less; `oflite bench --overhead` is read against it.
//
// usage: launch_floor [calls]      (nvcc -O2 -o launch_floor launch_floor.cu)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void Empty() {}

static double MicrosecondsPerLaunch(long calls) {
  cudaDeviceSynchronize();
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; ++i) {
    Empty<<<1, 1>>>();
  }
  cudaDeviceSynchronize();
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / static_cast<double>(calls);
}

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 20000;
  MicrosecondsPerLaunch(1000);  // context creation and module load
  if (cudaGetLastError() != cudaSuccess) {
    std::fprintf(stderr, "launch_floor: no CUDA device\n");
    return 1;
  }
  double runs[3];
  for (double& run : runs) {
    run = MicrosecondsPerLaunch(calls);
  }
  double sorted[3] = {runs[0], runs[1], runs[2]};
  std::sort(sorted, sorted + 3);
  std::printf("launch floor: empty kernel %.2f us per launch (runs %.2f %.2f %.2f)\n", sorted[1],
              runs[0], runs[1], runs[2]);
  return 0;
}
