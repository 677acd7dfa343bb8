// `oflite optest`: runs the op-level harness (optest_runner.h) and shows what it found.
//
// stdout: one line per op/device/dtype group ("PASS softmax cpu float32: 4 cases, ..."), each
// failure under its group with the seed and the command that reruns exactly that case, then
// the closing line "N passed, N failed" counting groups (an op without a spec is one failed
// group). stderr: a progress line, rewritten in place, when stderr is a terminal.
// --json FILE writes the whole report (optest_report.h). --list shows, per op, the devices
// with kernels, the dtypes tested and the number of SBP signatures of a first float case.
//
// Exit status: 0 every group passed, 1 a failure (or an error writing the report), 2 a usage
// error (an unknown op, dtype or device, a device that is not visible, --cases out of range).
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/dist/process_group.h"
#include "oneflow_lite/ep/device.h"
#include "tools/oflite/commands.h"
#include "tools/oflite/output_file.h"
#include "tools/oflite/ranks.h"

namespace oflite {
namespace cli {

namespace {

// A status line on stderr, rewritten in place; silent when stderr is not a terminal.
class ProgressLine {
 public:
  ProgressLine() : enabled_(isatty(STDERR_FILENO) != 0) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { Clear(); }

  void Show(const std::string& text) {
    if (enabled_) {
      std::cout.flush();  // lines already printed go before the status line
      std::cerr << "\r\033[K" << text << std::flush;
      shown_ = true;
    }
  }
  void Clear() {
    if (shown_) {
      std::cerr << "\r\033[K" << std::flush;
      shown_ = false;
    }
  }

 private:
  bool enabled_;
  bool shown_ = false;
};

// "softmax  devices=cpu,cuda  dtypes=float32,float16  sbp=3", or "relu  devices=cpu  untested".
void PrintList(const std::vector<optest::ListEntry>& entries) {
  for (const optest::ListEntry& e : entries) {
    std::vector<std::string> devices;
    for (DeviceType type : e.devices) {
      devices.push_back(DeviceTypeName(type));
    }
    std::cout << e.op << "  devices=" << (devices.empty() ? "-" : Join(devices, ","));
    if (!e.has_spec) {
      std::cout << "  untested\n";
      continue;
    }
    std::cout << "  dtypes=" << (e.dtypes.empty() ? "-" : Join(e.dtypes, ","))
              << "  sbp=" << (e.sbp_signatures < 0 ? "-" : std::to_string(e.sbp_signatures))
              << "\n";
  }
}

Maybe<void> WriteJson(const std::string& path, const optest::Report& report) {
  const std::string json = optest::ReportToJson(report);
  const Maybe<void> written = WriteOutputFile(path, {json});
  if (!written.ok()) {  // the writer's kind: ValueError for a bad path, RuntimeError for I/O
    return Error(written.error().kind(), "optest: --json: " + written.error().message());
  }
  return Ok();
}

// `show`: print the groups, the progress line and the closing line (one rank of several
// prints; every rank reaches the same verdict).
int RunAndPrint(const optest::Options& options, const std::string& json_path, bool show = true) {
  ProgressLine progress;
  optest::Callbacks callbacks;
  if (show) {
    callbacks.progress = [&](const std::string& what) { progress.Show("optest: " + what); };
    callbacks.group_done = [&](const optest::Group& group) {
      progress.Clear();
      std::cout << optest::GroupLines(group, options.seed);
    };
  }
  const Maybe<optest::Report> report = optest::Run(options, callbacks);
  progress.Clear();
  if (!report.ok()) {
    return ReportError(report.error());
  }
  if (!show) {
    return report.value().failed() > 0 ? 1 : 0;
  }
  if (!json_path.empty()) {
    const Maybe<void> written = WriteJson(json_path, report.value());
    if (!written.ok()) {
      return ReportError(written.error());
    }
  }
  std::cout << optest::ClosingLine(report.value()) << std::endl;
  return report.value().failed() > 0 ? 1 : 0;
}

}  // namespace

Maybe<optest::Options> ParseOptestOptions(const OptestOptions& cli) {
  optest::Options options;
  options.ops = cli.ops;
  if (!cli.device.empty()) {
    Device device;
    OFLITE_ASSIGN_OR_RETURN(device, Device::Parse(cli.device));
    options.devices.push_back(device.type());
  }
  for (const std::string& name : cli.dtypes) {
    DataType dtype = DataType::kFloat32;
    OFLITE_ASSIGN_OR_RETURN(dtype, ParseDataType(name));
    options.dtypes.push_back(dtype);
  }
  options.cases = cli.cases;
  options.seed = cli.seed;
  if (cli.case_index >= 0) {
    options.case_index = cli.case_index;
  }
  OFLITE_JUST(optest::ValidateOptions(options));
  return options;
}

int OptestCommand(const OptestOptions& cli) {
  Maybe<optest::Options> options = ParseOptestOptions(cli);
  const Maybe<void> threads =
      CheckThreadsOption(cli.threads, cli.nproc > 1 && !cli.list, "--nproc N > 1 (and no --list)");
  if (!threads.ok()) {
    options = threads.error();
  }
  if (!options.ok()) {
    ReportError(options.error());
    return 2;
  }
  if (cli.nproc > 1 && !cli.list) {
    if (!IsRank()) {
      return LaunchSelf(cli.nproc, cli.threads, [&] { return OptestCommand(cli); });
    }
    // Pieces travel between ranks as host values, whatever device runs them.
    Maybe<dist::Communicator*> ranks = JoinRanks(cli.nproc, DeviceType::kCPU);
    if (!ranks.ok()) {
      return ReportError(ranks.error());
    }
    optest::Options on_ranks = options.value();
    on_ranks.communicator = ranks.value();
    on_ranks.cuda_index = dist::LocalRank();  // one GPU a rank
    // CUDA groups run only where every rank has its GPU, decided alike on every rank.
    const bool asked_cuda = std::find(on_ranks.devices.begin(), on_ranks.devices.end(),
                                      DeviceType::kCUDA) != on_ranks.devices.end();
    const Maybe<bool> gpus =
        EveryRank(ranks.value(), ep::DeviceCount(DeviceType::kCUDA) > on_ranks.cuda_index);
    if (!gpus.ok()) {
      return ReportError(gpus.error());
    }
    if (!gpus.value() && asked_cuda) {
      return ReportError(Error(ErrorKind::kDeviceError,
                               "optest --nproc " + std::to_string(cli.nproc) +
                                   " --device cuda: some rank has no GPU of its LOCAL_RANK "
                                   "(one GPU a rank)"));
    }
    if (!gpus.value() && on_ranks.devices.empty()) {
      on_ranks.devices = {DeviceType::kCPU};
    }
    const bool first = ranks.value()->rank() == 0;  // every rank reaches the same verdict
    return RunAndPrint(on_ranks, first ? cli.json : "", first);
  }
  if (cli.list) {
    const Maybe<std::vector<optest::ListEntry>> entries = optest::List(options.value());
    if (!entries.ok()) {
      return ReportError(entries.error());
    }
    PrintList(entries.value());
    return 0;
  }
  return RunAndPrint(options.value(), cli.json);
}

}  // namespace cli
}  // namespace oflite
