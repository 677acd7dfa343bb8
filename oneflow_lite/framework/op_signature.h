// Op names and one-line op declarations, in the spirit of PyTorch's operator schemas:
//
//   "myns.rms_norm(Tensor x, Tensor weight, float eps=1e-6) -> Tensor y"
//
// A name is an identifier, or a namespace and an identifier joined by '.'. Built-in ops have
// no namespace; an op library's ops must have one, so they cannot collide with a built-in.
// Tensor parameters are the op's inputs, in order; every other parameter is an attribute whose
// type names its C++ type (table in docs/ADDING_AN_OP.md), with an optional default. The result
// is `Tensor [name]` or a parenthesized list of them (possibly empty); unnamed results are
// "out", or "out0", "out1", ... when there are several.
#ifndef ONEFLOW_LITE_FRAMEWORK_OP_SIGNATURE_H_
#define ONEFLOW_LITE_FRAMEWORK_OP_SIGNATURE_H_

#include <optional>
#include <string>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/framework/attr_map.h"

namespace oflite {

struct AttrDef {
  std::string name;
  AttrType type;
  std::optional<AttrValue> default_value;  // nullopt: the caller must give it
};

struct OpSignature {
  std::string name;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<AttrDef> attrs;
};

// ValueError naming the text, the position and what was expected when it does not parse.
Maybe<OpSignature> ParseOpSignature(const std::string& text);
// The text ParseOpSignature reads back into `signature` (a string default holding both quote
// characters is the one thing it cannot write).
std::string OpSignatureToString(const OpSignature& signature);

// ValueError unless `name` is "op" or "namespace.op" of identifiers ([A-Za-z_][A-Za-z0-9_]*).
Maybe<void> CheckOpName(const std::string& name);
// "myns" for "myns.rms_norm"; empty for "softmax".
std::string OpNamespace(const std::string& name);

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_OP_SIGNATURE_H_
