#include "tools/oflite/ranks.h"

#include <algorithm>
#include <cstdlib>

#include "oneflow_lite/dist/process_group.h"
#include "tools/oflite/commands.h"

namespace oflite {
namespace cli {

namespace {
std::vector<std::string>& SelfCommandStorage() {
  static std::vector<std::string> command;
  return command;
}
}  // namespace

void SetSelfCommand(int argc, char** argv) { SelfCommandStorage().assign(argv, argv + argc); }

Maybe<void> CheckThreadsOption(bool threads, bool has_ranks, const char* needs) {
  if (!threads) {
    return Ok();
  }
  OFLITE_CHECK_OR_RETURN(has_ranks, ValueError) << "--threads needs " << needs;
  OFLITE_CHECK_OR_RETURN(std::getenv("RANK") == nullptr, ValueError)
      << "--threads inside a launch (RANK is set): its ranks are processes already";
  return Ok();
}

bool IsRank() { return std::getenv("RANK") != nullptr || dist::IsThreadRank(); }

int LaunchSelf(int nproc, bool threads, const std::function<int()>& as_rank) {
  if (threads) {
    std::vector<int> status(static_cast<size_t>(nproc), 0);
    const Maybe<void> ran = dist::RunThreadRanks(
        nproc, [&](int rank) { status[static_cast<size_t>(rank)] = as_rank(); });
    if (!ran.ok()) {
      return ReportError(ran.error());
    }
    return *std::max_element(status.begin(), status.end());
  }
  LaunchOptions launch;
  launch.nproc = nproc;
  launch.command = SelfCommandStorage();
  return LaunchCommand(launch);
}

Maybe<dist::Communicator*> JoinRanks(int nproc, DeviceType type) {
  OFLITE_JUST(dist::Init());
  OFLITE_CHECK_OR_RETURN(dist::WorldSize() == nproc, ValueError)
      << "--nproc " << nproc << ": this process is rank " << dist::Rank() << " of a world of "
      << dist::WorldSize();
  return dist::GetCommunicator(type);
}

Maybe<bool> EveryRank(dist::Communicator* comm, bool mine) {
  if (comm == nullptr) {
    return mine;
  }
  const int64_t flag = mine ? 1 : 0;
  std::vector<int64_t> flags(static_cast<size_t>(comm->size()));
  const std::vector<int64_t> counts(flags.size(), 1);
  OFLITE_JUST(comm->AllGather(&flag, flags.data(), counts, DataType::kInt64, nullptr));
  return std::find(flags.begin(), flags.end(), 0) == flags.end();
}

}  // namespace cli
}  // namespace oflite
