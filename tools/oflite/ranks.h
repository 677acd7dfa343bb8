// `--nproc N` of `oflite optest`, `run` and `bench --global`: the same command on N ranks.
// Outside a launch the command starts N copies of itself through `oflite launch`; each copy,
// finding itself a rank (RANK in its environment), joins the world and does its part. With
// `--threads` the ranks are threads of this one process instead, one GPU each.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_RANKS_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_RANKS_H_

#include <functional>
#include <string>
#include <vector>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/dist/communicator.h"

namespace oflite {
namespace cli {

// main's arguments, for starting the command again.
void SetSelfCommand(int argc, char** argv);

// ValueError when --threads cannot apply: without --nproc N > 1 (`needs` names what else the
// command needs), or inside a launch, whose ranks are processes already.
Maybe<void> CheckThreadsOption(bool threads, bool has_ranks, const char* needs);
// Whether this process is a rank of a launch (RANK is set), or this thread a thread rank.
bool IsRank();
// Runs the command on `nproc` ranks and returns the worst exit status: as processes, this
// command line again through `oflite launch`; with `threads`, as_rank() on nproc thread ranks
// of this process (dist::RunThreadRanks).
int LaunchSelf(int nproc, bool threads, const std::function<int()>& as_rank);
// On a rank: joins the world (dist::Init) and returns its communicator for memory of `type`;
// ValueError when the world is not of `nproc` ranks.
Maybe<dist::Communicator*> JoinRanks(int nproc, DeviceType type);
// Whether `mine` holds on every rank of `comm` (a collective: every rank calls it at the same
// point, so that all take the same branch after it). Null `comm`: `mine`.
Maybe<bool> EveryRank(dist::Communicator* comm, bool mine);

}  // namespace cli
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_RANKS_H_
