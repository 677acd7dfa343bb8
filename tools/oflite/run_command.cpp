// `oflite run FUNCTION --in X.npy ... --arg NAME=VALUE ... --out Y.npy`
#include <iostream>

#include "tools/oflite/commands.h"
#include "tools/oflite/function_table.h"
#include "tools/oflite/npy.h"

namespace oflite {
namespace cli {

namespace {
Maybe<void> Run(const RunOptions& options) {
  const FunctionEntry* function = nullptr;
  OFLITE_ASSIGN_OR_RETURN(function, FindFunction(options.function));
  OFLITE_CHECK_OR_RETURN(options.inputs.size() == function->tensors.size(), ValueError)
      << function->name << ": takes " << function->tensors.size() << " tensor(s) via --in, got "
      << options.inputs.size();
  AttrMap args;
  OFLITE_ASSIGN_OR_RETURN(args, ParseArgs(*function, options.args));
  Device device;
  OFLITE_ASSIGN_OR_RETURN(device, Device::Parse(options.device));
  std::vector<Tensor> inputs;
  for (const std::string& path : options.inputs) {
    Tensor input;
    OFLITE_ASSIGN_OR_RETURN(input, npy::Load(path, device));
    inputs.push_back(input);
  }
  Tensor output;
  OFLITE_ASSIGN_OR_RETURN(output, function->call(inputs, args));
  return npy::Save(options.output, output, options.bfloat16_bits);
}
}  // namespace

int RunCommand(const RunOptions& options) {
  const Maybe<void> result = Run(options);
  return result.ok() ? 0 : ReportError(result.error());
}

}  // namespace cli
}  // namespace oflite
