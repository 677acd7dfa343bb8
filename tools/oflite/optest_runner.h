// The `oflite optest` runner: proves every op against its OpTestSpec (framework/op_test_spec.h)
// on every device with a kernel, for every dtype the spec and the device's kernels share.
//
// Per op, device, dtype and case (each case drawn from a seed that depends only on --seed, the
// op, the dtype and the case index, so cpu and cuda see the same case and `--case I`
// reproduces case I alone):
//   1. the call through Dispatch, compared with the spec's double-precision reference;
//   2. the shapes and dtypes OpSchema::InferOutputs gives, against the kernel's outputs and the
//      reference's;
//   3. every SBP signature the op lists for the case, with k = 2, 3 and 4 pieces (optest_sbp.h);
//   4. the spec's invalid calls, each of which must fail with its error kind (never succeed);
//   5. on cuda, where a cpu kernel serves the dtype, the cuda outputs against the cpu outputs.
// Callable as a library: tests register faulty ops and read the structured report.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_RUNNER_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_RUNNER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/dist/communicator.h"
#include "tools/oflite/optest_report.h"

namespace oflite {
namespace optest {

// Small enough that a CPU run of every op takes well under a minute on 2 cores.
constexpr int64_t kDefaultCases = 16;
// A bound on --cases: a mistyped count is a usage error, not a run of days.
constexpr int64_t kMaxCases = 1000000;
constexpr int64_t kSbpPieceCounts[] = {2, 3, 4};

struct Options {
  std::vector<std::string> ops;     // empty: every registered op (and every spec)
  std::vector<DeviceType> devices;  // empty: cpu, and cuda when a GPU is visible
  std::vector<DataType> dtypes;     // empty: every dtype of the spec a device's kernels serve
  int64_t cases = kDefaultCases;    // per op/device/dtype
  uint64_t seed = 0;
  std::optional<int64_t> case_index;  // run only this case (what a failure's command does)
  // Set on ranks of a distributed run (`oflite optest --nproc N`): SBP signatures are proven
  // with one piece a rank, gathered through this CPU communicator, instead of every piece here.
  dist::Communicator* communicator = nullptr;
  int cuda_index = 0;  // the GPU CUDA groups run on (a rank's LOCAL_RANK)
};

// Hooks for a live display; both optional.
struct Callbacks {
  std::function<void(const std::string& what)> progress;  // before each case
  std::function<void(const Group& group)> group_done;
};

// ValueError for an op neither registered nor specced, a negative case, or no cases;
// DeviceError for cuda asked for where none is visible.
Maybe<void> ValidateOptions(const Options& options);
Maybe<Report> Run(const Options& options, const Callbacks& callbacks = {});

// What `--list` shows of one op.
struct ListEntry {
  std::string op;
  bool has_spec = false;
  std::vector<DeviceType> devices;  // device types built in with a kernel for the op
  std::vector<DataType> dtypes;     // the spec's dtypes some listed device serves
  int64_t sbp_signatures = -1;      // for the case-0 case of the first floating dtype; -1: none
};
Maybe<std::vector<ListEntry>> List(const Options& options);

// The seed case `case_index` of (op, dtype) is drawn from: a hash of all four.
uint64_t CaseSeed(uint64_t seed, const std::string& op, DataType dtype, int64_t case_index);
// "oflite optest --op OP --device DEV --dtype DT --seed S --case I"
std::string ReproduceCommand(const std::string& op, DeviceType device, DataType dtype,
                             uint64_t seed, int64_t case_index);

}  // namespace optest
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_RUNNER_H_
