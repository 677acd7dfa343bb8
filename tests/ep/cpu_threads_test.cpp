// The CPU thread count: SetNumThreads validates its argument, and every CPU primitive that
// splits work over the pool gives bit-identical results for one thread and for several.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "oneflow_lite/ep/num_threads.h"
#include "oneflow_lite/functional/functional.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

// Restores the thread count a test changed.
class CpuThreadsTest : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_TRUE(SetNumThreads(saved_).ok()); }
  const int saved_ = GetNumThreads();
};

TEST_F(CpuThreadsTest, SetNumThreadsRefusesCountsBelowOne) {
  ExpectError(SetNumThreads(0), ErrorKind::kValueError, {"SetNumThreads", "1..65536", "got 0"});
  ExpectError(SetNumThreads(-4), ErrorKind::kValueError, {"got -4"});
  ExpectError(SetNumThreads(int64_t{1} << 40), ErrorKind::kValueError, {"1..65536"});
  EXPECT_EQ(GetNumThreads(), saved_);
}

TEST_F(CpuThreadsTest, SetNumThreadsIsWhatGetNumThreadsReports) {
  ASSERT_TRUE(SetNumThreads(3).ok());
  EXPECT_EQ(GetNumThreads(), 3);
  ASSERT_TRUE(SetNumThreads(1).ok());
  EXPECT_EQ(GetNumThreads(), 1);
}

std::vector<char> Bytes(const Tensor& t) {
  std::vector<char> bytes(static_cast<size_t>(t.shape().elem_cnt()) * DataTypeSize(t.dtype()));
  EXPECT_TRUE(t.CopyToHost(bytes.data(), bytes.size()).ok());
  return bytes;
}

// Each call's output bytes with one thread and with four (more than the cores CI has, so that
// chunks differ from the single-threaded split even there).
TEST_F(CpuThreadsTest, OneThreadAndSeveralGiveIdenticalBytes) {
  const Device cpu = Device::Cpu();
  const Tensor rows =
      MakeTensor(RandomValues(300 * 3001, 1), Shape{300, 3001}, DataType::kFloat32, cpu);
  const Tensor big = MakeTensor(RandomValues(1 << 20, 2), Shape{1 << 20}, DataType::kFloat32, cpu);
  const Tensor half =
      MakeTensor(RandomValues(257 * 1000, 3), Shape{257, 1000}, DataType::kBFloat16, cpu);
  const Tensor a = MakeTensor(RandomValues(384 * 320, 4), Shape{384, 320}, DataType::kFloat32, cpu);
  const Tensor b = MakeTensor(RandomValues(320 * 352, 5), Shape{320, 352}, DataType::kFloat32, cpu);
  // Few outputs over long sums: oneDNN would split k over threads; these run on one thread.
  const Tensor row = MakeTensor(RandomValues(300000, 6), Shape{1, 300000}, DataType::kFloat32, cpu);
  const Tensor col = MakeTensor(RandomValues(300000, 7), Shape{300000, 1}, DataType::kFloat32, cpu);
  const Tensor pair =
      MakeTensor(RandomValues(2 * 65536, 9), Shape{2, 65536}, DataType::kFloat32, cpu);
  const Tensor wide =
      MakeTensor(RandomValues(65536 * 16, 8), Shape{65536, 16}, DataType::kFloat32, cpu);
  const std::vector<std::pair<std::string, std::function<Maybe<Tensor>()>>> calls = {
      {"softmax", [&] { return functional::Softmax(rows, -1); }},
      {"softmax dim 0", [&] { return functional::Softmax(rows, 0); }},
      {"log_softmax", [&] { return functional::LogSoftmax(rows, -1); }},
      {"softmax bfloat16", [&] { return functional::Softmax(half, -1); }},
      {"softmax_grad", [&] { return functional::SoftmaxGrad(rows, rows, -1); }},
      {"add", [&] { return functional::Add(big, big); }},
      {"exp", [&] { return functional::Exp(big); }},
      {"transpose",
       [&] {
         return functional::Transpose(rows, {1, 0});
       }},
      {"matmul", [&] { return functional::MatMul(a, b); }},
      {"matmul (1, 300000) x (300000, 1)", [&] { return functional::MatMul(row, col); }},
      {"matmul (2, 65536) x (65536, 16)", [&] { return functional::MatMul(pair, wide); }},
  };
  for (const auto& [name, call] : calls) {
    ASSERT_TRUE(SetNumThreads(1).ok());
    const std::vector<char> one = Bytes(Unwrap(call()));
    ASSERT_TRUE(SetNumThreads(4).ok());
    const std::vector<char> four = Bytes(Unwrap(call()));
    ASSERT_EQ(one.size(), four.size()) << name;
    EXPECT_EQ(std::memcmp(one.data(), four.data(), one.size()), 0) << name;
  }
}

}  // namespace
}  // namespace test
}  // namespace oflite
