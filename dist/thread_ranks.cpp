// RunThreadRanks: one process driving several GPUs, a rank per thread. The ranks meet through an
// in-memory store and talk over loopback TCP (Gloo) for CPU memory, NCCL for CUDA memory.
#include <gloo/rendezvous/hash_store.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "dist/nccl_communicator.h"
#include "dist/world.h"

namespace oflite {
namespace dist {

namespace {

// Gloo's in-memory store, whose waits last the world's timeout rather than Gloo's default.
class MemoryStore final : public gloo::rendezvous::HashStore {
 public:
  explicit MemoryStore(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  using HashStore::wait;
  void wait(const std::vector<std::string>& keys) override { HashStore::wait(keys, timeout_); }

 private:
  std::chrono::milliseconds timeout_;
};

// The timeout the environment gives (OFLITE_DIST_TIMEOUT); a launcher's variables around this
// process do not make the threads' world.
Maybe<double> EnvTimeout() {
  WorldSpec spec;
  OFLITE_ASSIGN_OR_RETURN(spec, ParseWorldSpec([](const char* name) -> const char* {
                            return std::strcmp(name, "OFLITE_DIST_TIMEOUT") == 0 ? std::getenv(name)
                                                                                 : nullptr;
                          }));
  return spec.timeout_seconds;
}

// Rank r's part: connect, then run the body in its world. An exception the body lets out
// becomes the rank's error instead of ending the process.
Maybe<void> RunRank(ProcessGroup* world, gloo::rendezvous::Store& store,
                    const std::function<void(int rank)>& body) {
  const WorldSpec& spec = world->spec;
  if (spec.world_size == 1) {
    world->cpu = std::make_unique<GlooCommunicator>(nullptr, 0, 1, TimeoutOf(spec));
  } else {
    OFLITE_ASSIGN_OR_RETURN(world->cpu, ConnectMesh(spec, store, "threads."));
  }
  SetThreadWorld(world);
  Maybe<void> result = Ok();
  try {
    body(spec.rank);
  } catch (const std::exception& e) {
    result = OFLITE_ERROR(RuntimeError)
             << "dist::RunThreadRanks: rank " << spec.rank << " threw: " << e.what();
  } catch (...) {
    result = OFLITE_ERROR(RuntimeError)
             << "dist::RunThreadRanks: rank " << spec.rank << " threw a non-standard exception";
  }
  SetThreadWorld(nullptr);
  return result;
}

}  // namespace

Maybe<void> RunThreadRanks(int size, const std::function<void(int rank)>& body) {
  OFLITE_CHECK_OR_RETURN(size >= 1 && size <= 1024, ValueError)
      << "dist::RunThreadRanks: size must be in 1..1024, got " << size;
  OFLITE_CHECK_OR_RETURN(ThreadWorld() == nullptr, RuntimeError)
      << "dist::RunThreadRanks: called from a thread rank (thread ranks do not nest)";
  double timeout_seconds = 0;
  OFLITE_ASSIGN_OR_RETURN(timeout_seconds, EnvTimeout());
  // The process-wide settings first, before any rank's thread can read them.
  PrepareNcclEnvironment();
  if (size > 1) {
    IgnoreSigpipeUnlessHandled();
  }
  std::vector<ProcessGroup> worlds(static_cast<size_t>(size));
  std::vector<Maybe<void>> results(static_cast<size_t>(size), Maybe<void>(Ok()));
  for (int r = 0; r < size; ++r) {
    WorldSpec& spec = worlds[static_cast<size_t>(r)].spec;
    spec.rank = spec.local_rank = r;
    spec.world_size = spec.local_world_size = size;
    spec.timeout_seconds = timeout_seconds;
    spec.source = "threads";
  }
  MemoryStore store(TimeoutOf(worlds[0].spec));
  std::vector<std::thread> threads;
  Maybe<void> started = Ok();
  try {
    for (int r = 0; r < size; ++r) {
      threads.emplace_back([&, r] {
        results[static_cast<size_t>(r)] = RunRank(&worlds[static_cast<size_t>(r)], store, body);
      });
    }
  } catch (const std::exception& e) {  // the ranks started meet the timeout at their mesh
    started = OFLITE_ERROR(RuntimeError) << "dist::RunThreadRanks: could not start rank "
                                         << threads.size() << " of " << size << ": " << e.what();
  }
  for (std::thread& t : threads) {
    t.join();
  }
  // The communicators go once no rank can use them any more (NCCL's before Gloo's).
  for (ProcessGroup& world : worlds) {
    world.cuda.reset();
  }
  OFLITE_JUST(started);
  for (const Maybe<void>& result : results) {
    OFLITE_JUST(result);
  }
  return Ok();
}

bool IsThreadRank() { return ThreadWorld() != nullptr; }

}  // namespace dist
}  // namespace oflite
