// One SBP signature, argument by argument: an op's SBP function returns a list of these.
//
//   signatures.push_back(SbpBuilder().Split({kX, kGate, kY}, axis).Build());
//   signatures.push_back(SbpBuilder().PartialSum(kX).Broadcast(kGate).PartialSum(kY).Build());
#ifndef ONEFLOW_LITE_FRAMEWORK_SBP_BUILDER_H_
#define ONEFLOW_LITE_FRAMEWORK_SBP_BUILDER_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "oneflow_lite/framework/sbp.h"

namespace oflite {

class SbpBuilder {
 public:
  // Each names the SBP of one argument (or of several alike); a later call for the same
  // argument replaces the earlier one.
  SbpBuilder& Split(const std::string& arg, int64_t axis);
  SbpBuilder& Split(std::initializer_list<std::string> args, int64_t axis);
  SbpBuilder& Broadcast(const std::string& arg);
  SbpBuilder& Broadcast(std::initializer_list<std::string> args);
  SbpBuilder& PartialSum(const std::string& arg);
  SbpBuilder& PartialSum(std::initializer_list<std::string> args);
  SbpBuilder& Set(const std::string& arg, const Sbp& sbp);

  SbpSignature Build() const { return signature_; }

 private:
  SbpBuilder& SetAll(std::initializer_list<std::string> args, const Sbp& sbp);

  SbpSignature signature_;
};

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_SBP_BUILDER_H_
