// SbpBuilder: each argument's SBP as named, several alike, a later call for an argument
// replacing the earlier one, and the same signature as the protobuf written by hand.
#include "oneflow_lite/framework/sbp_builder.h"

#include <gtest/gtest.h>

#include "oneflow_lite/framework/op_schema.h"

namespace oflite {
namespace {

TEST(SbpBuilderTest, NamesEachArgumentsSbp) {
  const proto::SbpSignature signature =
      SbpBuilder().Split({"x", "gate"}, 1).PartialSum("y").Broadcast("w").Build();
  EXPECT_EQ(signature.arg_sbp().size(), 4);
  EXPECT_EQ(SbpToString(signature.arg_sbp().at("x")), "S(1)");
  EXPECT_EQ(SbpToString(signature.arg_sbp().at("gate")), "S(1)");
  EXPECT_EQ(SbpToString(signature.arg_sbp().at("w")), "B");
  EXPECT_EQ(SbpToString(signature.arg_sbp().at("y")), "P");
}

TEST(SbpBuilderTest, ALaterCallForAnArgumentReplacesTheEarlierOne) {
  const proto::SbpSignature signature =
      SbpBuilder().Broadcast({"a", "b"}).Split("a", 0).PartialSum({"b"}).Build();
  EXPECT_EQ(signature.arg_sbp().size(), 2);
  EXPECT_EQ(SbpToString(signature.arg_sbp().at("a")), "S(0)");
  EXPECT_EQ(SbpToString(signature.arg_sbp().at("b")), "P");
}

TEST(SbpBuilderTest, BuildsWhatTheProtobufWrittenByHandHolds) {
  proto::SbpSignature by_hand;
  (*by_hand.mutable_arg_sbp())["a"] = SplitSbp(2);
  (*by_hand.mutable_arg_sbp())["b"] = BroadcastSbp();
  (*by_hand.mutable_arg_sbp())["out"] = PartialSumSbp();
  const proto::SbpSignature built =
      SbpBuilder().Set("a", SplitSbp(2)).Broadcast("b").PartialSum("out").Build();
  EXPECT_EQ(built.SerializeAsString().size(), by_hand.SerializeAsString().size());
  for (const auto& [arg, sbp] : by_hand.arg_sbp()) {
    EXPECT_EQ(SbpToString(built.arg_sbp().at(arg)), SbpToString(sbp)) << arg;
  }
}

}  // namespace
}  // namespace oflite
