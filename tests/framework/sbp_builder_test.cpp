// SbpBuilder: each argument's SBP as named, several alike, a later call for an argument
// replacing the earlier one, and the same signature as the protobuf written by hand.
#include "oneflow_lite/framework/sbp_builder.h"

#include <gtest/gtest.h>

#include "oneflow_lite/framework/op_schema.h"

namespace oflite {
namespace {

TEST(SbpBuilderTest, NamesEachArgumentsSbp) {
  const SbpSignature signature =
      SbpBuilder().Split({"x", "gate"}, 1).PartialSum("y").Broadcast("w").Build();
  EXPECT_EQ(signature.size(), 4);
  EXPECT_EQ(SbpToString(signature.at("x")), "S(1)");
  EXPECT_EQ(SbpToString(signature.at("gate")), "S(1)");
  EXPECT_EQ(SbpToString(signature.at("w")), "B");
  EXPECT_EQ(SbpToString(signature.at("y")), "P");
}

TEST(SbpBuilderTest, ALaterCallForAnArgumentReplacesTheEarlierOne) {
  const SbpSignature signature =
      SbpBuilder().Broadcast({"a", "b"}).Split("a", 0).PartialSum({"b"}).Build();
  EXPECT_EQ(signature.size(), 2);
  EXPECT_EQ(SbpToString(signature.at("a")), "S(0)");
  EXPECT_EQ(SbpToString(signature.at("b")), "P");
}

TEST(SbpBuilderTest, BuildsWhatTheSignatureWrittenByHandHolds) {
  SbpSignature by_hand;
  by_hand["a"] = SplitSbp(2);
  by_hand["b"] = BroadcastSbp();
  by_hand["out"] = PartialSumSbp();
  const SbpSignature built =
      SbpBuilder().Set("a", SplitSbp(2)).Broadcast("b").PartialSum("out").Build();
  EXPECT_EQ(built, by_hand);
  EXPECT_NE(built, SbpBuilder().Split("a", 1).Broadcast("b").PartialSum("out").Build());
}

}  // namespace
}  // namespace oflite
