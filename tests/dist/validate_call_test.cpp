// What a rank checks alone before a column gather (Communicator::AllGatherColumns): its call
// is a collective kind of its own, with the columns per rank as counts and the rows as count.
// The CUDA communicator runs this check; it needs no GPU, so it runs here.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dist/gloo_communicator.h"

namespace oflite {
namespace {

using dist::CollectiveCall;
using dist::CollectiveKind;

CollectiveCall ColumnsCall(const std::vector<int64_t>* cols, int64_t rows) {
  CollectiveCall call;
  call.kind = CollectiveKind::kAllGatherColumns;
  call.dtype = DataType::kFloat16;
  call.count = rows;
  call.counts = cols;
  return call;
}

void ExpectValueError(const Maybe<void>& result, const std::string& needle) {
  ASSERT_FALSE(result.ok()) << "expected an error with: " << needle;
  EXPECT_EQ(result.error().kind(), ErrorKind::kValueError) << result.error().ToString();
  EXPECT_NE(result.error().ToString().find(needle), std::string::npos) << result.error().ToString();
}

TEST(ValidateCallTest, AColumnGatherNamesItselfAndPassesWhenWhole) {
  EXPECT_EQ(std::string(dist::CollectiveName(CollectiveKind::kAllGatherColumns)),
            "AllGatherColumns");
  const std::vector<int64_t> cols = {3, 2};
  std::vector<uint16_t> out(4 * 5);
  const Maybe<void> ok = dist::ValidateCall(ColumnsCall(&cols, 4), 1, 2, nullptr, out.data());
  EXPECT_TRUE(ok.ok()) << ok.error().ToString();
  // No rows or no columns: nothing to write, so no output buffer is needed.
  const std::vector<int64_t> none = {0, 0};
  EXPECT_TRUE(dist::ValidateCall(ColumnsCall(&cols, 0), 0, 2, nullptr, nullptr).ok());
  EXPECT_TRUE(dist::ValidateCall(ColumnsCall(&none, 7), 0, 2, nullptr, nullptr).ok());
}

TEST(ValidateCallTest, BadColumnGathersAreValueErrorsNamingTheArgument) {
  const std::vector<int64_t> cols = {3, 2};
  std::vector<uint16_t> out(4 * 5);
  const std::vector<int64_t> three = {1, 1, 1};
  ExpectValueError(dist::ValidateCall(ColumnsCall(&three, 4), 0, 2, nullptr, out.data()),
                   "AllGatherColumns: cols has 3 entries (expected one per rank, 2)");
  const std::vector<int64_t> negative = {3, -2};
  ExpectValueError(dist::ValidateCall(ColumnsCall(&negative, 4), 0, 2, nullptr, out.data()),
                   "AllGatherColumns: cols[1] is -2 (expected >= 0)");
  ExpectValueError(dist::ValidateCall(ColumnsCall(&cols, -1), 0, 2, nullptr, out.data()),
                   "AllGatherColumns: rows is -1 (expected >= 0)");
  ExpectValueError(dist::ValidateCall(ColumnsCall(&cols, 4), 0, 2, nullptr, nullptr),
                   "AllGatherColumns: the output buffer is null but holds 20 elements");
  const std::vector<int64_t> wide = {INT64_MAX / 2, 2};
  ExpectValueError(dist::ValidateCall(ColumnsCall(&wide, 3), 0, 2, nullptr, out.data()),
                   "AllGatherColumns: 3 rows of " + std::to_string(INT64_MAX / 2 + 2) +
                       " columns overflow an element count");
}

}  // namespace
}  // namespace oflite
