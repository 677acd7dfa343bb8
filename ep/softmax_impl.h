// Which softmax implementation a provider uses. kAuto lets it choose by row length; the tests and
// the CLI's bench force one to check or time each path (a forced path the shape cannot take falls
// back to the automatic choice, and the launch description says what ran). Internal: not an
// installed header, not part of the API.
#ifndef ONEFLOW_LITE_EP_SOFTMAX_IMPL_H_
#define ONEFLOW_LITE_EP_SOFTMAX_IMPL_H_

#include <cstdint>

#include "oneflow_lite/common/scoped_setting.h"

namespace oflite {
namespace ep {

// kSplitRows: each row split over several blocks, two passes (float64 keeps its one kernel);
// kCluster: a row per thread-block cluster held in registers (forward), kClusterSmem: in shared
// memory (forward and backward); both for 16-byte aligned tensors.
enum class SoftmaxImpl {
  kAuto,
  kWarp,
  kBlockRegister,
  kBlockSmem,
  kBlockUncached,
  kSplitRows,
  kCluster,
  kClusterSmem
};

void SetSoftmaxImplOverride(SoftmaxImpl impl);
SoftmaxImpl GetSoftmaxImplOverride();

// The most blocks a register-path, warp-path or cluster-smem softmax launch uses (0: no
// more than the path's own grid). The register path gives each row its own block (up to 2^31 -
// 1), the warp path sizes its grid by occupancy, cluster-smem by the clusters the device holds
// (backward, and forward 16-bit) or a cluster a row; blocks (clusters) loop over rows past that,
// and tests lower it to run the loop on small tensors. A cluster-smem launch keeps at least one
// cluster.
void SetSoftmaxGridLimitOverride(int64_t blocks);
int64_t GetSoftmaxGridLimitOverride();

// Set one of the overrides above for a scope and restore the previous value.
using ScopedSoftmaxImpl =
    ScopedSetting<SoftmaxImpl, &GetSoftmaxImplOverride, &SetSoftmaxImplOverride>;
using ScopedSoftmaxGridLimit =
    ScopedSetting<int64_t, &GetSoftmaxGridLimitOverride, &SetSoftmaxGridLimitOverride>;

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_SOFTMAX_IMPL_H_
