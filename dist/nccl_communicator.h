// The CUDA communicator: NCCL, bootstrapped through the CPU communicator (internal).
#ifndef ONEFLOW_LITE_DIST_NCCL_COMMUNICATOR_H_
#define ONEFLOW_LITE_DIST_NCCL_COMMUNICATOR_H_

#include <chrono>
#include <memory>

#include "dist/gloo_communicator.h"

namespace oflite {
namespace dist {

// One NCCL communicator over the world, on GPU `local_rank`: rank 0 makes NCCL's unique id and
// broadcasts it through `cpu`, which also checks every call's arguments across ranks and runs
// Barrier. Every rank must call it. NotImplemented in a build without NCCL.
Maybe<std::unique_ptr<Communicator>> NewNcclCommunicator(GlooCommunicator* cpu, int local_rank,
                                                         std::chrono::milliseconds timeout);

// Reads OFLITE_NCCL_BLOCKING and, for a blocking communicator, sets NCCL_RUNTIME_CONNECT=0
// unless the environment sets it; once per process. Thread ranks call it before their threads
// start, so that no rank's setenv meets another's getenv. NCCL reads the variable when it first
// makes a communicator in the process: after one made elsewhere (torch's), it has no effect.
void PrepareNcclEnvironment();

}  // namespace dist
}  // namespace oflite

#endif  // ONEFLOW_LITE_DIST_NCCL_COMMUNICATOR_H_
