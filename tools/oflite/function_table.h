// The functional calls `oflite run` can make, by snake_case name, with their typed arguments.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_FUNCTION_TABLE_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_FUNCTION_TABLE_H_

#include <functional>
#include <string>
#include <vector>

#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/op_schema.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {
namespace cli {

struct FunctionEntry {
  std::string name;                  // "softmax"
  std::vector<std::string> tensors;  // tensor parameters, in call order
  std::vector<AttrDef> args;         // other parameters, typed as attributes
  std::function<Maybe<Tensor>(const std::vector<Tensor>&, const AttrMap&)> call;
};

const std::vector<FunctionEntry>& Functions();
// A function of the table, else any registered op by its type name (ops of op libraries reach
// `run` and `bench` so), with the op's own attrs as arguments. ValueError listing the known
// names when `name` is neither.
Maybe<const FunctionEntry*> FindFunction(const std::string& name);
// matmul's arguments (transpose_a, transpose_b, alpha) from completed args.
struct MatMulArgs {
  bool transpose_a = false;
  bool transpose_b = false;
  double alpha = 1;
};
Maybe<MatMulArgs> GetMatMulArgs(const AttrMap& args);
// Parses NAME=VALUE pairs by each argument's type and fills defaults; errors name the argument.
Maybe<AttrMap> ParseArgs(const FunctionEntry& function, const std::vector<std::string>& pairs);

}  // namespace cli
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_FUNCTION_TABLE_H_
