// Call: any registered op by name, the entry that ops from op libraries are reached by.
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/functional/functional.h"

namespace oflite {
namespace functional {

Maybe<std::vector<Tensor>> Call(const std::string& op_type, const std::vector<Tensor>& inputs,
                                const AttrMap& attrs) {
  // Dispatch checks the name, the inputs and the attrs against the schema; passing its result
  // through adds this frame to an error's context.
  std::vector<Tensor> outputs;
  OFLITE_ASSIGN_OR_RETURN(outputs, Dispatch(op_type, inputs, attrs));
  return outputs;
}

}  // namespace functional
}  // namespace oflite
