#include "oneflow_lite/framework/global_tensor.h"

#include <sstream>
#include <utility>
#include <vector>

#include "oneflow_lite/dist/communicator.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/boxing.h"
#include "oneflow_lite/framework/global_dispatch.h"

namespace oflite {

Maybe<void> CheckSbp(const std::string& call, const Shape& shape, const Placement& placement,
                     const NdSbp& sbp) {
  OFLITE_CHECK_OR_RETURN(static_cast<int64_t>(sbp.size()) == placement.num_dims(), ValueError)
      << call << ": sbp " << NdSbpToString(sbp) << " has " << sbp.size()
      << " entries, expected one per dim of placement " << placement.ToString() << " ("
      << placement.num_dims() << ")";
  OFLITE_CHECK_OR_RETURN(placement.num_dims() == 1, NotImplemented)
      << call << ": placement " << placement.ToString() << " has " << placement.num_dims()
      << " dims; global tensors take 1-D placements only for now";
  const Sbp& s = sbp[0];
  OFLITE_CHECK_OR_RETURN(!s.is_split() || (s.axis() >= 0 && s.axis() < shape.rank()), IndexError)
      << call << ": split axis " << s.axis() << " is out of range for a tensor of rank "
      << shape.rank() << " (shape " << shape << "; expected 0.." << shape.rank() - 1 << ")";
  return Ok();
}

namespace {

// What each rank tells the others before a global tensor is made from its tensor.
enum RecordField : int64_t {
  kDefined,
  kContiguous,
  kDeviceType,
  kDtype,
  kPlacementDims,
  kNumSbp,
  kSbpKind,
  kSbpAxis,
  kNdim,
  kDims,  // kMaxRank entries
  kRecordSize = kDims + kMaxRank,
};

std::vector<int64_t> MakeRecord(const Tensor& t, const Placement& placement, const NdSbp& sbp) {
  std::vector<int64_t> record(kRecordSize, 0);
  record[kDefined] = t.defined();
  record[kContiguous] = t.is_contiguous();
  record[kDeviceType] = static_cast<int64_t>(t.device().type());
  record[kDtype] = static_cast<int64_t>(t.dtype());
  record[kPlacementDims] = placement.num_dims();
  record[kNumSbp] = static_cast<int64_t>(sbp.size());
  record[kSbpKind] = sbp.empty() ? -1 : static_cast<int64_t>(sbp[0].kind());
  record[kSbpAxis] = sbp.empty() ? 0 : sbp[0].axis();
  record[kNdim] = t.rank();
  for (int64_t i = 0; i < t.rank(); ++i) {
    record[kDims + i] = t.shape()[i];
  }
  return record;
}

Shape RecordShape(const std::vector<int64_t>& record) {
  return Shape(
      std::vector<int64_t>(record.begin() + kDims, record.begin() + kDims + record[kNdim]));
}

Sbp RecordSbp(const std::vector<int64_t>& record) {
  switch (static_cast<Sbp::Kind>(record[kSbpKind])) {
    case Sbp::Kind::kSplit:
      return SplitSbp(record[kSbpAxis]);
    case Sbp::Kind::kPartialSum:
      return PartialSumSbp();
    default:
      return BroadcastSbp();
  }
}

// Every rank's record, through one all-gather on the placement's device.
Maybe<std::vector<std::vector<int64_t>>> ExchangeRecords(const std::vector<int64_t>& mine,
                                                         const Device& device,
                                                         dist::Communicator* communicator) {
  const int64_t n = communicator->size();
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(device));
  Tensor in, out;
  OFLITE_ASSIGN_OR_RETURN(in, Tensor::FromVector<int64_t>(mine, Shape{kRecordSize}, device));
  OFLITE_ASSIGN_OR_RETURN(out, Tensor::Empty(Shape{n * kRecordSize}, DataType::kInt64, device));
  OFLITE_JUST(communicator->AllGather(in.data(), out.mut_data(),
                                      std::vector<int64_t>(static_cast<size_t>(n), kRecordSize),
                                      DataType::kInt64, ep_device->stream()));
  std::vector<int64_t> all;
  OFLITE_ASSIGN_OR_RETURN(all, out.ToVector<int64_t>());
  std::vector<std::vector<int64_t>> records;
  for (int64_t p = 0; p < n; ++p) {
    records.emplace_back(all.begin() + p * kRecordSize, all.begin() + (p + 1) * kRecordSize);
  }
  return records;
}

// The global shape the ranks' tensors make together, after checking them all alike (every
// rank runs this on the same records). `whole`: each rank's tensor is the whole tensor.
Maybe<Shape> AgreedShape(const std::string& call, const std::vector<std::vector<int64_t>>& records,
                         const Placement& placement, bool whole) {
  const std::vector<int64_t>& first = records[0];
  // Only the first dim's SBP travels: more dims are refused below (CheckSbp) all the same.
  NdSbp sbp0(static_cast<size_t>(first[kNumSbp]), BroadcastSbp());
  if (!sbp0.empty()) {
    sbp0[0] = RecordSbp(first);
  }
  for (size_t p = 0; p < records.size(); ++p) {
    const std::vector<int64_t>& r = records[p];
    const std::string who = "rank " + std::to_string(p);
    OFLITE_CHECK_OR_RETURN(r[kDefined] != 0, ValueError)
        << call << ": " << who << "'s tensor is undefined";
    OFLITE_CHECK_OR_RETURN(r[kDeviceType] == static_cast<int64_t>(placement.device_type()),
                           ValueError)
        << call << ": " << who << "'s tensor is on "
        << DeviceTypeName(static_cast<DeviceType>(r[kDeviceType])) << ", the placement is "
        << placement.ToString();
    OFLITE_CHECK_OR_RETURN(r[kContiguous] != 0, NotImplemented)
        << call << ": " << who << "'s tensor is not contiguous";
    OFLITE_CHECK_OR_RETURN(r[kPlacementDims] == first[kPlacementDims] &&
                               r[kNumSbp] == first[kNumSbp] &&
                               (r[kNumSbp] != 1 || RecordSbp(r) == RecordSbp(first)),
                           ValueError)
        << call << ": the ranks disagree on the sbp or placement: rank 0 gave "
        << (first[kNumSbp] == 1 ? SbpToString(RecordSbp(first)) : "another") << ", " << who << " "
        << (r[kNumSbp] == 1 ? SbpToString(RecordSbp(r)) : "another");
    OFLITE_CHECK_OR_RETURN(r[kDtype] == first[kDtype], TypeError)
        << call << ": the ranks disagree on the dtype: rank 0's tensor is "
        << static_cast<DataType>(first[kDtype]) << ", " << who << "'s "
        << static_cast<DataType>(r[kDtype]);
    OFLITE_CHECK_OR_RETURN(r[kNdim] == first[kNdim], ValueError)
        << call << ": the ranks disagree on the rank: rank 0 holds " << RecordShape(first) << ", "
        << who << " " << RecordShape(r);
  }
  const Shape shape0 = RecordShape(first);
  OFLITE_JUST(CheckSbp(call, shape0, placement, sbp0));
  const Sbp& sbp = sbp0[0];
  OFLITE_CHECK_OR_RETURN(
      !sbp.is_partial_sum() || static_cast<DataType>(first[kDtype]) != DataType::kBool, TypeError)
      << call << ": a bool tensor cannot be partial sums (P)";
  if (whole || !sbp.is_split()) {
    for (size_t p = 1; p < records.size(); ++p) {
      OFLITE_CHECK_OR_RETURN(RecordShape(records[p]) == shape0, ValueError)
          << call << ": the ranks disagree on the shape: rank 0 holds " << shape0 << ", rank " << p
          << " " << RecordShape(records[p]) << " (with sbp " << SbpToString(sbp)
          << (whole ? ", each rank holds the whole tensor" : " the shards are alike") << ")";
    }
    return shape0;
  }
  const int64_t axis = sbp.axis();
  Shape global = shape0;
  int64_t total = 0;
  for (size_t p = 0; p < records.size(); ++p) {
    Shape s = RecordShape(records[p]);
    total += s[axis];
    s.Set(axis, shape0[axis]);
    OFLITE_CHECK_OR_RETURN(s == shape0, ValueError)
        << call << ": the ranks disagree on the shape: rank 0 holds " << shape0 << ", rank " << p
        << " " << RecordShape(records[p]) << " (with sbp S(" << axis
        << ") the shards agree in every dim but " << axis << ")";
  }
  global.Set(axis, total);
  const int64_t n = static_cast<int64_t>(records.size());
  for (int64_t p = 0; p < n; ++p) {
    const int64_t held = RecordShape(records[static_cast<size_t>(p)])[axis];
    const int64_t expected = BalancedSplit(total, n, p).size;
    OFLITE_CHECK_OR_RETURN(held == expected, ValueError)
        << call << ": rank " << p << " holds " << held << " of the " << total
        << " elements along split axis " << axis << ", the balanced split over " << n
        << " ranks gives it " << expected << " (the first " << total << " % " << n
        << " ranks hold one more)";
  }
  return global;
}

// The device the ranks exchange records on: the tensor's when it suits the placement.
Device ExchangeDevice(const Tensor& t, const Placement& placement) {
  return t.defined() && t.device().type() == placement.device_type()
             ? t.device()
             : Device(placement.device_type(), 0);
}

Maybe<GlobalTensor> Make(const std::string& call, const Tensor& t, const Placement& placement,
                         const NdSbp& sbp, bool whole) {
  dist::Communicator* communicator = nullptr;
  OFLITE_ASSIGN_OR_RETURN(communicator, CommunicatorFor(call, placement));
  std::vector<std::vector<int64_t>> records;
  OFLITE_ASSIGN_OR_RETURN(records, ExchangeRecords(MakeRecord(t, placement, sbp),
                                                   ExchangeDevice(t, placement), communicator));
  Shape shape;
  OFLITE_ASSIGN_OR_RETURN(shape, AgreedShape(call, records, placement, whole));
  Tensor shard = t;
  if (whole) {
    OFLITE_ASSIGN_OR_RETURN(shard, BoxShard(t, shape, BroadcastSbp(), sbp[0], communicator));
  }
  return GlobalTensor::FromAgreedShard(std::move(shard), std::move(shape), placement, sbp,
                                       communicator);
}

}  // namespace

Maybe<GlobalTensor> GlobalTensor::FromShard(const Tensor& shard, const Placement& placement,
                                            const NdSbp& sbp) {
  return Make("Tensor::ToGlobal", shard, placement, sbp, /*whole=*/false);
}

Maybe<GlobalTensor> GlobalTensor::FromWhole(const Tensor& whole, const Placement& placement,
                                            const NdSbp& sbp) {
  return Make("GlobalTensor::FromWhole", whole, placement, sbp, /*whole=*/true);
}

GlobalTensor GlobalTensor::FromAgreedShard(Tensor shard, Shape shape, Placement placement,
                                           NdSbp sbp, dist::Communicator* communicator) {
  GlobalTensor t;
  t.local_ = std::move(shard);
  t.meta_ = std::make_shared<const Meta>(
      Meta{std::move(shape), t.local_.dtype(), std::move(placement), std::move(sbp), communicator,
           communicator != nullptr ? communicator->lifetime() : std::weak_ptr<const void>()});
  return t;
}

Maybe<Tensor> GlobalTensor::ToLocal() const {
  OFLITE_CHECK_OR_RETURN(defined(), ValueError) << "GlobalTensor::ToLocal: the tensor is undefined";
  return local_;
}

Maybe<GlobalTensor> GlobalTensor::ToGlobal(const Placement& placement, const NdSbp& sbp) const {
  const char* call = "GlobalTensor::ToGlobal";
  OFLITE_CHECK_OR_RETURN(defined(), ValueError) << call << ": the tensor is undefined";
  OFLITE_CHECK_OR_RETURN(placement == this->placement(), NotImplemented)
      << call << ": moving a tensor from placement " << this->placement().ToString() << " to "
      << placement.ToString() << " is not supported yet (only re-sharding on one placement)";
  OFLITE_JUST(CheckSbp(call, shape(), placement, sbp));
  OFLITE_CHECK_OR_RETURN(!sbp[0].is_partial_sum() || dtype() != DataType::kBool, TypeError)
      << call << ": a bool tensor cannot be partial sums (P)";
  const Sbp& from = this->sbp()[0];
  if (from == sbp[0]) {
    return *this;
  }
  dist::Communicator* communicator = nullptr;
  OFLITE_ASSIGN_OR_RETURN(communicator, LiveCommunicator(call));
  Tensor shard;
  OFLITE_ASSIGN_OR_RETURN(shard, BoxShard(local_, shape(), from, sbp[0], communicator));
  if (GlobalTrace* trace = GlobalTrace::Current()) {
    const int64_t bytes = shape().elem_cnt() * static_cast<int64_t>(DataTypeSize(dtype()));
    const int64_t moved = BoxingBytes(from, sbp[0], bytes, placement.size());
    trace->Add(
        {"to_global", "", 0, moved, {{"tensor", from, sbp[0], BoxingMethod(from, sbp[0]), moved}}});
  }
  return FromAgreedShard(std::move(shard), shape(), placement, sbp, communicator);
}

Maybe<dist::Communicator*> GlobalTensor::LiveCommunicator(const char* call) const {
  OFLITE_CHECK_OR_RETURN(!meta_->communicator_lifetime.expired(), RuntimeError)
      << call
      << ": the communicator this global tensor was made with is gone (dist::Shutdown, "
         "or the end of the dist::RunThreadRanks it was made in); its shard is still readable "
         "with ToLocal";
  return meta_->communicator;
}

Maybe<GlobalTensor> Tensor::ToGlobal(const Placement& placement, const NdSbp& sbp) const {
  return GlobalTensor::FromShard(*this, placement, sbp);
}

}  // namespace oflite
