// The oflite command line: every subcommand and option, parsed into CommandLineOptions. main()
// runs what it names; the argument fuzzer (tests/fuzz) parses and checks it without running.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_COMMAND_LINE_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_COMMAND_LINE_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "tools/oflite/commands.h"

namespace oflite {
namespace cli {

struct CommandLineOptions {
  std::vector<std::string> op_libraries;  // --load, before any subcommand
  bool ops_json = false;
  RunOptions run;
  BenchOptions bench;
  OptestOptions optest;
  LaunchOptions launch;
};

// The CLI11 app, writing what it parses into *options (which must outlive it). Exactly one
// subcommand is required: "ops", "run", "demo", "bench", "optest" or "launch".
std::unique_ptr<CLI::App> MakeCommandLine(CommandLineOptions* options);

// The subcommand the parsed app names; empty when none.
std::string ChosenSubcommand(const CLI::App& app);

}  // namespace cli
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_COMMAND_LINE_H_
