// cp.async: copies global -> shared memory that bypass registers and complete asynchronously
// (sm_80 and later). A thread's copies are grouped by commit and waited for by group count;
// only after the wait may the thread read what they wrote. Shared by the SGEMM ring and the
// softmax register path's shared-memory part.
#ifndef ONEFLOW_LITE_EP_CUDA_CP_ASYNC_CUH_
#define ONEFLOW_LITE_EP_CUDA_CP_ASYNC_CUH_

#include <cuda_runtime.h>

#include <cstdint>

namespace oflite {
namespace ep {

__device__ __forceinline__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Copies kBytes (4 or 16; dst and src aligned to it), or writes zeros when !inside. 16-byte
// copies bypass L1 (.cg); 4-byte ones must go through it (.ca).
template <int kBytes>
__device__ __forceinline__ void CpAsync(void* dst, const void* src, bool inside = true) {
  static_assert(kBytes == 4 || kBytes == 16, "cp.async copies 4 or 16 bytes here");
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(SharedAddress(dst)),
                 "l"(src), "r"(inside ? 16 : 0)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(SharedAddress(dst)),
                 "l"(src), "r"(inside ? 4 : 0)
                 : "memory");
  }
}

__device__ __forceinline__ void CpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_CP_ASYNC_CUH_
