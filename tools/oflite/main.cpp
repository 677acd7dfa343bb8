// oflite: list ops, run functional calls on .npy files, benchmark, test ops, show the demo.
#include <glog/logging.h>

#include "oneflow_lite/framework/op_library.h"
#include "tools/oflite/command_line.h"
#include "tools/oflite/ranks.h"

namespace {

int RunCommand(const std::string& name, const oflite::cli::CommandLineOptions& options) {
  using namespace oflite::cli;  // NOLINT: the subcommands
  for (const std::string& path : options.op_libraries) {
    const oflite::Maybe<void> loaded = oflite::LoadOpLibrary(path);
    if (!loaded.ok()) {
      return ReportError(loaded.error());
    }
  }
  if (name == "ops") {
    return OpsCommand(options.ops_json);
  }
  if (name == "run") {
    return oflite::cli::RunCommand(options.run);
  }
  if (name == "demo") {
    return DemoCommand();
  }
  if (name == "bench") {
    return BenchCommand(options.bench);
  }
  if (name == "optest") {
    return OptestCommand(options.optest);
  }
  if (name == "launch") {
    return LaunchCommand(options.launch);
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  oflite::cli::SetSelfCommand(argc, argv);
  oflite::cli::CommandLineOptions options;
  const std::unique_ptr<CLI::App> app = oflite::cli::MakeCommandLine(&options);
  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app->exit(e);
  } catch (const CLI::ParseError& e) {
    app->exit(e);
    return 2;  // usage errors exit 2, whatever CLI11's own code for them is
  }
  // Library calls report failures as Maybe errors; this catches what the standard library
  // itself may throw (std::bad_alloc for a host buffer, ...) so nothing ends in an abort.
  try {
    return RunCommand(oflite::cli::ChosenSubcommand(*app), options);
  } catch (const std::exception& e) {
    return oflite::cli::ReportError(oflite::Error(oflite::ErrorKind::kRuntimeError, e.what()));
  }
}
