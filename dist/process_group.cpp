// The world process group: joining through a Gloo file store, the TCP mesh, the communicators.
#include "oneflow_lite/dist/process_group.h"

#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "dist/nccl_communicator.h"
#include "dist/world.h"

namespace oflite {
namespace dist {

namespace {

// Gloo's file store, whose waits (and the waits inside its reads) last the world's timeout
// rather than Gloo's default 30 s, and which tells whether one key is present yet.
class RendezvousStore final : public gloo::rendezvous::FileStore {
 public:
  RendezvousStore(const std::string& dir, std::chrono::milliseconds timeout)
      : FileStore(dir), timeout_(timeout) {}

  using FileStore::wait;
  void wait(const std::vector<std::string>& keys) override { FileStore::wait(keys, timeout_); }
  bool Has(const std::string& key) { return check({key}); }

 private:
  std::chrono::milliseconds timeout_;
};

std::mutex g_mutex;
std::unique_ptr<ProcessGroup> g_group;  // guarded by g_mutex
// Each Init of this process uses keys of its own in the store, so that a world joined again
// after Shutdown does not meet the first one's keys (every rank counts the same).
int g_generation = 0;

thread_local ProcessGroup* t_world = nullptr;

std::string JoinRecord(const WorldSpec& spec) {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::ostringstream out;
  out << spec.world_size << " " << getpid() << " " << host;
  return out.str();
}

// Writes this rank's join record, then waits until every rank has written one (with the same
// world size) or the timeout passes.
Maybe<void> Join(const WorldSpec& spec, const std::string& prefix, RendezvousStore* store) {
  const std::string where = "file:" + spec.rendezvous_dir;
  const std::string record = JoinRecord(spec);
  try {
    store->set(prefix + "join." + std::to_string(spec.rank),
               std::vector<char>(record.begin(), record.end()));
  } catch (const std::exception& e) {
    return OFLITE_ERROR(ValueError)
           << "dist::Init: RANK " << spec.rank << " has already joined the rendezvous " << where
           << " (two processes were given the same RANK, or the directory holds an earlier "
              "run's keys: use a fresh one): "
           << e.what();
  }
  std::set<int> pending;
  for (int r = 0; r < spec.world_size; ++r) {
    if (r != spec.rank) {
      pending.insert(r);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + TimeoutOf(spec);
  while (!pending.empty()) {
    for (auto it = pending.begin(); it != pending.end();) {
      const std::string key = prefix + "join." + std::to_string(*it);
      if (!store->Has(key)) {
        ++it;
        continue;
      }
      const std::vector<char> value = store->get(key);
      std::istringstream in(std::string(value.begin(), value.end()));
      int world_size = 0;
      long pid = 0;
      std::string host;
      in >> world_size >> pid >> host;
      OFLITE_CHECK_OR_RETURN(world_size == spec.world_size, ValueError)
          << "dist::Init: rank " << *it << " (pid " << pid << " on " << host
          << ") was started with WORLD_SIZE=" << world_size << ", this rank (" << spec.rank
          << ") with WORLD_SIZE=" << spec.world_size;
      it = pending.erase(it);
    }
    if (pending.empty()) {
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      std::ostringstream missing;
      for (int r : pending) {
        missing << (r == *pending.begin() ? "" : ", ") << r;
      }
      return OFLITE_ERROR(DeviceError)
             << "dist::Init: rank" << (pending.size() > 1 ? "s " : " ") << missing.str() << " of "
             << spec.world_size << " did not join the rendezvous " << where << " within the "
             << spec.timeout_seconds
             << " s timeout (not started, exited early, or given another OFLITE_RENDEZVOUS); "
                "this is rank "
             << spec.rank;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Ok();
}

Maybe<std::unique_ptr<ProcessGroup>> Connect(const WorldSpec& spec, int generation) {
  auto group = std::make_unique<ProcessGroup>();
  group->spec = spec;
  const auto timeout = TimeoutOf(spec);
  if (spec.world_size == 1) {
    group->cpu = std::make_unique<GlooCommunicator>(nullptr, 0, 1, timeout);
    return group;
  }
  IgnoreSigpipeUnlessHandled();
  std::error_code error;
  std::filesystem::create_directories(spec.rendezvous_dir, error);
  OFLITE_CHECK_OR_RETURN(std::filesystem::is_directory(spec.rendezvous_dir), ValueError)
      << "dist::Init: the rendezvous directory " << spec.rendezvous_dir
      << " (OFLITE_RENDEZVOUS) is not a directory and cannot be made"
      << (error ? ": " + error.message() : std::string());
  const std::string prefix = "oflite." + std::to_string(generation) + ".";
  try {
    RendezvousStore store(spec.rendezvous_dir, timeout);
    OFLITE_JUST(Join(spec, prefix, &store));
    OFLITE_ASSIGN_OR_RETURN(group->cpu, ConnectMesh(spec, store, prefix));
  } catch (const std::exception& e) {
    return OFLITE_ERROR(DeviceError)
           << "dist::Init: rank " << spec.rank << " of " << spec.world_size
           << " could not join the rendezvous file:" << spec.rendezvous_dir << ": " << e.what();
  }
  return group;
}

}  // namespace

std::chrono::milliseconds TimeoutOf(const WorldSpec& spec) {
  return std::chrono::milliseconds(static_cast<int64_t>(spec.timeout_seconds * 1000));
}

Maybe<std::unique_ptr<GlooCommunicator>> ConnectMesh(const WorldSpec& spec,
                                                     gloo::rendezvous::Store& store,
                                                     const std::string& prefix) {
  const auto timeout = TimeoutOf(spec);
  try {
    gloo::transport::tcp::attr attr;
    if (const char* iface = std::getenv("OFLITE_DIST_IFACE")) {
      attr.iface = iface;
    } else if (spec.local_world_size == spec.world_size) {
      attr.hostname = "127.0.0.1";  // every rank on this host: loopback
    } else {
      char host[256] = {};
      gethostname(host, sizeof(host) - 1);
      attr.hostname = host;
    }
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(spec.rank, spec.world_size);
    context->setTimeout(timeout);
    gloo::rendezvous::PrefixStore mesh_store(prefix + "mesh.", store);
    context->connectFullMesh(mesh_store, device);
    return std::make_unique<GlooCommunicator>(std::move(context), spec.rank, spec.world_size,
                                              timeout);
  } catch (const std::exception& e) {
    return OFLITE_ERROR(DeviceError)
           << "dist::Init: rank " << spec.rank << " of " << spec.world_size
           << " could not connect to its peers (timeout " << spec.timeout_seconds
           << " s): " << e.what();
  }
}

void IgnoreSigpipeUnlessHandled() {
  struct sigaction current = {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    std::signal(SIGPIPE, SIG_IGN);
  }
}

ProcessGroup* ThreadWorld() { return t_world; }
void SetThreadWorld(ProcessGroup* group) { t_world = group; }

Maybe<void> Init() {
  if (t_world != nullptr) {
    return Ok();  // a thread rank's world lasts as long as its RunThreadRanks
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_group != nullptr) {
    return Ok();
  }
  WorldSpec spec;
  OFLITE_ASSIGN_OR_RETURN(spec, ParseWorldSpec([](const char* name) { return std::getenv(name); }));
  OFLITE_ASSIGN_OR_RETURN(g_group, Connect(spec, g_generation++));
  return Ok();
}

bool IsInitialized() {
  if (t_world != nullptr) {
    return true;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_group != nullptr;
}

void Shutdown() {
  if (t_world != nullptr) {
    return;  // RunThreadRanks ends a thread rank's world
  }
  std::unique_ptr<ProcessGroup> group;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    group = std::move(g_group);
  }
  if (group == nullptr) {
    return;
  }
  group->cuda.reset();
  // A directory Init made up (mpirun without OFLITE_RENDEZVOUS): rank 0 removes it once every
  // rank is past its rendezvous, which the barrier shows (bounded by the timeout).
  if (group->spec.rendezvous_dir_is_generated && group->spec.rank == 0 &&
      group->cpu->Barrier().ok()) {
    std::error_code ignored;
    std::filesystem::remove_all(group->spec.rendezvous_dir, ignored);
  } else if (group->spec.rendezvous_dir_is_generated) {
    (void)group->cpu->Barrier();
  }
  group->cpu.reset();
}

namespace {

// One member of the calling thread's world spec, read in place (no copy of the spec's strings):
// its thread rank's, else the process's (a world of 1 before Init).
template <typename T>
T SpecMember(T WorldSpec::*member) {
  if (t_world != nullptr) {
    return t_world->spec.*member;
  }
  static const WorldSpec kAlone;
  std::lock_guard<std::mutex> lock(g_mutex);
  return (g_group != nullptr ? g_group->spec : kAlone).*member;
}

// The world's communicator for `device_type`, made on first use for CUDA.
Maybe<Communicator*> CommunicatorOf(ProcessGroup* group, DeviceType device_type) {
  switch (device_type) {
    case DeviceType::kCPU:
      return static_cast<Communicator*>(group->cpu.get());
    case DeviceType::kCUDA:
      if (group->cuda == nullptr) {
        OFLITE_ASSIGN_OR_RETURN(
            group->cuda,
            NewNcclCommunicator(group->cpu.get(), group->spec.local_rank, TimeoutOf(group->spec)));
      }
      return group->cuda.get();
  }
  return OFLITE_ERROR(ValueError) << "dist::GetCommunicator: device type "
                                  << static_cast<int>(device_type)
                                  << " is not a DeviceType (expected cpu or cuda)";
}

}  // namespace

int Rank() { return SpecMember(&WorldSpec::rank); }
int WorldSize() { return SpecMember(&WorldSpec::world_size); }
int LocalRank() { return SpecMember(&WorldSpec::local_rank); }
int LocalWorldSize() { return SpecMember(&WorldSpec::local_world_size); }
double TimeoutSeconds() { return SpecMember(&WorldSpec::timeout_seconds); }

Maybe<Communicator*> GetCommunicator(DeviceType device_type) {
  if (t_world != nullptr) {
    return CommunicatorOf(t_world, device_type);
  }
  OFLITE_JUST(Init());
  std::lock_guard<std::mutex> lock(g_mutex);
  OFLITE_CHECK_OR_RETURN(g_group != nullptr, RuntimeError)
      << "dist::GetCommunicator: the process group was shut down while being asked for";
  return CommunicatorOf(g_group.get(), device_type);
}

}  // namespace dist
}  // namespace oflite
