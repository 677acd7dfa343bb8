// libFuzzer target: the oflite command line. An input is split at NUL bytes into arguments,
// parsed by the real CLI11 app, and what `run`, `bench` and `optest` would check before doing
// any work is checked too (function, arguments, device, dtype, shape, optest's options). Nothing
// runs: no file is read or written. Errors are expected; a crash or a sanitizer report is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "oneflow_lite/framework/attr_map.h"
#include "tools/oflite/command_line.h"

namespace {

using namespace oflite;  // NOLINT: a fuzz driver

void CheckBench(const cli::BenchOptions& bench) {
  (void)ParseDataType(bench.dtype);
  const Maybe<AttrValue> shape = ParseAttrValue(AttrType::kShape, bench.shape);
  if (shape.ok()) {
    (void)shape.value().TryGet<Shape>()->Validate();
  }
  const Maybe<const cli::FunctionEntry*> function = cli::FindFunction(bench.function);
  if (function.ok()) {
    (void)cli::ParseArgs(*function.value(), bench.args);
  }
}

void CheckParsed(const std::string& subcommand, const cli::CommandLineOptions& options) {
  if (subcommand == "run") {
    (void)cli::ParseRunOptions(options.run);
  } else if (subcommand == "bench") {
    CheckBench(options.bench);
  } else if (subcommand == "optest") {
    (void)cli::ParseOptestOptions(options.optest);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = {"oflite"};
  std::string current;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  args.push_back(current);
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  cli::CommandLineOptions options;
  const std::unique_ptr<CLI::App> app = cli::MakeCommandLine(&options);
  try {
    app->parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::Error&) {
    return 0;  // usage errors, --help: CLI11's answer, nothing of ours ran
  }
  CheckParsed(cli::ChosenSubcommand(*app), options);
  return 0;
}
