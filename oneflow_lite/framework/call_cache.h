// CallCache: what the interpreter worked out for a call signature, kept so that the next call
// with that signature skips attribute completion, inference and kernel matching.
//
// A signature is (what is called, device, input shapes and dtypes, the attributes as given);
// what is called is an op's schema or a Composite. Each thread has its own cache, so entries
// and the kernel instances in them need no lock. A cache empties itself when any registry
// changes (SnapshotGeneration) and when it reaches kMaxEntries (shapes that keep changing).
#ifndef ONEFLOW_LITE_FRAMEWORK_CALL_CACHE_H_
#define ONEFLOW_LITE_FRAMEWORK_CALL_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_schema.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {

namespace ep {
class Device;
}

// One kernel launch of a cached call: an op, its complete attrs, its kernel instance, where
// its inputs come from and what it outputs.
struct CachedStep {
  const OpSchema* schema = nullptr;
  AttrMap attrs;  // complete
  std::string kernel_name;
  std::unique_ptr<OpKernel> kernel;
  // Values are the call's inputs (0 .. n-1), then every step's outputs in order.
  std::vector<size_t> args;
  std::vector<TensorDesc> outputs;
};

struct CallEntry {
  // The signature.
  const void* callee = nullptr;
  Device device;
  std::vector<TensorDesc> inputs;
  AttrMap given_attrs;
  // What runs.
  ep::Device* ep_device = nullptr;
  std::vector<CachedStep> steps;
};

// A view of a call's signature for lookups, built without copying anything.
struct CallSignature {
  const void* callee;
  Device device;
  const Tensor* inputs;
  size_t num_inputs;
  const AttrMap* attrs;
  size_t Hash() const;
  bool Matches(const CallEntry& entry) const;
};

class CallCache {
 public:
  static constexpr size_t kMaxEntries = 4096;
  // This thread's cache.
  static CallCache& ThisThread();

  // The entry for a signature; null when there is none. Callers hold the pointer while the
  // entry runs: a kernel that dispatches may empty the cache meanwhile.
  std::shared_ptr<const CallEntry> Find(const CallSignature& signature, size_t hash);
  void Insert(size_t hash, std::shared_ptr<const CallEntry> entry);
  size_t size() const { return entries_.size(); }

 private:
  uint64_t generation_ = 0;
  std::unordered_multimap<size_t, std::shared_ptr<const CallEntry>> entries_;
};

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_CALL_CACHE_H_
