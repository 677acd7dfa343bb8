// oflite: list ops, run functional calls on .npy files, and show the demo.
#include <glog/logging.h>

#include <CLI/CLI.hpp>

#include "tools/oflite/commands.h"

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  CLI::App app{"oneflow_lite: an embeddable operator runtime"};
  app.require_subcommand(1);

  bool json = false;
  CLI::App* ops = app.add_subcommand("ops", "List every registered op with its kernels");
  ops->add_flag("--json", json, "Print the OpDefList as JSON");

  oflite::cli::RunOptions run_options;
  CLI::App* run = app.add_subcommand("run", "Call a functional API on .npy files");
  run->add_option("function", run_options.function, "snake_case name, e.g. softmax")->required();
  run->add_option("--in", run_options.inputs, "Input .npy file, in the call's order")->required();
  run->add_option("--arg", run_options.args, "NAME=VALUE argument (lists: 2,0,1)");
  run->add_option("--device", run_options.device, "cpu or cuda[:N]");
  run->add_option("--out", run_options.output, "Output .npy file")->required();
  run->add_flag("--bfloat16-bits", run_options.bfloat16_bits,
                "Write a bfloat16 result as its raw bits (uint16) instead of float32");

  CLI::App* demo = app.add_subcommand("demo", "Softmax and log_softmax end to end");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;  // usage errors exit 2, whatever CLI11's own code for them is
  }
  // Library calls report failures as Maybe errors; this catches what the standard library
  // itself may throw (std::bad_alloc for a host buffer, ...) so nothing ends in an abort.
  try {
    if (*ops) {
      return oflite::cli::OpsCommand(json);
    }
    if (*run) {
      return oflite::cli::RunCommand(run_options);
    }
    if (*demo) {
      return oflite::cli::DemoCommand();
    }
  } catch (const std::exception& e) {
    return oflite::cli::ReportError(oflite::Error(oflite::ErrorKind::kRuntimeError, e.what()));
  }
  return 2;
}
