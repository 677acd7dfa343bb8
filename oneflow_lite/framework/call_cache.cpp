#include "oneflow_lite/framework/call_cache.h"

#include <functional>

#include "oneflow_lite/common/hash_combine.h"
#include "oneflow_lite/common/snapshot_cell.h"

namespace oflite {

size_t CallSignature::Hash() const {
  size_t h = HashCombine(std::hash<const void*>()(callee), static_cast<size_t>(device.type()));
  h = HashCombine(h, static_cast<size_t>(device.index()));
  for (size_t i = 0; i < num_inputs; ++i) {
    h = HashCombine(h, static_cast<size_t>(inputs[i].dtype()));
    h = HashCombine(h, inputs[i].shape().dims().size());
    for (int64_t d : inputs[i].shape().dims()) {
      h = HashCombine(h, static_cast<size_t>(d));
    }
  }
  return attrs->empty() ? h : HashCombine(h, attrs->Hash());
}

bool CallSignature::Matches(const CallEntry& entry) const {
  if (entry.callee != callee || entry.device != device || entry.inputs.size() != num_inputs) {
    return false;
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    if (entry.inputs[i].dtype != inputs[i].dtype() || entry.inputs[i].shape != inputs[i].shape()) {
      return false;
    }
  }
  return entry.given_attrs == *attrs;
}

CallCache& CallCache::ThisThread() {
  thread_local CallCache cache;
  return cache;
}

std::shared_ptr<const CallEntry> CallCache::Find(const CallSignature& signature, size_t hash) {
  const uint64_t generation = SnapshotGeneration();
  if (generation != generation_) {  // a registry changed: kernels may match differently now
    entries_.clear();
    generation_ = generation;
    return nullptr;
  }
  auto [begin, end] = entries_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    if (signature.Matches(*it->second)) {
      return it->second;
    }
  }
  return nullptr;
}

void CallCache::Insert(size_t hash, std::shared_ptr<const CallEntry> entry) {
  if (entries_.size() >= kMaxEntries) {
    entries_.clear();
  }
  entries_.emplace(hash, std::move(entry));
}

}  // namespace oflite
