// SBP: how one tensor is laid out over the devices of a placement, as OneFlow names it: split
// along an axis (S(axis)), whole on every device (B, broadcast), or partial sums that add up to
// the tensor (P). An op's SBP signatures list the ways it can run on pieces of its arguments.
#ifndef ONEFLOW_LITE_FRAMEWORK_SBP_H_
#define ONEFLOW_LITE_FRAMEWORK_SBP_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace oflite {

class Sbp {
 public:
  enum class Kind { kSplit, kBroadcast, kPartialSum };

  Sbp() = default;  // B
  static Sbp Split(int64_t axis) { return Sbp(Kind::kSplit, axis); }
  static Sbp Broadcast() { return Sbp(Kind::kBroadcast, 0); }
  static Sbp PartialSum() { return Sbp(Kind::kPartialSum, 0); }

  Kind kind() const { return kind_; }
  bool is_split() const { return kind_ == Kind::kSplit; }
  bool is_broadcast() const { return kind_ == Kind::kBroadcast; }
  bool is_partial_sum() const { return kind_ == Kind::kPartialSum; }
  int64_t axis() const { return axis_; }  // the split axis; 0 unless is_split()

  bool operator==(const Sbp& other) const { return kind_ == other.kind_ && axis_ == other.axis_; }
  bool operator!=(const Sbp& other) const { return !(*this == other); }

 private:
  Sbp(Kind kind, int64_t axis) : kind_(kind), axis_(axis) {}
  Kind kind_ = Kind::kBroadcast;
  int64_t axis_ = 0;
};

inline Sbp SplitSbp(int64_t axis) { return Sbp::Split(axis); }
inline Sbp BroadcastSbp() { return Sbp::Broadcast(); }
inline Sbp PartialSumSbp() { return Sbp::PartialSum(); }

// One valid way to run an op on pieces: an Sbp per input and output argument name.
using SbpSignature = std::map<std::string, Sbp>;

std::string SbpToString(const Sbp& sbp);  // "S(1)", "B", "P"
// "x:S(0) y:B" in the order of `arg_order`; "?" for an argument the signature lacks.
std::string SbpSignatureToString(const SbpSignature& signature,
                                 const std::vector<std::string>& arg_order);

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_SBP_H_
