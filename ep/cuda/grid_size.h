// Grid size of a launch: blocks = min(work, SMs x resident blocks per SM
// x waves). Waves beyond one let the scheduler balance uneven blocks. Framework-free, for the
// kernel headers.
#ifndef ONEFLOW_LITE_EP_CUDA_GRID_SIZE_H_
#define ONEFLOW_LITE_EP_CUDA_GRID_SIZE_H_

#include <algorithm>
#include <cstdint>

namespace oflite {
namespace ep {

constexpr int kGridWaves = 32;

// `work` is in blocks; the result is at least 1 and fits a grid's x dimension.
inline int64_t GridSize(int sm_count, int max_threads_per_sm, int block_threads, int64_t work) {
  const int64_t resident = static_cast<int64_t>(std::max(sm_count, 1)) *
                           std::max(max_threads_per_sm / block_threads, 1) * kGridWaves;
  return std::max<int64_t>(1, std::min({work, resident, int64_t{INT32_MAX}}));
}

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_GRID_SIZE_H_
