// The `oflite` subcommands. Each returns the process exit status: 0 success, 1 a failed call
// (the error printed to stderr), 2 a usage error.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_COMMANDS_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_COMMANDS_H_

#include <string>
#include <vector>

#include "oneflow_lite/common/error.h"
#include "tools/oflite/function_table.h"
#include "tools/oflite/optest_runner.h"

namespace oflite {
namespace cli {

struct RunOptions {
  std::string function;
  std::vector<std::string> inputs;
  std::vector<std::string> args;
  std::string device = "cpu";
  std::string output;
  bool bfloat16_bits = false;
  int nproc = 0;                  // > 1: on global tensors across that many ranks
  std::vector<std::string> sbps;  // NAME=SBP per input under --nproc; B where not given
  bool verbose = false;           // under --nproc: the signatures and boxing steps
  bool threads = false;           // under --nproc: ranks are threads of this process
};

struct BenchOptions {
  std::string function;  // a functional call's name, or "copy" (device-to-device memcpy)
  std::string shape;     // "R,C[,...]"
  std::string dtype = "float32";
  std::vector<std::string> args;
  std::string device;  // default: cuda:0 when a GPU is visible, else cpu
  int warmup = 10;
  int reps = 50;
  bool json = false;
  std::string sweep;          // "softmax": the rows=49152 sweep (docs/BENCHMARKS.md)
  std::string impl = "auto";  // softmax implementation: auto, warp, smem, uncached
  bool overhead = false;      // host time per call on tiny tensors (bench_overhead.h)
  int64_t calls = 20000;      // calls per --overhead run
  bool global = false;        // boxing and parallel matmuls across ranks (bench_global.h)
  int nproc = 0;              // ranks for --global
  bool threads = false;       // the ranks are threads of this process
};

// `oflite optest`: see optest_command.cpp.
struct OptestOptions {
  std::vector<std::string> ops;
  std::string device;  // "cpu" or "cuda"; empty: cpu, and cuda when a GPU is visible
  std::vector<std::string> dtypes;
  int64_t cases = optest::kDefaultCases;
  uint64_t seed = 0;
  int64_t case_index = -1;  // -1: every case
  std::string json;         // report file; empty: none
  bool list = false;
  int nproc = 0;         // > 1: prove SBP signatures on that many ranks (ranks.h)
  bool threads = false;  // the ranks are threads of this process
};

// `oflite launch`: see launch_command.cpp.
struct LaunchOptions {
  int nproc = 0;
  double timeout = 0;  // seconds; 0: the ranks' OFLITE_DIST_TIMEOUT, else its default
  double grace = -1;   // seconds the others get after a rank fails; < 0: the timeout + 5
  std::vector<std::string> command;  // PROGRAM ARGS...
};

// What `run` calls, from its options alone (no file is read): ValueError for an unknown
// function, a wrong number of inputs, a bad argument or device.
struct RunCall {
  const FunctionEntry* function = nullptr;
  AttrMap args;
  Device device;
};
Maybe<RunCall> ParseRunOptions(const RunOptions& options);
// The optest runner's options from the command line's; ValueError for a bad value.
Maybe<optest::Options> ParseOptestOptions(const OptestOptions& options);

int OpsCommand(bool json);
int BenchCommand(const BenchOptions& options);
int RunCommand(const RunOptions& options);
// `run --nproc N` (run_global.cpp).
int RunOnRanks(const RunOptions& options);
int DemoCommand();
int OptestCommand(const OptestOptions& options);
int LaunchCommand(const LaunchOptions& options);

// Prints "oflite: <Kind>: <message>" to stderr and returns 1.
int ReportError(const Error& error);

}  // namespace cli
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_COMMANDS_H_
