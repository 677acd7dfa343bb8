// `oflite run FUNCTION --in X.npy ... --arg NAME=VALUE ... --out Y.npy`
#include <iostream>

#include "tools/oflite/commands.h"
#include "tools/oflite/function_table.h"
#include "tools/oflite/npy.h"
#include "tools/oflite/ranks.h"

namespace oflite {
namespace cli {

Maybe<RunCall> ParseRunOptions(const RunOptions& options) {
  RunCall call;
  OFLITE_ASSIGN_OR_RETURN(call.function, FindFunction(options.function));
  OFLITE_CHECK_OR_RETURN(options.inputs.size() == call.function->tensors.size(), ValueError)
      << call.function->name << ": takes " << call.function->tensors.size()
      << " tensor(s) via --in, got " << options.inputs.size();
  OFLITE_ASSIGN_OR_RETURN(call.args, ParseArgs(*call.function, options.args));
  OFLITE_ASSIGN_OR_RETURN(call.device, Device::Parse(options.device));
  return call;
}

namespace {
Maybe<void> Run(const RunOptions& options) {
  RunCall call;
  OFLITE_ASSIGN_OR_RETURN(call, ParseRunOptions(options));
  std::vector<Tensor> inputs;
  for (const std::string& path : options.inputs) {
    Tensor input;
    OFLITE_ASSIGN_OR_RETURN(input, npy::Load(path, call.device));
    inputs.push_back(input);
  }
  Tensor output;
  OFLITE_ASSIGN_OR_RETURN(output, call.function->call(inputs, call.args));
  return npy::Save(options.output, output, options.bfloat16_bits);
}
}  // namespace

int RunCommand(const RunOptions& options) {
  const Maybe<void> threads =
      CheckThreadsOption(options.threads, options.nproc > 1, "--nproc N > 1");
  if (!threads.ok()) {
    return ReportError(threads.error());
  }
  if (options.nproc > 1) {
    return RunOnRanks(options);
  }
  const Maybe<void> result = Run(options);
  return result.ok() ? 0 : ReportError(result.error());
}

}  // namespace cli
}  // namespace oflite
