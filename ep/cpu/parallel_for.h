// ParallelFor: split a range of independent elements over the CPU provider's thread pool.
#ifndef ONEFLOW_LITE_EP_CPU_PARALLEL_FOR_H_
#define ONEFLOW_LITE_EP_CPU_PARALLEL_FOR_H_

#include <cstdint>

namespace oflite {
namespace ep {

// The grain elementwise primitives use: below about this many elements waking a thread costs
// more than it saves, so small tensors stay on the calling thread.
constexpr int64_t kElementwiseGrain = 32768;

// ParallelFor cuts [0, n) into up to this many ranges per thread (none below the grain), each
// taken by whichever thread is free next: a thread that the host slows down (a shared machine's
// vCPU) then holds back only its last range, not a whole share of the call.
constexpr int64_t kRangesPerThread = 8;

// Calls body(fn, begin, end) over chunks of [0, n): what ParallelFor below does, without
// wrapping fn in a std::function (which allocates for most lambdas).
void ParallelForChunks(int64_t n, int64_t grain, void (*body)(const void*, int64_t, int64_t),
                       const void* fn);

// Calls fn(begin, end) over [0, n) split into at most GetNumThreads() contiguous chunks of at
// least `grain` elements each, on the OpenMP pool (one chunk runs on the caller); returns when
// every chunk is done. fn must not throw. Nothing runs when n <= 0; inside a parallel region of
// the caller's own, everything runs on the calling thread.
template <typename F>
void ParallelFor(int64_t n, int64_t grain, const F& fn) {
  ParallelForChunks(
      n, grain,
      [](const void* f, int64_t begin, int64_t end) { (*static_cast<const F*>(f))(begin, end); },
      &fn);
}

// For a call into a library that sizes its parallel regions from the calling thread's OpenMP
// setting (OpenBLAS, oneDNN): sets it to `threads` for the scope and restores the caller's
// own setting after.
class OmpThreadsScope {
 public:
  explicit OmpThreadsScope(int threads);
  OmpThreadsScope(const OmpThreadsScope&) = delete;
  OmpThreadsScope& operator=(const OmpThreadsScope&) = delete;
  ~OmpThreadsScope();

 private:
  [[maybe_unused]] int previous_ = 0;  // unread without OpenMP
};

// False where the library was built without OpenMP (the clang sanitizer builds): ParallelFor
// then runs every range on the calling thread.
bool ThreadPoolAvailable();

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CPU_PARALLEL_FOR_H_
