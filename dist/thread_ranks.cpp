// RunThreadRanks: one process driving several GPUs, a rank per thread. The ranks meet through an
// in-memory store and talk over loopback TCP (Gloo) for CPU memory, NCCL for CUDA memory.
#include <gloo/rendezvous/hash_store.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

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

}  // namespace

Maybe<void> RunThreadRanks(int size, const std::function<void(int rank)>& body) {
  OFLITE_CHECK_OR_RETURN(size >= 1 && size <= 1024, ValueError)
      << "dist::RunThreadRanks: size must be in 1..1024, got " << size;
  OFLITE_CHECK_OR_RETURN(ThreadWorld() == nullptr, RuntimeError)
      << "dist::RunThreadRanks: called from a thread rank (thread ranks do not nest)";
  double timeout_seconds = 0;
  OFLITE_ASSIGN_OR_RETURN(timeout_seconds, EnvTimeout());
  std::vector<ProcessGroup> worlds(static_cast<size_t>(size));
  std::vector<Maybe<void>> joined(static_cast<size_t>(size), Maybe<void>(Ok()));
  worlds[0].spec.timeout_seconds = timeout_seconds;
  MemoryStore store(TimeoutOf(worlds[0].spec));
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    ProcessGroup& world = worlds[static_cast<size_t>(r)];
    world.spec.rank = world.spec.local_rank = r;
    world.spec.world_size = world.spec.local_world_size = size;
    world.spec.timeout_seconds = timeout_seconds;
    world.spec.source = "threads";
    threads.emplace_back([&, r] {
      ProcessGroup& mine = worlds[static_cast<size_t>(r)];
      Maybe<std::unique_ptr<GlooCommunicator>> cpu =
          size == 1 ? Maybe<std::unique_ptr<GlooCommunicator>>(
                          std::make_unique<GlooCommunicator>(nullptr, 0, 1, TimeoutOf(mine.spec)))
                    : ConnectMesh(mine.spec, store, "threads.");
      if (!cpu.ok()) {
        joined[static_cast<size_t>(r)] = cpu.error();
        return;
      }
      mine.cpu = std::move(cpu).value();
      SetThreadWorld(&mine);
      body(r);
      SetThreadWorld(nullptr);
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  // The communicators go once no rank can use them any more (NCCL's before Gloo's).
  for (ProcessGroup& world : worlds) {
    world.cuda.reset();
  }
  for (const Maybe<void>& result : joined) {
    OFLITE_JUST(result);
  }
  return Ok();
}

bool IsThreadRank() { return ThreadWorld() != nullptr; }

}  // namespace dist
}  // namespace oflite
