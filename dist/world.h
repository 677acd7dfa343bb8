// A joined world's state, shared by the process's world (process_group.cpp) and the worlds of
// thread ranks (thread_ranks.cpp): internal to the library.
#ifndef ONEFLOW_LITE_DIST_WORLD_H_
#define ONEFLOW_LITE_DIST_WORLD_H_

#include <chrono>
#include <memory>
#include <string>

#include "dist/gloo_communicator.h"
#include "oneflow_lite/dist/process_group.h"

namespace gloo {
namespace rendezvous {
class Store;
}  // namespace rendezvous
}  // namespace gloo

namespace oflite {
namespace dist {

struct ProcessGroup {
  WorldSpec spec;
  std::unique_ptr<GlooCommunicator> cpu;
  std::unique_ptr<Communicator> cuda;  // made on the first GetCommunicator(kCUDA)
};

std::chrono::milliseconds TimeoutOf(const WorldSpec& spec);

// Connects this rank to every peer over TCP, meeting them through `store` under `prefix`
// (spec.local_world_size == spec.world_size: loopback). DeviceError when a peer does not come
// within the timeout.
Maybe<std::unique_ptr<GlooCommunicator>> ConnectMesh(const WorldSpec& spec,
                                                     gloo::rendezvous::Store& store,
                                                     const std::string& prefix);

// A peer that exits leaves a socket whose writes raise SIGPIPE, which would kill this process
// instead of failing the call: unless the host handles SIGPIPE itself, it is ignored (writes
// then fail with EPIPE, which Gloo reports).
void IgnoreSigpipeUnlessHandled();

// The calling thread's world while it runs as a thread rank (RunThreadRanks); null otherwise.
ProcessGroup* ThreadWorld();
void SetThreadWorld(ProcessGroup* group);

}  // namespace dist
}  // namespace oflite

#endif  // ONEFLOW_LITE_DIST_WORLD_H_
