// The world process group: every process of a distributed run, as launched by `oflite launch`,
// torchrun or mpirun, joined once through a rendezvous, with one communicator per device type
// (Gloo over TCP for CPU memory, NCCL for CUDA memory). docs/DESIGN.md, "The dist layer".
#ifndef ONEFLOW_LITE_DIST_PROCESS_GROUP_H_
#define ONEFLOW_LITE_DIST_PROCESS_GROUP_H_

#include <functional>
#include <string>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/dist/communicator.h"

namespace oflite {
namespace dist {

// Seconds a join or a collective waits for its peers when OFLITE_DIST_TIMEOUT is unset.
constexpr double kDefaultTimeoutSeconds = 60;

// Where this process stands in the world, as the environment says.
struct WorldSpec {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;        // picks the GPU of this rank (one GPU per rank)
  int local_world_size = 1;  // ranks on this host; all of them: peers meet over loopback
  // The directory of the rendezvous' file store (every rank must see it); empty for a world of 1.
  std::string rendezvous_dir;
  // True when Init made the directory up (mpirun without OFLITE_RENDEZVOUS): rank 0 removes it
  // at Shutdown.
  bool rendezvous_dir_is_generated = false;
  double timeout_seconds = kDefaultTimeoutSeconds;
  // Which variables gave rank and size: "RANK", "OMPI_COMM_WORLD_RANK" or "" (none: a world of 1).
  std::string source;
};

// Reads the world from variables looked up with `getenv` (std::getenv in Init):
//   RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE (torchrun, `oflite launch`); without RANK,
//   OpenMPI's OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE (mpirun); neither: a world of
//   1. LOCAL_RANK defaults to RANK and LOCAL_WORLD_SIZE to WORLD_SIZE (one host).
//   OFLITE_RENDEZVOUS=file:DIR, a directory every rank sees (made if absent), required when the
//   world has more than one rank; under mpirun without it, TMPDIR (or /tmp) holds one named after
//   the job (PMIX_NAMESPACE or OMPI_MCA_ess_base_jobid). MASTER_ADDR alone is not enough: the
//   Gloo that Debian ships has no TCP store.
//   OFLITE_DIST_TIMEOUT: seconds, > 0 (default kDefaultTimeoutSeconds).
// ValueError naming the variable, what was expected and what it held.
Maybe<WorldSpec> ParseWorldSpec(const std::function<const char*(const char*)>& getenv);

// Joins the world the environment describes (ParseWorldSpec): every rank waits for the others
// at the rendezvous, at most the timeout, then connects to each over TCP. Idempotent: once
// joined, later calls return at once. A world of 1 needs no rendezvous and starts nothing.
// Errors: ValueError for a bad environment or ranks that disagree (WORLD_SIZE, a RANK taken
// twice); DeviceError naming the ranks that did not join within the timeout, or the connection
// that failed.
Maybe<void> Init();
bool IsInitialized();
// Leaves the world: destroys the communicators (pointers from GetCommunicator dangle after it;
// global tensors made on them refuse further collectives with a RuntimeError);
// never waits on peers longer than the timeout. Init may be called again afterwards (every rank
// must then do the same).
void Shutdown();

// This process' place once initialized; before Init (or after Shutdown): 0, 1, 0, 1.
int Rank();
int WorldSize();
int LocalRank();
int LocalWorldSize();
// The timeout joins and collectives use, in seconds (kDefaultTimeoutSeconds before Init).
double TimeoutSeconds();

// The world's communicator for memory of `device_type` (Init first when not yet done): Gloo for
// kCPU; NCCL for kCUDA, made on the first call (every rank must make this call; its unique id
// travels through the CPU communicator), on GPU LOCAL_RANK. NotImplemented for CUDA in a build
// without NCCL; DeviceError when no GPU LOCAL_RANK is visible or NCCL fails. The communicator
// lives until Shutdown.
Maybe<Communicator*> GetCommunicator(DeviceType device_type);

// One process driving several GPUs: runs body(rank) on `size` threads, each a rank of a world
// of its own, and returns when all have returned. In thread r this header's functions answer for
// that world: Rank() r, WorldSize() and LocalWorldSize() `size`, LocalRank() r (its GPU is
// cuda:r), GetCommunicator gives the world's (Gloo over loopback for CPU memory, NCCL for CUDA
// memory, made on the first call as above), Init does nothing and Shutdown leaves the world,
// which ends with RunThreadRanks; global tensors made in the thread use it (kept past it, their
// shards stay readable and re-sharding them is a RuntimeError). The timeout is
// OFLITE_DIST_TIMEOUT's; launcher variables around the process play no part. Errors: ValueError for
// a size outside 1..1024, RuntimeError when called from a thread rank, when a thread could not
// start or a body threw (the first rank's, by rank), DeviceError when a rank could not connect to
// the others (its body does not run; the others' collectives then fail within the timeout).
Maybe<void> RunThreadRanks(int size, const std::function<void(int rank)>& body);
// Whether the calling thread is a rank of RunThreadRanks.
bool IsThreadRank();

}  // namespace dist
}  // namespace oflite

#endif  // ONEFLOW_LITE_DIST_PROCESS_GROUP_H_
