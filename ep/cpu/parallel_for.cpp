#include "ep/cpu/parallel_for.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

namespace oflite {
namespace ep {

void ParallelForChunks(int64_t n, int64_t grain, void (*body)(const void*, int64_t, int64_t),
                       const void* fn) {
  if (n <= 0) {
    return;
  }
  // Read once: glibc's hardware_concurrency() reads /sys on every call. It may report 0 when
  // unknown: run on one thread then.
  static const int64_t max_chunks = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t chunks =
      std::min(max_chunks, std::max<int64_t>(1, n / std::max<int64_t>(1, grain)));
  if (chunks == 1) {
    body(fn, 0, n);
    return;
  }
  // Chunk c covers [Begin(c), Begin(c + 1)): sizes differ by at most one, without n * c overflow.
  const int64_t base = n / chunks, extra = n % chunks;
  const auto begin_of = [&](int64_t c) { return c * base + std::min(c, extra); };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(chunks - 1));
  for (int64_t c = 1; c < chunks; ++c) {
    try {
      threads.emplace_back(body, fn, begin_of(c), begin_of(c + 1));
    } catch (const std::system_error&) {  // no thread to be had: do the chunk here instead
      body(fn, begin_of(c), begin_of(c + 1));
    }
  }
  body(fn, 0, begin_of(1));
  for (std::thread& thread : threads) {
    thread.join();
  }
}

}  // namespace ep
}  // namespace oflite
