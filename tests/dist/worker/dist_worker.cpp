// oflite_dist_worker MODE [ARG]: one rank of a test world, run under `oflite launch`. It prints
// "rank R: ..." lines and exits 0 when what it saw is what MODE expects, 1 otherwise:
//   collectives [cpu|cuda]  every collective and dtype against the reference (collective_checks)
//   boxing [cpu|cuda]       every boxing pair of global tensors and global matmuls against
//                           whole tensors (boxing_checks)
//   exit-early R            rank R exits (status 3) after joining; the others' AllReduceSum
//                           must fail with a DeviceError within the timeout
//   stall R                 rank R joins, then sleeps past the timeout (status 4); the others'
//                           AllReduceSum must fail with a DeviceError within the timeout
//   never-join R            rank R sleeps past the timeout without joining (status 4); the
//                           others' Init must fail with a DeviceError naming rank R
//   disagree                the ranks pass different counts, then dtypes, then AllToAll counts
//                           that only one rank finds wrong, then a call only one rank finds
//                           invalid: a ValueError on every rank each time, after which the
//                           communicator still works
//   world-size R            rank R says WORLD_SIZE+1: Init fails with a ValueError on each rank
//   threads N collectives|boxing [cpu|cuda]
//                           that mode's checks on N thread ranks of this one process
//                           (dist::RunThreadRanks; on CUDA thread r drives cuda:r), outside any
//                           launch
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "oneflow_lite/dist/process_group.h"
#include "tests/dist/worker/boxing_checks.h"
#include "tests/dist/worker/collective_checks.h"

namespace {

using oflite::ErrorKind;
using oflite::Maybe;
using Clock = std::chrono::steady_clock;

thread_local int g_rank = -1;

int Fail(const std::string& why) {
  std::cout << "rank " << g_rank << ": FAILED: " << why << std::endl;
  return 1;
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// An error of `kind` whose message holds `needle`, within the timeout (plus a margin for a
// loaded 2-core machine): exit 0; anything else: exit 1.
int ExpectError(const Maybe<void>& result, ErrorKind kind, const std::string& needle,
                Clock::time_point since, const char* what) {
  const double elapsed = Seconds(since);
  if (result.ok()) {
    return Fail(std::string(what) + " succeeded, expected an error");
  }
  std::cout << "rank " << g_rank << ": " << what << " failed after " << elapsed
            << " s: " << result.error().ToString() << std::endl;
  if (result.error().kind() != kind) {
    return Fail(std::string("expected a ") + oflite::ErrorKindName(kind));
  }
  if (result.error().message().find(needle) == std::string::npos) {
    return Fail("the message does not name \"" + needle + "\"");
  }
  if (elapsed > oflite::dist::TimeoutSeconds() + 3) {
    return Fail("the error came later than the timeout");
  }
  std::cout << "rank " << g_rank << ": got the expected error" << std::endl;
  return 0;
}

double EnvTimeout() {
  const char* text = std::getenv("OFLITE_DIST_TIMEOUT");
  return text != nullptr ? std::atof(text) : oflite::dist::kDefaultTimeoutSeconds;
}

void SleepPastTimeout() {
  std::this_thread::sleep_for(std::chrono::duration<double>(EnvTimeout() + 3));
}

int Collectives(const std::string& device_name) {
  const oflite::Device device = device_name == "cuda"
                                    ? oflite::Device::Cuda(oflite::dist::LocalRank())
                                    : oflite::Device::Cpu();
  Maybe<oflite::dist::Communicator*> comm = oflite::dist::GetCommunicator(
      device_name == "cuda" ? oflite::DeviceType::kCUDA : oflite::DeviceType::kCPU);
  if (!comm.ok()) {
    return Fail(comm.error().ToString());
  }
  const auto start = Clock::now();
  Maybe<int64_t> checked = oflite::dist_test::CheckCollectives(comm.value(), device);
  if (!checked.ok()) {
    return Fail(checked.error().ToString());
  }
  std::cout << "rank " << g_rank << ": " << checked.value() << " collective outputs match ("
            << device_name << ", world of " << oflite::dist::WorldSize() << ", " << Seconds(start)
            << " s)" << std::endl;
  return 0;
}

int Boxing(const std::string& device_name) {
  const oflite::Device device = device_name == "cuda"
                                    ? oflite::Device::Cuda(oflite::dist::LocalRank())
                                    : oflite::Device::Cpu();
  const Maybe<int64_t> checked = oflite::dist_test::CheckBoxing(device);
  if (!checked.ok()) {
    return Fail(checked.error().ToString());
  }
  std::cout << "rank " << g_rank << ": " << checked.value() << " boxing and global matmul checks "
            << "hold (" << device_name << ", world of " << oflite::dist::WorldSize() << ")"
            << std::endl;
  return 0;
}

Maybe<void> SumOnce(oflite::dist::Communicator* comm) {
  std::vector<float> data(1000, 1.0f);
  return comm->AllReduceSum(data.data(), data.data(), data.size(), oflite::DataType::kFloat32,
                            nullptr);
}

int Disagree(oflite::dist::Communicator* comm) {
  const int rank = comm->rank();
  const int size = comm->size();
  std::vector<int64_t> counts(size, 2);
  counts[0] = rank == 0 ? 2 : 3;  // rank 0 says its block has 2 elements, the others 3
  std::vector<float> in(counts[rank], 1.0f);
  std::vector<float> out(16, 0.0f);
  auto start = Clock::now();
  int status = ExpectError(
      comm->AllGather(in.data(), out.data(), counts, oflite::DataType::kFloat32, nullptr),
      ErrorKind::kValueError, "passed counts", start, "AllGather with other counts");
  if (status != 0) {
    return status;
  }
  std::vector<char> buffer(64, 0);
  start = Clock::now();
  status =
      ExpectError(comm->Broadcast(buffer.data(), 4,
                                  rank == 0 ? oflite::DataType::kInt32 : oflite::DataType::kFloat32,
                                  0, nullptr),
                  ErrorKind::kValueError, "passed dtype", start, "Broadcast with another dtype");
  if (status != 0) {
    return status;
  }
  // Only rank 0 expects more from rank 1 than rank 1 sends: every rank sees the mismatch.
  std::vector<int64_t> sends(size, 1);
  std::vector<int64_t> recvs(size, 1);
  if (rank == 0) {
    recvs[1] = 3;
  }
  std::vector<float> a2a_in(size, 1.0f);
  std::vector<float> a2a_out(size + 2, 0.0f);
  start = Clock::now();
  status = ExpectError(comm->AllToAll(a2a_in.data(), sends, a2a_out.data(), recvs,
                                      oflite::DataType::kFloat32, nullptr),
                       ErrorKind::kValueError, "sends 1 elements to rank 0, which expects", start,
                       "AllToAll that only rank 0 finds wrong");
  if (status != 0) {
    return status;
  }
  // A call only rank 1 finds invalid (counts for too few ranks): every rank fails it at once.
  std::vector<int64_t> short_counts(rank == 1 ? size - 1 : size, 1);
  std::vector<float> gathered(size, 0.0f);
  start = Clock::now();
  status = ExpectError(comm->AllGather(a2a_in.data(), gathered.data(), short_counts,
                                       oflite::DataType::kFloat32, nullptr),
                       ErrorKind::kValueError, rank == 1 ? "counts" : "found invalid", start,
                       "AllGather that only rank 1 finds invalid");
  if (status != 0) {
    return status;
  }
  std::vector<int32_t> one = {1};
  Maybe<void> sum =
      comm->AllReduceSum(one.data(), one.data(), 1, oflite::DataType::kInt32, nullptr);
  if (!sum.ok() || one[0] != size) {
    return Fail("AllReduceSum after the disagreements: " +
                (sum.ok() ? std::to_string(one[0]) : sum.error().ToString()));
  }
  std::cout << "rank " << g_rank << ": the communicator works after the disagreements" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const int target = argc > 2 ? std::atoi(argv[2]) : -1;
  const char* rank_text = std::getenv("RANK");
  g_rank = rank_text != nullptr ? std::atoi(rank_text) : 0;

  if (mode == "never-join" && g_rank == target) {
    SleepPastTimeout();
    return 4;
  }
  if (mode == "world-size" && g_rank == target) {
    const std::string bigger = std::to_string(std::atoi(std::getenv("WORLD_SIZE")) + 1);
    setenv("WORLD_SIZE", bigger.c_str(), 1);
  }
  if (mode == "threads") {
    const std::string checks = argc > 3 ? argv[3] : "";
    const std::string device = argc > 4 ? argv[4] : "cpu";
    std::vector<int> status(static_cast<size_t>(std::max(target, 0)), 1);
    const Maybe<void> ran = oflite::dist::RunThreadRanks(target, [&](int rank) {
      g_rank = rank;
      status[static_cast<size_t>(rank)] = checks == "collectives" ? Collectives(device)
                                          : checks == "boxing"
                                              ? Boxing(device)
                                              : Fail("unknown checks \"" + checks + "\"");
    });
    if (!ran.ok()) {
      return Fail(ran.error().ToString());
    }
    return *std::max_element(status.begin(), status.end());
  }
  auto start = Clock::now();
  const Maybe<void> joined = oflite::dist::Init();
  if (mode == "never-join") {
    return ExpectError(joined, ErrorKind::kDeviceError, "rank " + std::to_string(target) + " of",
                       start, "Init");
  }
  if (mode == "world-size") {
    return ExpectError(joined, ErrorKind::kValueError, "WORLD_SIZE=", start, "Init");
  }
  if (!joined.ok()) {
    return Fail(joined.error().ToString());
  }
  if (mode == "collectives") {
    const int status = Collectives(argc > 2 ? argv[2] : "cpu");
    oflite::dist::Shutdown();
    return status;
  }
  if (mode == "boxing") {
    const int status = Boxing(argc > 2 ? argv[2] : "cpu");
    oflite::dist::Shutdown();
    return status;
  }
  Maybe<oflite::dist::Communicator*> comm = oflite::dist::GetCommunicator(oflite::DeviceType::kCPU);
  if (!comm.ok()) {
    return Fail(comm.error().ToString());
  }
  if (mode == "disagree") {
    return Disagree(comm.value());
  }
  if (mode == "exit-early" || mode == "stall") {
    if (!comm.value()->Barrier().ok()) {  // every rank connected
      return Fail("Barrier");
    }
    if (g_rank == target) {
      if (mode == "stall") {
        SleepPastTimeout();
        return 4;
      }
      std::cout << "rank " << g_rank << ": exiting early" << std::endl;
      std::_Exit(3);
    }
    start = Clock::now();
    return ExpectError(SumOnce(comm.value()), ErrorKind::kDeviceError, "AllReduceSum failed", start,
                       "AllReduceSum");
  }
  return Fail("unknown mode \"" + mode + "\"");
}
