// The dist layer: the environment Init reads, a world of 1 on the CPU (and on CUDA where a GPU
// is visible), argument errors, and through `oflite launch`, worlds of 2 and 3 processes whose
// ranks fail, stall, never join or disagree (tests/dist/worker/dist_worker.cpp).
#include "oneflow_lite/dist/process_group.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/global_dispatch.h"
#include "oneflow_lite/framework/global_tensor.h"
#include "tests/dist/worker/collective_checks.h"

namespace oflite {
namespace {

using Env = std::map<std::string, std::string>;

Maybe<dist::WorldSpec> Parse(const Env& env) {
  return dist::ParseWorldSpec([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

void ExpectValueError(const Env& env, const std::string& needle) {
  Maybe<dist::WorldSpec> spec = Parse(env);
  ASSERT_FALSE(spec.ok()) << needle;
  EXPECT_EQ(spec.error().kind(), ErrorKind::kValueError) << spec.error().ToString();
  EXPECT_NE(spec.error().message().find(needle), std::string::npos) << spec.error().message();
}

TEST(WorldSpecTest, NoEnvironmentIsAWorldOfOne) {
  Maybe<dist::WorldSpec> spec = Parse({});
  ASSERT_TRUE(spec.ok()) << spec.error().ToString();
  EXPECT_EQ(spec.value().rank, 0);
  EXPECT_EQ(spec.value().world_size, 1);
  EXPECT_EQ(spec.value().local_rank, 0);
  EXPECT_EQ(spec.value().local_world_size, 1);
  EXPECT_EQ(spec.value().rendezvous_dir, "");
  EXPECT_EQ(spec.value().timeout_seconds, dist::kDefaultTimeoutSeconds);
}

TEST(WorldSpecTest, TorchrunVariables) {
  Maybe<dist::WorldSpec> spec = Parse({{"RANK", "2"},
                                       {"WORLD_SIZE", "4"},
                                       {"LOCAL_RANK", "0"},
                                       {"LOCAL_WORLD_SIZE", "2"},
                                       {"OFLITE_RENDEZVOUS", "file:/tmp/x"},
                                       {"OFLITE_DIST_TIMEOUT", "2.5"}});
  ASSERT_TRUE(spec.ok()) << spec.error().ToString();
  EXPECT_EQ(spec.value().rank, 2);
  EXPECT_EQ(spec.value().world_size, 4);
  EXPECT_EQ(spec.value().local_rank, 0);
  EXPECT_EQ(spec.value().local_world_size, 2);
  EXPECT_EQ(spec.value().rendezvous_dir, "/tmp/x");
  EXPECT_FALSE(spec.value().rendezvous_dir_is_generated);
  EXPECT_EQ(spec.value().timeout_seconds, 2.5);
  EXPECT_EQ(spec.value().source, "RANK");
}

TEST(WorldSpecTest, LocalRankDefaultsToRankOnOneHost) {
  Maybe<dist::WorldSpec> spec =
      Parse({{"RANK", "1"}, {"WORLD_SIZE", "3"}, {"OFLITE_RENDEZVOUS", "file:/tmp/x"}});
  ASSERT_TRUE(spec.ok()) << spec.error().ToString();
  EXPECT_EQ(spec.value().local_rank, 1);
  EXPECT_EQ(spec.value().local_world_size, 3);
}

TEST(WorldSpecTest, OpenMpiVariablesWithAGeneratedRendezvous) {
  Maybe<dist::WorldSpec> spec = Parse({{"OMPI_COMM_WORLD_RANK", "1"},
                                       {"OMPI_COMM_WORLD_SIZE", "2"},
                                       {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                       {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                                       {"PMIX_NAMESPACE", "prterun-host-123@1"},
                                       {"TMPDIR", "/scratch"}});
  ASSERT_TRUE(spec.ok()) << spec.error().ToString();
  EXPECT_EQ(spec.value().rank, 1);
  EXPECT_EQ(spec.value().world_size, 2);
  EXPECT_EQ(spec.value().source, "OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(spec.value().rendezvous_dir, "/scratch/oflite-rendezvous-prterun-host-123_1");
  EXPECT_TRUE(spec.value().rendezvous_dir_is_generated);
}

TEST(WorldSpecTest, BadEnvironmentsAreValueErrorsNamingTheVariable) {
  const std::string rdv = "file:/tmp/x";
  ExpectValueError({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"OFLITE_RENDEZVOUS", rdv}},
                   "RANK=2 is out of range (expected 0..1)");
  ExpectValueError({{"RANK", "-1"}, {"WORLD_SIZE", "2"}, {"OFLITE_RENDEZVOUS", rdv}},
                   "RANK=-1 is out of range (expected 0..1)");
  ExpectValueError({{"RANK", "0"}, {"WORLD_SIZE", "two"}, {"OFLITE_RENDEZVOUS", rdv}},
                   "WORLD_SIZE=\"two\" is not an integer");
  ExpectValueError({{"RANK", "0"}, {"WORLD_SIZE", "0"}}, "WORLD_SIZE=0 is out of range");
  ExpectValueError({{"RANK", "0"}}, "RANK is set but WORLD_SIZE is not");
  ExpectValueError({{"WORLD_SIZE", "2"}}, "WORLD_SIZE=2 is set but RANK is not");
  ExpectValueError({{"RANK", "0"},
                    {"WORLD_SIZE", "2"},
                    {"LOCAL_RANK", "2"},
                    {"LOCAL_WORLD_SIZE", "2"},
                    {"OFLITE_RENDEZVOUS", rdv}},
                   "LOCAL_RANK=2 is out of range (expected 0..1)");
  ExpectValueError({{"RANK", "0"}, {"WORLD_SIZE", "2"}},
                   "OFLITE_RENDEZVOUS is not set (expected file:DIR");
  ExpectValueError({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"OFLITE_RENDEZVOUS", "tcp://h:1"}},
                   "OFLITE_RENDEZVOUS=\"tcp://h:1\" is not a rendezvous (expected file:DIR");
  ExpectValueError({{"OFLITE_DIST_TIMEOUT", "0"}}, "OFLITE_DIST_TIMEOUT=\"0\" is not a number");
  ExpectValueError({{"OFLITE_DIST_TIMEOUT", "soon"}}, "OFLITE_DIST_TIMEOUT=\"soon\"");
  ExpectValueError({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}},
                   "neither OFLITE_RENDEZVOUS nor a job id");
}

TEST(WorldSpecTest, MasterAddrAloneIsNotImplemented) {
  Maybe<dist::WorldSpec> spec =
      Parse({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().kind(), ErrorKind::kNotImplemented);
  EXPECT_NE(spec.error().message().find("OFLITE_RENDEZVOUS=file:DIR"), std::string::npos);
}

// Init reads the process' environment: these tests clear the launcher's variables first.
class WorldOfOneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name :
         {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
          "OMPI_COMM_WORLD_SIZE", "OFLITE_RENDEZVOUS", "OFLITE_DIST_TIMEOUT"}) {
      unsetenv(name);
    }
    dist::Shutdown();
  }
  void TearDown() override {
    dist::Shutdown();
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
  }
};

TEST_F(WorldOfOneTest, InitWithoutEnvironmentIsAWorldOfOne) {
  EXPECT_EQ(dist::WorldSize(), 1);
  ASSERT_TRUE(dist::Init().ok());
  ASSERT_TRUE(dist::Init().ok());  // idempotent
  EXPECT_TRUE(dist::IsInitialized());
  EXPECT_EQ(dist::Rank(), 0);
  EXPECT_EQ(dist::WorldSize(), 1);
  EXPECT_EQ(dist::LocalRank(), 0);
  EXPECT_EQ(dist::TimeoutSeconds(), dist::kDefaultTimeoutSeconds);
  dist::Shutdown();
  EXPECT_FALSE(dist::IsInitialized());
  ASSERT_TRUE(dist::Init().ok());  // again after Shutdown
}

TEST_F(WorldOfOneTest, EveryCollectiveOnTheCpu) {
  Maybe<dist::Communicator*> comm = dist::GetCommunicator(DeviceType::kCPU);  // Init too
  ASSERT_TRUE(comm.ok()) << comm.error().ToString();
  EXPECT_EQ(comm.value()->rank(), 0);
  EXPECT_EQ(comm.value()->size(), 1);
  EXPECT_EQ(comm.value()->device_type(), DeviceType::kCPU);
  Maybe<int64_t> checked = dist_test::CheckCollectives(comm.value(), Device::Cpu());
  ASSERT_TRUE(checked.ok()) << checked.error().ToString();
  EXPECT_EQ(checked.value(), 21 * static_cast<int64_t>(AllDataTypes().size()));  // 21 per dtype
}

TEST_F(WorldOfOneTest, MismatchedRankAndWorldSizeFailInit) {
  setenv("RANK", "3", 1);
  setenv("WORLD_SIZE", "2", 1);
  Maybe<void> joined = dist::Init();
  ASSERT_FALSE(joined.ok());
  EXPECT_EQ(joined.error().kind(), ErrorKind::kValueError);
  EXPECT_NE(joined.error().message().find("RANK=3 is out of range (expected 0..1)"),
            std::string::npos)
      << joined.error().message();
  EXPECT_FALSE(dist::IsInitialized());
  Maybe<dist::Communicator*> comm = dist::GetCommunicator(DeviceType::kCPU);
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.error().kind(), ErrorKind::kValueError);
}

void ExpectArgumentError(const Maybe<void>& result, const std::string& needle) {
  ASSERT_FALSE(result.ok()) << needle;
  EXPECT_EQ(result.error().kind(), ErrorKind::kValueError) << result.error().ToString();
  EXPECT_NE(result.error().message().find(needle), std::string::npos) << result.error().message();
}

TEST_F(WorldOfOneTest, BadArgumentsAreValueErrors) {
  Maybe<dist::Communicator*> got = dist::GetCommunicator(DeviceType::kCPU);
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  dist::Communicator* comm = got.value();
  std::vector<float> in(8, 1.0f);
  std::vector<float> out(8, 0.0f);
  ExpectArgumentError(comm->AllGather(in.data(), out.data(), {2, 2}, DataType::kFloat32, nullptr),
                      "AllGather: counts has 2 entries (expected one per rank, 1)");
  ExpectArgumentError(
      comm->ReduceScatterSum(in.data(), out.data(), {-1}, DataType::kFloat32, nullptr),
      "ReduceScatterSum: counts[0] is -1 (expected >= 0)");
  ExpectArgumentError(
      comm->AllToAll(in.data(), {2}, out.data(), {3}, DataType::kFloat32, nullptr),
      "AllToAll: rank 0 sends itself send_counts[0]=2 elements but expects recv_counts[0]=3");
  ExpectArgumentError(comm->Broadcast(out.data(), 4, DataType::kFloat32, 1, nullptr),
                      "Broadcast: root 1 is not a rank (expected 0..0)");
  ExpectArgumentError(comm->AllReduceSum(nullptr, out.data(), 4, DataType::kFloat32, nullptr),
                      "AllReduceSum: the input buffer is null but holds 4 elements");
  ExpectArgumentError(comm->AllReduceSum(in.data(), out.data(), -4, DataType::kFloat32, nullptr),
                      "AllReduceSum: count is -4 (expected >= 0)");
  ExpectArgumentError(
      comm->AllReduceSum(in.data(), out.data(), 4, static_cast<DataType>(42), nullptr),
      "AllReduceSum: dtype 42 is not a DataType");
  if (ep::DeviceCount(DeviceType::kCUDA) > 0) {
    Maybe<ep::Device*> cuda = ep::GetDevice(Device::Cuda(0));
    ASSERT_TRUE(cuda.ok());
    ExpectArgumentError(
        comm->AllReduceSum(in.data(), out.data(), 4, DataType::kFloat32, cuda.value()->stream()),
        "AllReduceSum: the CPU communicator got a cuda stream");
  }
  Maybe<dist::Communicator*> bad = dist::GetCommunicator(static_cast<DeviceType>(7));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind(), ErrorKind::kValueError);
}

// NCCL with a world of 1 (GPU 0): every collective on CUDA memory. Skips without a GPU; in a
// build without NCCL, the communicator is NotImplemented.
TEST_F(WorldOfOneTest, NcclEveryCollectiveOnTheGpu) {
  Maybe<dist::Communicator*> comm = dist::GetCommunicator(DeviceType::kCUDA);
  if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
    ASSERT_FALSE(comm.ok());
    EXPECT_TRUE(comm.error().kind() == ErrorKind::kNotImplemented ||
                comm.error().kind() == ErrorKind::kDeviceError)
        << comm.error().ToString();
    GTEST_SKIP() << "no GPU: " << comm.error().message();
  }
  ASSERT_TRUE(comm.ok()) << comm.error().ToString();
  EXPECT_EQ(comm.value()->device_type(), DeviceType::kCUDA);
  Maybe<int64_t> checked = dist_test::CheckCollectives(comm.value(), Device::Cuda(0));
  ASSERT_TRUE(checked.ok()) << checked.error().ToString();
  EXPECT_EQ(checked.value(), 21 * static_cast<int64_t>(AllDataTypes().size()));  // 21 per dtype
  std::vector<float> host(4, 1.0f);  // host memory is no CUDA stream's
  ExpectArgumentError(
      comm.value()->AllReduceSum(host.data(), host.data(), 4, DataType::kFloat32, nullptr),
      "AllReduceSum: the CUDA communicator needs a CUDA stream (got none)");
}

// Ranks as threads of this process: each sees a world of its own, with working communicators,
// while the process' own world stays as it was.
TEST_F(WorldOfOneTest, ThreadRanksEachSeeTheirWorld) {
  constexpr int kRanks = 3;
  std::vector<std::string> seen(kRanks);
  Maybe<void> ran = dist::RunThreadRanks(kRanks, [&](int rank) {
    std::string& out = seen[static_cast<size_t>(rank)];
    dist::Shutdown();  // leaves a thread rank's world in place
    if (!dist::IsThreadRank() || !dist::Init().ok() || !dist::IsInitialized()) {
      out = "not a thread rank";
      return;
    }
    Maybe<dist::Communicator*> comm = dist::GetCommunicator(DeviceType::kCPU);
    if (!comm.ok()) {
      out = comm.error().ToString();
      return;
    }
    Maybe<int64_t> checked = dist_test::CheckCollectives(comm.value(), Device::Cpu());
    int64_t sum = rank + 1;
    Maybe<void> summed = comm.value()->AllReduceSum(&sum, &sum, 1, DataType::kInt64, nullptr);
    Maybe<void> nested = dist::RunThreadRanks(1, [](int) {});
    out = std::to_string(dist::Rank()) + "/" + std::to_string(dist::WorldSize()) + " local " +
          std::to_string(dist::LocalRank()) + "/" + std::to_string(dist::LocalWorldSize()) +
          " comm " + std::to_string(comm.value()->rank()) + "/" +
          std::to_string(comm.value()->size()) + " checks " +
          (checked.ok() ? "ok" : checked.error().ToString()) + " sum " + std::to_string(sum) +
          " nested " + (nested.ok() ? "ok" : ErrorKindName(nested.error().kind()));
  });
  ASSERT_TRUE(ran.ok()) << ran.error().ToString();
  for (int r = 0; r < kRanks; ++r) {
    const std::string me = std::to_string(r);
    EXPECT_EQ(seen[static_cast<size_t>(r)],
              me + "/3 local " + me + "/3 comm " + me + "/3 checks ok sum 6 nested RuntimeError");
  }
  EXPECT_FALSE(dist::IsThreadRank());
  EXPECT_FALSE(dist::IsInitialized());  // the process joined no world
  EXPECT_EQ(dist::WorldSize(), 1);
}

TEST_F(WorldOfOneTest, ThreadRanksBadSizeIsAValueError) {
  for (int size : {0, -1, 1025}) {
    bool ran = false;
    Maybe<void> result = dist::RunThreadRanks(size, [&](int) { ran = true; });
    ASSERT_FALSE(result.ok()) << size;
    EXPECT_EQ(result.error().kind(), ErrorKind::kValueError);
    EXPECT_NE(result.error().message().find("size must be in 1..1024, got " + std::to_string(size)),
              std::string::npos)
        << result.error().message();
    EXPECT_FALSE(ran);
  }
}

TEST_F(WorldOfOneTest, ThreadRanksBodyThatThrowsIsARuntimeError) {
  Maybe<void> result = dist::RunThreadRanks(2, [](int rank) {
    if (rank == 1) {
      throw std::runtime_error("out of luck");
    }
  });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind(), ErrorKind::kRuntimeError);
  EXPECT_NE(result.error().message().find("rank 1 threw: out of luck"), std::string::npos)
      << result.error().message();
  EXPECT_FALSE(dist::IsThreadRank());
}

// A global tensor outliving its communicator keeps a readable shard; re-sharding it or an op on
// it is a RuntimeError, not a use of freed memory.
void ExpectCommunicatorGone(const GlobalTensor& x) {
  const std::string gone = "the communicator this global tensor was made with is gone";
  Maybe<GlobalTensor> boxed = x.ToGlobal(x.placement(), {BroadcastSbp()});
  ASSERT_FALSE(boxed.ok());
  EXPECT_EQ(boxed.error().kind(), ErrorKind::kRuntimeError);
  EXPECT_NE(boxed.error().message().find("GlobalTensor::ToGlobal: " + gone), std::string::npos)
      << boxed.error().message();
  Maybe<GlobalTensor> op = GlobalDispatchOne("softmax", {x});
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.error().kind(), ErrorKind::kRuntimeError);
  EXPECT_NE(op.error().message().find("softmax: " + gone), std::string::npos)
      << op.error().message();
  Maybe<Tensor> local = x.ToLocal();
  ASSERT_TRUE(local.ok()) << local.error().ToString();
  EXPECT_EQ(local.value().elem_cnt(), x.local().elem_cnt());
}

TEST_F(WorldOfOneTest, GlobalTensorsOutlivingTheirCommunicatorFailCleanly) {
  Maybe<Tensor> made = Tensor::Full(Shape{4, 6}, 1.0, DataType::kFloat32, Device::Cpu());
  ASSERT_TRUE(made.ok()) << made.error().ToString();
  const Tensor whole = made.value();
  std::vector<GlobalTensor> kept(2);
  Maybe<void> ran = dist::RunThreadRanks(2, [&](int rank) {
    Maybe<GlobalTensor> x =
        GlobalTensor::FromWhole(whole, Placement(DeviceType::kCPU, {0, 1}), {SplitSbp(0)});
    if (x.ok()) {
      kept[static_cast<size_t>(rank)] = x.value();
    }
  });
  ASSERT_TRUE(ran.ok()) << ran.error().ToString();
  ASSERT_TRUE(kept[0].defined() && kept[1].defined());
  ExpectCommunicatorGone(kept[0]);

  ASSERT_TRUE(dist::Init().ok());  // the process' world of 1, through the provider
  Maybe<GlobalTensor> x =
      GlobalTensor::FromWhole(whole, Placement(DeviceType::kCPU, {0}), {SplitSbp(0)});
  ASSERT_TRUE(x.ok()) << x.error().ToString();
  dist::Shutdown();
  ExpectCommunicatorGone(x.value());
}

// One process driving a GPU per thread: NCCL between the threads (needs 2 GPUs).
TEST_F(WorldOfOneTest, ThreadRanksNcclOnTwoGpus) {
  if (ep::DeviceCount(DeviceType::kCUDA) < 2) {
    GTEST_SKIP() << "fewer than 2 GPUs visible";
  }
  std::vector<std::string> seen(2);
  Maybe<void> ran = dist::RunThreadRanks(2, [&](int rank) {
    Maybe<dist::Communicator*> comm = dist::GetCommunicator(DeviceType::kCUDA);
    if (!comm.ok()) {
      seen[static_cast<size_t>(rank)] = comm.error().ToString();
      return;
    }
    Maybe<int64_t> checked = dist_test::CheckCollectives(comm.value(), Device::Cuda(rank));
    seen[static_cast<size_t>(rank)] =
        checked.ok() ? std::to_string(checked.value()) : checked.error().ToString();
  });
  ASSERT_TRUE(ran.ok()) << ran.error().ToString();
  const std::string expected = std::to_string(21 * static_cast<int64_t>(AllDataTypes().size()));
  EXPECT_EQ(seen[0], expected);
  EXPECT_EQ(seen[1], expected);
}

// `oflite launch` runs: the exit status, everything printed (both streams), the seconds taken.
struct LaunchResult {
  int status = -1;
  std::string output;
  double seconds = 0;
};

LaunchResult Launch(const std::string& args) {
  const std::string command = std::string(OFLITE_CLI_PATH) + " launch " + args + " 2>&1";
  const auto start = std::chrono::steady_clock::now();
  LaunchResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return result;
  }
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    result.output.append(buffer, n);
  }
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string Worker(const std::string& mode) { return std::string(OFLITE_DIST_WORKER) + " " + mode; }

bool Has(const LaunchResult& result, const std::string& text) {
  return result.output.find(text) != std::string::npos;
}

TEST(LaunchTest, SetsTheWorldAndPrefixesLines) {
  LaunchResult r = Launch(
      "--nproc 2 -- sh -c 'echo $RANK/$WORLD_SIZE/$LOCAL_RANK/$LOCAL_WORLD_SIZE; "
      "echo to-stderr >&2; printf unterminated; echo $OFLITE_RENDEZVOUS > /dev/null'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Has(r, "[0] 0/2/0/2\n")) << r.output;
  EXPECT_TRUE(Has(r, "[1] 1/2/1/2\n")) << r.output;
  EXPECT_TRUE(Has(r, "[1] to-stderr\n")) << r.output;
  EXPECT_TRUE(Has(r, "[0] unterminated\n")) << r.output;
}

TEST(LaunchTest, RendezvousIsFreshAndRemoved) {
  LaunchResult r = Launch(
      "--nproc 1 -- sh -c 'echo ${OFLITE_RENDEZVOUS#file:}; ls -A "
      "${OFLITE_RENDEZVOUS#file:} | wc -l'");
  ASSERT_EQ(r.status, 0) << r.output;
  const size_t start = r.output.find("[0] ") + 4;
  const std::string dir = r.output.substr(start, r.output.find('\n') - start);
  EXPECT_NE(dir.find("oflite-launch-"), std::string::npos) << r.output;
  EXPECT_TRUE(Has(r, "[0] 0\n")) << r.output;  // empty when the ranks start
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
}

TEST(LaunchTest, NamesTheRankThatFailed) {
  LaunchResult r = Launch("--nproc 3 -- sh -c 'exit $((RANK == 1 ? 7 : 0))'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(Has(r, "launch: rank 1 of 3 exited with status 7")) << r.output;
}

TEST(LaunchTest, AKilledRankGetsTheOthersTerminatedAfterTheGrace) {
  LaunchResult r = Launch(
      "--nproc 2 --grace 1 -- sh -c 'if [ $RANK = 0 ]; then kill -9 $$; "
      "else exec sleep 60; fi'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(Has(r, "rank 0 of 2 was killed by signal 9")) << r.output;
  EXPECT_TRUE(Has(r, "terminated by launch after the 1 s grace period: rank 1")) << r.output;
  EXPECT_LT(r.seconds, 15) << r.output;
}

TEST(LaunchTest, ProgramThatCannotRun) {
  LaunchResult r = Launch("--nproc 2 -- /nonexistent/program");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(Has(r, "cannot run /nonexistent/program")) << r.output;
  EXPECT_TRUE(Has(r, "exited with status 127")) << r.output;
}

TEST(LaunchTest, BadOptions) {
  LaunchResult r = Launch("--nproc 0 -- true");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(Has(r, "launch: --nproc 0 is out of range (expected 1..1024)")) << r.output;
  r = Launch("--nproc 2");
  EXPECT_EQ(r.status, 2) << r.output;  // a usage error: no program
}

// Failures in a world: each live rank reports the expected error (kind and message, within the
// timeout; the worker checks and exits 0), and launch names the rank that failed.
constexpr double kTimeout = 3;

std::string WorldArgs(int nproc, const std::string& mode) {
  return "--nproc " + std::to_string(nproc) + " --timeout " + std::to_string(kTimeout) + " -- " +
         Worker(mode);
}

TEST(DistFailureTest, ARankThatExitsFailsTheOthersCollective) {
  LaunchResult r = Launch(WorldArgs(3, "exit-early 1"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(Has(r, "launch: rank 1 of 3 exited with status 3")) << r.output;
  EXPECT_TRUE(Has(r, "[0] rank 0: got the expected error")) << r.output;
  EXPECT_TRUE(Has(r, "[2] rank 2: got the expected error")) << r.output;
  EXPECT_FALSE(Has(r, "FAILED")) << r.output;
  EXPECT_FALSE(Has(r, "terminated by launch")) << r.output;
}

TEST(DistFailureTest, AStalledRankTimesTheOthersOut) {
  LaunchResult r = Launch(WorldArgs(2, "stall 1"));
  EXPECT_TRUE(Has(r, "[0] rank 0: got the expected error")) << r.output;
  EXPECT_TRUE(Has(r, "timeout")) << r.output;
  EXPECT_FALSE(Has(r, "FAILED")) << r.output;
  EXPECT_TRUE(Has(r, "launch: rank 1 of 2 exited with status 4")) << r.output;
}

TEST(DistFailureTest, ARankThatNeverJoinsFailsTheOthersInit) {
  LaunchResult r = Launch(WorldArgs(3, "never-join 2"));
  EXPECT_TRUE(Has(r, "[0] rank 0: got the expected error")) << r.output;
  EXPECT_TRUE(Has(r, "[1] rank 1: got the expected error")) << r.output;
  EXPECT_TRUE(Has(r, "rank 2 of 3 did not join the rendezvous")) << r.output;
  EXPECT_FALSE(Has(r, "FAILED")) << r.output;
  EXPECT_TRUE(Has(r, "launch: rank 2 of 3 exited with status 4")) << r.output;
}

TEST(DistFailureTest, RanksThatDisagreeGetValueErrors) {
  LaunchResult r = Launch(WorldArgs(3, "disagree"));
  EXPECT_EQ(r.status, 0) << r.output;
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_TRUE(
        Has(r, "rank " + std::to_string(rank) + ": the communicator works after the disagreements"))
        << r.output;
  }
  EXPECT_TRUE(Has(r, "passed counts [3, 2, 2], this rank (0) [2, 2, 2]")) << r.output;
}

TEST(DistFailureTest, RanksWithDifferentWorldSizesFailInit) {
  LaunchResult r = Launch(WorldArgs(2, "world-size 1"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Has(r, "[0] rank 0: got the expected error")) << r.output;
  EXPECT_TRUE(Has(r, "[1] rank 1: got the expected error")) << r.output;
  EXPECT_TRUE(Has(r, "was started with WORLD_SIZE=3, this rank (0) with WORLD_SIZE=2")) << r.output;
}

}  // namespace
}  // namespace oflite
