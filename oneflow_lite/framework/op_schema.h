// OpSchema: what the registry knows of an op — argument names, typed attributes with defaults,
// shape/dtype inference and SBP signatures — and the builder ops register with:
//
//   OFLITE_REGISTER_OP(kSoftmaxOp).Input(kX).Output(kY)
//       .SetInferFn(InferSameAsInput(kX, kY)).SetSbpFn(SplitNonLastAxesOrBroadcast);
#ifndef ONEFLOW_LITE_FRAMEWORK_OP_SCHEMA_H_
#define ONEFLOW_LITE_FRAMEWORK_OP_SCHEMA_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/op_signature.h"
#include "oneflow_lite/framework/sbp_builder.h"

namespace oflite {

struct TensorDesc {
  Shape shape;
  DataType dtype = DataType::kFloat32;
};

class OpSchema;

// What inference and SBP functions see: the op, its input descs, attrs, and (after inference)
// its output descs, all by argument name.
class InferContext {
 public:
  InferContext(const OpSchema* schema, std::vector<TensorDesc> inputs, const AttrMap* attrs);

  const std::string& op_type() const;
  const TensorDesc& Input(const std::string& name) const;
  TensorDesc* MutOutput(const std::string& name);
  const TensorDesc& Output(const std::string& name) const;
  const AttrMap& attrs() const { return *attrs_; }
  const std::vector<TensorDesc>& inputs() const { return inputs_; }
  const std::vector<TensorDesc>& outputs() const { return outputs_; }
  const OpSchema& schema() const { return *schema_; }

 private:
  const OpSchema* schema_;
  std::vector<TensorDesc> inputs_;
  std::vector<TensorDesc> outputs_;
  const AttrMap* attrs_;
};

using InferFn = std::function<Maybe<void>(InferContext* ctx)>;
using SbpFn = std::function<Maybe<std::vector<SbpSignature>>(const InferContext& ctx)>;

class OpSchema {
 public:
  explicit OpSchema(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  const std::vector<std::string>& inputs() const { return inputs_; }
  const std::vector<std::string>& outputs() const { return outputs_; }
  const std::vector<AttrDef>& attrs() const { return attrs_; }

  // Checks the given attrs against the declared ones (unknown name, wrong type, missing
  // required) and returns them completed with defaults.
  Maybe<AttrMap> CompleteAttrs(const AttrMap& given) const;
  // Output descs for these input descs; attrs must be complete.
  Maybe<std::vector<TensorDesc>> InferOutputs(const std::vector<TensorDesc>& inputs,
                                              const AttrMap& attrs) const;
  // Every valid SBP signature for these inputs; attrs must be complete.
  Maybe<std::vector<SbpSignature>> SbpSignatures(const std::vector<TensorDesc>& inputs,
                                                 const AttrMap& attrs) const;
  // "softmax(Tensor x, int64 dim=-1) -> Tensor y", as ParseOpSignature reads it.
  std::string Signature() const;

 private:
  friend class OpSchemaBuilder;
  std::string name_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::vector<AttrDef> attrs_;
  InferFn infer_fn_;
  SbpFn sbp_fn_;
};

// Starts from a name ("softmax", "myns.rms_norm") or a whole signature (op_signature.h); a
// signature that does not parse leaves error() set, and the registry refuses the op with it.
class OpSchemaBuilder {
 public:
  explicit OpSchemaBuilder(const std::string& name_or_signature);

  OpSchemaBuilder& Input(const std::string& name);
  OpSchemaBuilder& Output(const std::string& name);
  template <typename T>
  OpSchemaBuilder& Attr(const std::string& name);  // required
  template <typename T>
  OpSchemaBuilder& Attr(const std::string& name, const T& default_value);
  OpSchemaBuilder& SetInferFn(InferFn fn);
  OpSchemaBuilder& SetSbpFn(SbpFn fn);

  const OpSchema& schema() const { return schema_; }
  const std::string& error() const { return error_; }

 private:
  OpSchema schema_;
  std::string error_;
};

template <typename T>
OpSchemaBuilder& OpSchemaBuilder::Attr(const std::string& name) {
  schema_.attrs_.push_back({name, AttrTraits<T>::kType, std::nullopt});
  return *this;
}

template <typename T>
OpSchemaBuilder& OpSchemaBuilder::Attr(const std::string& name, const T& default_value) {
  schema_.attrs_.push_back({name, AttrTraits<T>::kType, AttrValue(default_value)});
  return *this;
}

std::vector<std::string> AttrNames(const std::vector<AttrDef>& defs);
const AttrDef* FindAttrDef(const std::vector<AttrDef>& defs, const std::string& name);
// Checks `given` against `defs` (unknown name: ValueError, wrong type: TypeError, required one
// missing: ValueError; messages start with `call`) and returns it completed with defaults.
Maybe<AttrMap> CompleteAttrs(const std::string& call, const std::vector<AttrDef>& defs,
                             const AttrMap& given);

// Common inference and SBP functions.
InferFn InferSameAsInput(const std::string& input, const std::string& output);

// Splits of two operands that broadcast (ranks aligned from the right) along the result's axes
// [0, num_axes): an operand with the axis at full size splits along its own axis, one that
// broadcasts there is whole (B); axes of size 1 are not split. Elementwise binary ops use every
// axis, matrix products their batch axes.
struct BroadcastSplit {
  Sbp a, b;
  int64_t axis;  // of the result
};
std::vector<BroadcastSplit> BroadcastSplits(const Shape& a, const Shape& b, int64_t num_axes);

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_OP_SCHEMA_H_
