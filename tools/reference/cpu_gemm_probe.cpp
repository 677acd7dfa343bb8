// Times float32 row-major GEMMs through OpenBLAS (cblas_sgemm) and oneDNN (dnnl_sgemm) in one
// process, on the OpenMP pool both are built on, to choose the CPU matmul backend by
// measurement. Prints one JSON line per (library, size): median ms of the reps.
// Build (tools/reference/cpu_reference.sh does): g++ -O2 -fopenmp cpu_gemm_probe.cpp
//   -I/usr/include/<arch>/openblas-openmp -L/usr/lib/<arch>/openblas-openmp -lopenblas -ldnnl
#include <cblas.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {

template <typename F>
double MedianMs(const F& call, int reps) {
  call();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    call();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main() {
  for (const long n : {64L, 256L, 1024L}) {
    std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
    const int reps = n <= 64 ? 20000 : (n <= 256 ? 200 : 20);
    const double openblas = MedianMs(
        [&] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a.data(), n, b.data(),
                      n, 0, c.data(), n);
        },
        reps);
    const double onednn = MedianMs(
        [&] { dnnl_sgemm('N', 'N', n, n, n, 1, a.data(), n, b.data(), n, 0, c.data(), n); }, reps);
    for (const auto& [library, ms] : {std::pair{"openblas", openblas}, {"onednn", onednn}}) {
      std::printf(
          "{\"probe\": \"sgemm\", \"library\": \"%s\", \"n\": %ld, \"threads\": %d, "
          "\"median_ms\": %.5f}\n",
          library, n, omp_get_max_threads(), ms);
    }
  }
  return 0;
}
