#include "oneflow_lite/framework/sbp_builder.h"

namespace oflite {

SbpBuilder& SbpBuilder::Set(const std::string& arg, const proto::SbpParallel& sbp) {
  (*signature_.mutable_arg_sbp())[arg] = sbp;
  return *this;
}

SbpBuilder& SbpBuilder::Split(const std::string& arg, int64_t axis) {
  proto::SbpParallel sbp;
  sbp.mutable_split_parallel()->set_axis(axis);
  return Set(arg, sbp);
}

SbpBuilder& SbpBuilder::Split(std::initializer_list<std::string> args, int64_t axis) {
  for (const std::string& arg : args) {
    Split(arg, axis);
  }
  return *this;
}

SbpBuilder& SbpBuilder::Broadcast(const std::string& arg) {
  proto::SbpParallel sbp;
  sbp.mutable_broadcast_parallel();
  return Set(arg, sbp);
}

SbpBuilder& SbpBuilder::Broadcast(std::initializer_list<std::string> args) {
  for (const std::string& arg : args) {
    Broadcast(arg);
  }
  return *this;
}

SbpBuilder& SbpBuilder::PartialSum(const std::string& arg) {
  proto::SbpParallel sbp;
  sbp.mutable_partial_sum_parallel();
  return Set(arg, sbp);
}

SbpBuilder& SbpBuilder::PartialSum(std::initializer_list<std::string> args) {
  for (const std::string& arg : args) {
    PartialSum(arg);
  }
  return *this;
}

}  // namespace oflite
