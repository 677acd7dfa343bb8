// GlobalTensor: a tensor spread over the ranks of a placement as an SBP says, seen from one
// rank: its global shape, dtype, placement and SBP, and this rank's shard (a local Tensor).
// Local tensors and their calls are untouched by it: ops run on global tensors through
// GlobalDispatch (global_dispatch.h) or functional's global overloads.
//
// It keeps its communicator's address: once that communicator is gone (dist::Shutdown, the end
// of dist::RunThreadRanks) the tensor's shard stays readable, and re-sharding it or calling an op
// on it is a RuntimeError.
//
// Making one is collective: every rank of the placement calls it, with the same placement and
// SBP. The ranks first exchange what they hold (shape, dtype, SBP, device) with one small
// all-gather and every rank checks all of it alike, so a disagreement (shapes, an SBP, a split
// axis out of range, dtypes) is the same error on every rank, not a hang.
//
//   GlobalTensor x;
//   OFLITE_ASSIGN_OR_RETURN(x, shard.ToGlobal(Placement(DeviceType::kCPU, {0, 1}), {SplitSbp(0)}));
//   OFLITE_ASSIGN_OR_RETURN(x, x.ToGlobal(x.placement(), {BroadcastSbp()}));  // all-gather
//   Tensor whole = x.local();
#ifndef ONEFLOW_LITE_FRAMEWORK_GLOBAL_TENSOR_H_
#define ONEFLOW_LITE_FRAMEWORK_GLOBAL_TENSOR_H_

#include <memory>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/framework/placement.h"
#include "oneflow_lite/framework/sbp.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {

class GlobalTensor {
 public:
  GlobalTensor() = default;  // undefined

  // `shard` is this rank's piece of the global tensor under `sbp` (OneFlow's local-to-global;
  // Tensor::ToGlobal is the same call): S(axis) shards must be the balanced split of their sum
  // along the axis (placement.h), B shards equal in shape (their values are taken as given, not
  // compared), P shards equal in shape and summing to the tensor.
  static Maybe<GlobalTensor> FromShard(const Tensor& shard, const Placement& placement,
                                       const NdSbp& sbp);
  // Every rank holds the whole tensor, of one shape on every rank; each keeps its part under
  // `sbp`: B the tensor itself, S(axis) its slice (a view when the dims before the axis are 1),
  // P the values on the placement's first rank and zeros on the others.
  static Maybe<GlobalTensor> FromWhole(const Tensor& whole, const Placement& placement,
                                       const NdSbp& sbp);

  bool defined() const { return meta_ != nullptr; }
  // Preconditions below: defined().
  const Shape& shape() const { return meta_->shape; }  // global
  DataType dtype() const { return meta_->dtype; }
  const Placement& placement() const { return meta_->placement; }
  const NdSbp& sbp() const { return meta_->sbp; }
  dist::Communicator* communicator() const { return meta_->communicator; }
  // The communicator while it lives; RuntimeError naming `call` once it was destroyed.
  Maybe<dist::Communicator*> LiveCommunicator(const char* call) const;
  const Tensor& local() const { return local_; }  // this rank's shard

  // This rank's shard (OneFlow's to_local); ValueError when undefined.
  Maybe<Tensor> ToLocal() const;
  // The same tensor laid out as `sbp` on `placement` (which must be this one's: moving between
  // placements is NotImplemented), boxed through the communicator's collectives (boxing.h).
  Maybe<GlobalTensor> ToGlobal(const Placement& placement, const NdSbp& sbp) const;

  // For the runtime (GlobalDispatch's outputs): wraps a shard that the caller knows agrees
  // with every rank's, without exchanging anything. Users call FromShard.
  static GlobalTensor FromAgreedShard(Tensor shard, Shape shape, Placement placement, NdSbp sbp,
                                      dist::Communicator* communicator);

 private:
  struct Meta {
    Shape shape;
    DataType dtype;
    Placement placement;
    NdSbp sbp;
    dist::Communicator* communicator;
    std::weak_ptr<const void> communicator_lifetime;
  };
  Tensor local_;
  std::shared_ptr<const Meta> meta_;
};

// ValueError, IndexError or NotImplemented (2-D and larger placements) unless `sbp` fits a
// tensor of `shape` on `placement`: one Sbp per placement dim, split axes in 0..rank-1.
Maybe<void> CheckSbp(const std::string& call, const Shape& shape, const Placement& placement,
                     const NdSbp& sbp);

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_GLOBAL_TENSOR_H_
