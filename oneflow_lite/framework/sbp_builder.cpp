#include "oneflow_lite/framework/sbp_builder.h"

namespace oflite {

SbpBuilder& SbpBuilder::Set(const std::string& arg, const Sbp& sbp) {
  signature_[arg] = sbp;
  return *this;
}

SbpBuilder& SbpBuilder::SetAll(std::initializer_list<std::string> args, const Sbp& sbp) {
  for (const std::string& arg : args) {
    Set(arg, sbp);
  }
  return *this;
}

SbpBuilder& SbpBuilder::Split(const std::string& arg, int64_t axis) {
  return Set(arg, SplitSbp(axis));
}
SbpBuilder& SbpBuilder::Split(std::initializer_list<std::string> args, int64_t axis) {
  return SetAll(args, SplitSbp(axis));
}
SbpBuilder& SbpBuilder::Broadcast(const std::string& arg) { return Set(arg, BroadcastSbp()); }
SbpBuilder& SbpBuilder::Broadcast(std::initializer_list<std::string> args) {
  return SetAll(args, BroadcastSbp());
}
SbpBuilder& SbpBuilder::PartialSum(const std::string& arg) { return Set(arg, PartialSumSbp()); }
SbpBuilder& SbpBuilder::PartialSum(std::initializer_list<std::string> args) {
  return SetAll(args, PartialSumSbp());
}

}  // namespace oflite
