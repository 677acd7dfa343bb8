// Placement: where a global tensor lives, a device type and the ranks holding its shards, laid
// out as a hierarchy (1-D: the ranks in a row; the type can hold a 2-D grid, which global
// tensors do not take yet). An NdSbp gives one Sbp per hierarchy dim.
//
// Shards of a split follow OneFlow's balanced rule (not torch.chunk's, which may leave fewer
// shards than ranks): a dim of n elements split over k ranks gives rank r n / k elements, one
// more for the first n % k ranks (a dim smaller than k leaves the last ranks empty).
//
// The communicator a placement's collectives run on comes, per device type, from this thread's
// innermost ScopedCommunicator, else from the process's provider (SetCommunicatorProvider,
// which the distributed runtime sets when it starts).
#ifndef ONEFLOW_LITE_FRAMEWORK_PLACEMENT_H_
#define ONEFLOW_LITE_FRAMEWORK_PLACEMENT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/framework/sbp.h"

namespace oflite {

namespace dist {
class Communicator;
}  // namespace dist

class Placement {
 public:
  Placement() = default;  // cpu, no ranks
  // 1-D: the ranks in order.
  Placement(DeviceType device_type, std::vector<int> ranks);
  // The ranks laid out row-major as `hierarchy` (e.g. (2, 2) for 4 ranks).
  Placement(DeviceType device_type, std::vector<int> ranks, Shape hierarchy);

  DeviceType device_type() const { return device_type_; }
  const std::vector<int>& ranks() const { return ranks_; }
  const Shape& hierarchy() const { return hierarchy_; }
  int64_t num_dims() const { return hierarchy_.rank(); }
  int64_t size() const { return static_cast<int64_t>(ranks_.size()); }

  // ValueError unless the ranks are distinct, non-negative and fill the hierarchy.
  Maybe<void> Validate() const;
  std::string ToString() const;  // "cpu:[0, 1, 2]", "cuda:[0, 1, 2, 3] as (2, 2)"

  bool operator==(const Placement& other) const {
    return device_type_ == other.device_type_ && ranks_ == other.ranks_ &&
           hierarchy_ == other.hierarchy_;
  }
  bool operator!=(const Placement& other) const { return !(*this == other); }

 private:
  DeviceType device_type_ = DeviceType::kCPU;
  std::vector<int> ranks_;
  Shape hierarchy_{0};
};

// One Sbp per placement dim: {SplitSbp(0)} on a 1-D placement.
using NdSbp = std::vector<Sbp>;
std::string NdSbpToString(const NdSbp& sbp);  // "S(0)", "(S(0), B)"

// The elements [begin, begin + size) of a dim of `dim` elements that part `index` of `parts`
// holds under the balanced rule above.
struct SplitRange {
  int64_t begin = 0;
  int64_t size = 0;
};
SplitRange BalancedSplit(int64_t dim, int64_t parts, int64_t index);
// The shape rank `index` of `parts` holds of a tensor of `global` shape laid out as `sbp`
// (1-D); the split axis must be in range.
Shape ShardShape(const Shape& global, const Sbp& sbp, int64_t parts, int64_t index);

// Where a thread's global tensors find their communicator: `communicator` serves this thread's
// placements of its device type while the scope lives (scopes nest; the innermost wins). Tests
// run ranks as threads with one each; an embedding program may route calls to a group of its own.
class ScopedCommunicator {
 public:
  explicit ScopedCommunicator(dist::Communicator* communicator);
  ScopedCommunicator(const ScopedCommunicator&) = delete;
  ScopedCommunicator& operator=(const ScopedCommunicator&) = delete;
  ~ScopedCommunicator();

 private:
  dist::Communicator* communicator_;
};

// The process's communicators outside any scope, per device type (the distributed runtime sets
// it when it starts: dist::GetCommunicator). An empty function removes it.
using CommunicatorProvider = std::function<Maybe<dist::Communicator*>(DeviceType)>;
void SetCommunicatorProvider(CommunicatorProvider provider);

// The communicator for a placement: the scope's or the provider's, which must span exactly the
// placement's ranks as ranks 0..size-1 in order (placements over part of a group are not done
// yet: NotImplemented); RuntimeError when there is none.
Maybe<dist::Communicator*> CommunicatorFor(const std::string& call, const Placement& placement);

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_PLACEMENT_H_
