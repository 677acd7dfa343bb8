#include "ep/cpu/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "oneflow_lite/common/logging.h"
#include "oneflow_lite/ep/num_threads.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace oflite {
namespace {

int DefaultNumThreads() {
  if (const char* text = std::getenv("OFLITE_NUM_THREADS")) {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(text, &end, 10);
    if (errno == 0 && end != text && *end == '\0' && n >= 1 && n <= (1 << 16)) {
      return static_cast<int>(n);
    }
    OFLITE_LOG(WARNING) << "OFLITE_NUM_THREADS=\"" << text
                        << "\" is not a positive integer; using OpenMP's default";
  }
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// Read from the environment once, on first use.
std::atomic<int>& NumThreadsCell() {
  static std::atomic<int> threads{DefaultNumThreads()};
  return threads;
}

}  // namespace

Maybe<void> SetNumThreads(int64_t n) {
  OFLITE_CHECK_OR_RETURN(n >= 1 && n <= (1 << 16), ValueError)
      << "SetNumThreads: n must be in 1..65536, got " << n;
  NumThreadsCell().store(static_cast<int>(n), std::memory_order_relaxed);
  return Ok();
}

int GetNumThreads() { return NumThreadsCell().load(std::memory_order_relaxed); }

namespace ep {

OmpThreadsScope::OmpThreadsScope(int threads) {
#ifdef _OPENMP
  previous_ = omp_get_max_threads();
  if (previous_ != threads) {
    omp_set_num_threads(threads);
  }
#else
  (void)threads;
#endif
}

OmpThreadsScope::~OmpThreadsScope() {
#ifdef _OPENMP
  if (omp_get_max_threads() != previous_) {
    omp_set_num_threads(previous_);
  }
#endif
}

bool ThreadPoolAvailable() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

void ParallelForChunks(int64_t n, int64_t grain, void (*body)(const void*, int64_t, int64_t),
                       const void* fn) {
  if (n <= 0) {
    return;
  }
  const int64_t most = std::max<int64_t>(1, n / std::max<int64_t>(1, grain));
  const int64_t threads = std::min<int64_t>(GetNumThreads(), most);
#ifdef _OPENMP
  if (threads > 1 && !omp_in_parallel()) {
    const int64_t ranges = std::min(most, threads * kRangesPerThread);
    // Range r covers [begin(r), begin(r + 1)); sizes differ by at most one, without n * r
    // overflow.
    const int64_t base = n / ranges, extra = n % ranges;
    const auto begin = [&](int64_t r) { return r * base + std::min(r, extra); };
    std::atomic<int64_t> next{0};
#pragma omp parallel num_threads(static_cast <int>(threads))
    {
      for (int64_t r = next.fetch_add(1, std::memory_order_relaxed); r < ranges;
           r = next.fetch_add(1, std::memory_order_relaxed)) {
        body(fn, begin(r), begin(r + 1));
      }
    }
    return;
  }
#else
  (void)threads;  // without OpenMP every range runs on the calling thread
#endif
  body(fn, 0, n);
}

}  // namespace ep
}  // namespace oflite
