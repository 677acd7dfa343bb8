#include "oneflow_lite/framework/op_schema.h"

#include <algorithm>

#include "oneflow_lite/common/check.h"
#include "oneflow_lite/common/join.h"

namespace oflite {

namespace {
size_t IndexOf(const std::vector<std::string>& names, const std::string& name,
               const std::string& op, const char* what) {
  auto it = std::find(names.begin(), names.end(), name);
  OFLITE_CHECK(it != names.end()) << "op " << op << " has no " << what << " named '" << name << "'";
  return static_cast<size_t>(it - names.begin());
}
}  // namespace

InferContext::InferContext(const OpSchema* schema, std::vector<TensorDesc> inputs,
                           const AttrMap* attrs)
    : schema_(schema),
      inputs_(std::move(inputs)),
      outputs_(schema->outputs().size()),
      attrs_(attrs) {}

const std::string& InferContext::op_type() const { return schema_->name(); }

const TensorDesc& InferContext::Input(const std::string& name) const {
  return inputs_[IndexOf(schema_->inputs(), name, op_type(), "input")];
}

TensorDesc* InferContext::MutOutput(const std::string& name) {
  return &outputs_[IndexOf(schema_->outputs(), name, op_type(), "output")];
}

const TensorDesc& InferContext::Output(const std::string& name) const {
  return outputs_[IndexOf(schema_->outputs(), name, op_type(), "output")];
}

std::vector<std::string> AttrNames(const std::vector<AttrDef>& defs) {
  std::vector<std::string> names;
  for (const AttrDef& def : defs) {
    names.push_back(def.name);
  }
  return names;
}

const AttrDef* FindAttrDef(const std::vector<AttrDef>& defs, const std::string& name) {
  auto it =
      std::find_if(defs.begin(), defs.end(), [&](const AttrDef& d) { return d.name == name; });
  return it == defs.end() ? nullptr : &*it;
}

namespace {
bool IsNumber(AttrType type) {
  return type == AttrType::kInt64 || type == AttrType::kFloat || type == AttrType::kDouble;
}
}  // namespace

Maybe<AttrMap> CompleteAttrs(const std::string& call, const std::vector<AttrDef>& defs,
                             const AttrMap& given) {
  AttrMap complete = given;
  for (const auto& [name, value] : given.values()) {
    const AttrDef* def = FindAttrDef(defs, name);
    OFLITE_CHECK_OR_RETURN(def != nullptr, ValueError)
        << call << ": unknown attribute '" << name
        << "' (attributes: " << (defs.empty() ? "none" : Join(AttrNames(defs))) << ")";
    if (value.type() == def->type) {
      continue;
    }
    // A number of another type is taken where it converts exactly (1 for a double, 0.5f for a
    // double, 2.0 for an int64).
    const std::optional<AttrValue> converted = ConvertNumberExactly(value, def->type);
    OFLITE_CHECK_OR_RETURN(converted.has_value(), TypeError)
        << call << ": attribute '" << name << "' must be " << AttrTypeName(def->type) << ", got "
        << AttrTypeName(value.type()) << " " << AttrValueToString(value)
        << (IsNumber(value.type()) && IsNumber(def->type) ? " (which does not convert exactly)"
                                                          : "");
    complete.Set(name, *converted);
  }
  for (const AttrDef& def : defs) {
    if (complete.Has(def.name)) {
      continue;
    }
    OFLITE_CHECK_OR_RETURN(def.default_value.has_value(), ValueError)
        << call << ": required attribute '" << def.name << "' (" << AttrTypeName(def.type)
        << ") is missing";
    complete.Set(def.name, *def.default_value);
  }
  return complete;
}

Maybe<AttrMap> OpSchema::CompleteAttrs(const AttrMap& given) const {
  return oflite::CompleteAttrs(name_, attrs_, given);
}

Maybe<std::vector<TensorDesc>> OpSchema::InferOutputs(const std::vector<TensorDesc>& inputs,
                                                      const AttrMap& attrs) const {
  OFLITE_CHECK_OR_RETURN(inputs.size() == inputs_.size(), ValueError)
      << name_ << ": expected " << inputs_.size() << " input(s), got " << inputs.size();
  OFLITE_CHECK_OR_RETURN(infer_fn_ != nullptr, NotImplemented)
      << name_ << ": the op was registered without an inference function (SetInferFn)";
  InferContext ctx(this, inputs, &attrs);
  OFLITE_JUST(infer_fn_(&ctx));
  for (size_t i = 0; i < outputs_.size(); ++i) {
    OFLITE_JUST(ctx.outputs()[i].shape.Validate());
  }
  return ctx.outputs();
}

Maybe<std::vector<SbpSignature>> OpSchema::SbpSignatures(const std::vector<TensorDesc>& inputs,
                                                         const AttrMap& attrs) const {
  OFLITE_CHECK_OR_RETURN(sbp_fn_ != nullptr, NotImplemented)
      << name_ << ": the op was registered without SBP signatures (SetSbpFn)";
  std::vector<TensorDesc> outputs;
  OFLITE_ASSIGN_OR_RETURN(outputs, InferOutputs(inputs, attrs));
  InferContext ctx(this, inputs, &attrs);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    *ctx.MutOutput(outputs_[i]) = outputs[i];
  }
  return sbp_fn_(ctx);
}

OpSchemaBuilder::OpSchemaBuilder(const std::string& name_or_signature)
    : schema_(name_or_signature) {
  if (name_or_signature.find('(') == std::string::npos) {
    return;
  }
  Maybe<OpSignature> signature = ParseOpSignature(name_or_signature);
  if (!signature.ok()) {
    error_ = signature.error().message();
    return;
  }
  schema_.name_ = signature.value().name;
  schema_.inputs_ = std::move(signature.value().inputs);
  schema_.outputs_ = std::move(signature.value().outputs);
  schema_.attrs_ = std::move(signature.value().attrs);
}

std::string OpSchema::Signature() const {
  return OpSignatureToString({name_, inputs_, outputs_, attrs_});
}

OpSchemaBuilder& OpSchemaBuilder::Input(const std::string& name) {
  schema_.inputs_.push_back(name);
  return *this;
}

OpSchemaBuilder& OpSchemaBuilder::Output(const std::string& name) {
  schema_.outputs_.push_back(name);
  return *this;
}

OpSchemaBuilder& OpSchemaBuilder::SetInferFn(InferFn fn) {
  schema_.infer_fn_ = std::move(fn);
  return *this;
}

OpSchemaBuilder& OpSchemaBuilder::SetSbpFn(SbpFn fn) {
  schema_.sbp_fn_ = std::move(fn);
  return *this;
}

InferFn InferSameAsInput(const std::string& input, const std::string& output) {
  return [input, output](InferContext* ctx) -> Maybe<void> {
    *ctx->MutOutput(output) = ctx->Input(input);
    return Ok();
  };
}

std::vector<BroadcastSplit> BroadcastSplits(const Shape& a, const Shape& b, int64_t num_axes) {
  const int64_t rank = std::max(a.rank(), b.rank());
  std::vector<BroadcastSplit> splits;
  for (int64_t i = 0; i < num_axes; ++i) {
    const int64_t ai = i - (rank - a.rank()), bi = i - (rank - b.rank());
    const int64_t da = ai >= 0 ? a[ai] : 1, db = bi >= 0 ? b[bi] : 1;
    const int64_t d = da == 1 ? db : da;
    if (d != 1) {
      splits.push_back(
          {da == d ? SplitSbp(ai) : BroadcastSbp(), db == d ? SplitSbp(bi) : BroadcastSbp(), i});
    }
  }
  return splits;
}

}  // namespace oflite
