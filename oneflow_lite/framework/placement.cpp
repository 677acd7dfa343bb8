#include "oneflow_lite/framework/placement.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/dist/communicator.h"
#include "oneflow_lite/dist/process_group.h"

namespace oflite {

Placement::Placement(DeviceType device_type, std::vector<int> ranks)
    : device_type_(device_type),
      ranks_(std::move(ranks)),
      hierarchy_{static_cast<int64_t>(ranks_.size())} {}

Placement::Placement(DeviceType device_type, std::vector<int> ranks, Shape hierarchy)
    : device_type_(device_type), ranks_(std::move(ranks)), hierarchy_(std::move(hierarchy)) {}

Maybe<void> Placement::Validate() const {
  OFLITE_CHECK_OR_RETURN(IsValidDeviceType(device_type_), ValueError)
      << "placement: invalid device type " << static_cast<int>(device_type_);
  OFLITE_CHECK_OR_RETURN(!ranks_.empty(), ValueError) << "placement: no ranks";
  OFLITE_CHECK_OR_RETURN(
      hierarchy_.rank() >= 1 && hierarchy_.Validate().ok() && hierarchy_.elem_cnt() == size(),
      ValueError)
      << "placement " << ToString() << ": the hierarchy " << hierarchy_ << " must hold the "
      << size() << " ranks";
  std::set<int> seen;
  for (int rank : ranks_) {
    OFLITE_CHECK_OR_RETURN(rank >= 0 && seen.insert(rank).second, ValueError)
        << "placement " << ToString() << ": rank " << rank
        << (rank < 0 ? " is negative" : " appears twice");
  }
  return Ok();
}

std::string Placement::ToString() const {
  std::ostringstream out;
  out << DeviceTypeName(device_type_) << ":[" << Join(ranks_) << "]";
  if (hierarchy_.rank() != 1) {
    out << " as " << hierarchy_;
  }
  return out.str();
}

std::string NdSbpToString(const NdSbp& sbp) {
  if (sbp.size() == 1) {
    return SbpToString(sbp[0]);
  }
  std::string text;
  for (const Sbp& s : sbp) {
    text += (text.empty() ? "" : ", ") + SbpToString(s);
  }
  return "(" + text + ")";
}

SplitRange BalancedSplit(int64_t dim, int64_t parts, int64_t index) {
  const int64_t base = dim / parts;
  const int64_t extra = dim % parts;
  return {index * base + std::min(index, extra), base + (index < extra ? 1 : 0)};
}

Shape ShardShape(const Shape& global, const Sbp& sbp, int64_t parts, int64_t index) {
  if (!sbp.is_split()) {
    return global;
  }
  Shape shard = global;
  shard.Set(sbp.axis(), BalancedSplit(global[sbp.axis()], parts, index).size);
  return shard;
}

namespace {

thread_local std::vector<dist::Communicator*> scoped_communicators;

struct ProviderCell {
  std::mutex mutex;
  std::shared_ptr<const CommunicatorProvider> provider;
};
ProviderCell& Provider() {
  static ProviderCell* cell = new ProviderCell();  // outlives static destructors
  return *cell;
}

}  // namespace

ScopedCommunicator::ScopedCommunicator(dist::Communicator* communicator)
    : communicator_(communicator) {
  scoped_communicators.push_back(communicator);
}

ScopedCommunicator::~ScopedCommunicator() {
  auto it = std::find(scoped_communicators.rbegin(), scoped_communicators.rend(), communicator_);
  if (it != scoped_communicators.rend()) {
    scoped_communicators.erase(std::next(it).base());
  }
}

void SetCommunicatorProvider(CommunicatorProvider provider) {
  auto shared =
      provider ? std::make_shared<const CommunicatorProvider>(std::move(provider)) : nullptr;
  std::lock_guard<std::mutex> lock(Provider().mutex);
  Provider().provider = std::move(shared);
}

Maybe<dist::Communicator*> CommunicatorFor(const std::string& call, const Placement& placement) {
  OFLITE_JUST(placement.Validate());
  dist::Communicator* communicator = nullptr;
  for (auto it = scoped_communicators.rbegin(); it != scoped_communicators.rend(); ++it) {
    if ((*it)->device_type() == placement.device_type()) {
      communicator = *it;
      break;
    }
  }
  if (communicator == nullptr) {
    std::shared_ptr<const CommunicatorProvider> provider;
    {
      std::lock_guard<std::mutex> lock(Provider().mutex);
      provider = Provider().provider;
    }
    // Without a provider of the caller's, the world's (dist::Init joined it).
    OFLITE_CHECK_OR_RETURN(provider != nullptr || dist::IsInitialized(), RuntimeError)
        << call << ": no communicator for " << DeviceTypeName(placement.device_type())
        << " placements: start the distributed runtime first (dist::Init) or give one with "
           "ScopedCommunicator";
    OFLITE_ASSIGN_OR_RETURN(communicator, provider != nullptr
                                              ? (*provider)(placement.device_type())
                                              : dist::GetCommunicator(placement.device_type()));
    OFLITE_CHECK_OR_RETURN(communicator != nullptr, RuntimeError)
        << call << ": the communicator provider gave none for "
        << DeviceTypeName(placement.device_type());
  }
  std::vector<int> group(static_cast<size_t>(communicator->size()));
  for (size_t i = 0; i < group.size(); ++i) {
    group[i] = static_cast<int>(i);
  }
  OFLITE_CHECK_OR_RETURN(placement.ranks() == group, NotImplemented)
      << call << ": placement " << placement.ToString() << " must span the whole group of "
      << group.size() << " ranks in order ([" << Join(group)
      << "]); placements over part of the ranks are not supported yet";
  return communicator;
}

}  // namespace oflite
