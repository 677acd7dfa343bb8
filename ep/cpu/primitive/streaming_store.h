// Large outputs written around the caches: an output far larger than the cache is never read
// back before it is evicted, and a plain store first reads each line it writes (a quarter of an
// add's memory traffic). Non-temporal stores skip that read.
#ifndef ONEFLOW_LITE_EP_CPU_PRIMITIVE_STREAMING_STORE_H_
#define ONEFLOW_LITE_EP_CPU_PRIMITIVE_STREAMING_STORE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ep/cpu/primitive/isa_clones.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace oflite {
namespace ep {

// Outputs from this size on are streamed.
constexpr int64_t kStreamingBytes = int64_t{64} << 20;

inline bool StreamsOutput(int64_t total_bytes) { return total_bytes >= kStreamingBytes; }

// Writes out[begin, end) as compute(dst, first, n) fills dst[0, n) with elements first..first+n:
// computed into a small buffer that stays in L1 and copied out with non-temporal stores (or
// straight into out where the target has no SSE2 or out is misaligned for Out).
template <typename Out, typename Compute>
OFLITE_ISA_INLINE void StreamOutput(Out* out, int64_t begin, int64_t end, const Compute& compute) {
#if defined(__SSE2__)
  const auto address = reinterpret_cast<uintptr_t>(out + begin);
  if (16 % sizeof(Out) == 0 && address % sizeof(Out) == 0) {
    // Elements before the first 16-byte boundary go straight out.
    const int64_t head = std::min<int64_t>(
        end - begin, static_cast<int64_t>(((16 - address % 16) % 16) / sizeof(Out)));
    compute(out + begin, begin, head);
    constexpr int64_t kChunk = 4096 / sizeof(Out);
    alignas(64) Out buffer[kChunk];
    int64_t first = begin + head;
    for (; end - first >= kChunk; first += kChunk) {
      compute(buffer, first, kChunk);
      for (int64_t i = 0; i < kChunk * static_cast<int64_t>(sizeof(Out)) / 16; ++i) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(out + first) + i,
                         _mm_load_si128(reinterpret_cast<const __m128i*>(buffer) + i));
      }
    }
    compute(out + first, first, end - first);
    _mm_sfence();  // streamed lines are visible before the caller (or another thread) reads
    return;
  }
#endif
  compute(out + begin, begin, end - begin);
}

// out[begin, end) as StreamOutput writes it when the whole output (total_bytes) streams, else
// computed straight into out.
template <typename Out, typename Compute>
void WriteOutput(Out* out, int64_t begin, int64_t end, int64_t total_bytes,
                 const Compute& compute) {
  if (StreamsOutput(total_bytes)) {
    StreamOutput(out, begin, end, compute);
  } else {
    compute(out + begin, begin, end - begin);
  }
}

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CPU_PRIMITIVE_STREAMING_STORE_H_
