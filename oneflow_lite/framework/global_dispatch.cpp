#include "oneflow_lite/framework/global_dispatch.h"

#include <tuple>
#include <utility>

#include "oneflow_lite/dist/communicator.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/framework/op_registry.h"

namespace oflite {

namespace {

thread_local std::vector<GlobalTrace*> live_global_traces;

bool SbpFits(const Sbp& sbp, const Shape& shape) {
  return !sbp.is_split() || (sbp.axis() >= 0 && sbp.axis() < shape.rank());
}

// Whether `signature` names every argument of the op with an SBP that fits its shape.
bool IsValid(const OpSchema& schema, const SbpSignature& signature,
             const std::vector<TensorDesc>& inputs, const std::vector<TensorDesc>& outputs) {
  const auto fits = [&](const std::vector<std::string>& names,
                        const std::vector<TensorDesc>& descs) {
    for (size_t i = 0; i < names.size(); ++i) {
      auto it = signature.find(names[i]);
      if (it == signature.end() || i >= descs.size() || !SbpFits(it->second, descs[i].shape)) {
        return false;
      }
    }
    return true;
  };
  return fits(schema.inputs(), inputs) && fits(schema.outputs(), outputs);
}

int64_t Bytes(const TensorDesc& desc) {
  return desc.shape.elem_cnt() * static_cast<int64_t>(DataTypeSize(desc.dtype));
}

std::vector<std::string> ArgOrder(const OpSchema& schema) {
  std::vector<std::string> args = schema.inputs();
  args.insert(args.end(), schema.outputs().begin(), schema.outputs().end());
  return args;
}

std::string InputSbps(const OpSchema& schema, const std::vector<Sbp>& sbps) {
  std::string text;
  for (size_t i = 0; i < sbps.size() && i < schema.inputs().size(); ++i) {
    text += (text.empty() ? "" : " ") + schema.inputs()[i] + ":" + SbpToString(sbps[i]);
  }
  return text;
}

}  // namespace

Maybe<size_t> ChooseSbpSignature(const OpSchema& schema,
                                 const std::vector<SbpSignature>& signatures,
                                 const std::vector<TensorDesc>& inputs,
                                 const std::vector<Sbp>& input_sbps,
                                 const std::vector<TensorDesc>& outputs, int64_t world) {
  bool found = false;
  size_t best = 0;
  std::tuple<int64_t, int64_t> best_cost;  // (scaled bytes, inputs re-boxed)
  for (size_t s = 0; s < signatures.size(); ++s) {
    if (!IsValid(schema, signatures[s], inputs, outputs)) {
      continue;
    }
    int64_t cost = 0, steps = 0;
    bool makes_partial = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Sbp& to = signatures[s].at(schema.inputs()[i]);
      cost += ScaledBoxingCost(input_sbps[i], to, Bytes(inputs[i]), world);
      steps += input_sbps[i] != to;
      makes_partial = makes_partial || (to.is_partial_sum() && !input_sbps[i].is_partial_sum());
    }
    const std::tuple<int64_t, int64_t> total{cost, steps};
    if (makes_partial) {
      continue;
    }
    if (!found || total < best_cost) {  // strictly less: ties keep the earlier signature
      found = true;
      best = s;
      best_cost = total;
    }
  }
  OFLITE_CHECK_OR_RETURN(found, NotImplemented)
      << schema.name() << ": no SBP signature to run it on global inputs "
      << InputSbps(schema, input_sbps) << " (the op lists " << signatures.size()
      << " signature(s); none fits these shapes without making partial sums of an input that "
         "holds none)";
  return best;
}

Maybe<std::vector<GlobalTensor>> GlobalDispatch(const std::string& op_type,
                                                const std::vector<GlobalTensor>& inputs,
                                                const AttrMap& attrs) {
  const OpSchema* schema = nullptr;
  OFLITE_ASSIGN_OR_RETURN(schema, OpRegistry::Global().Find(op_type));
  OFLITE_CHECK_OR_RETURN(inputs.size() == schema->inputs().size(), ValueError)
      << op_type << ": expected " << schema->inputs().size() << " input(s), got " << inputs.size();
  OFLITE_CHECK_OR_RETURN(!inputs.empty(), NotImplemented) << op_type << ": calls without inputs";
  std::vector<TensorDesc> descs;
  std::vector<Sbp> sbps;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& name = schema->inputs()[i];
    OFLITE_CHECK_OR_RETURN(inputs[i].defined(), ValueError)
        << op_type << ": input '" << name << "' is an undefined global tensor";
    OFLITE_CHECK_OR_RETURN(inputs[i].placement() == inputs[0].placement() &&
                               inputs[i].communicator() == inputs[0].communicator(),
                           ValueError)
        << op_type << ": expected all inputs on one placement, but '" << schema->inputs()[0]
        << "' is on " << inputs[0].placement().ToString() << " and '" << name << "' on "
        << inputs[i].placement().ToString();
    descs.push_back({inputs[i].shape(), inputs[i].dtype()});
    sbps.push_back(inputs[i].sbp()[0]);
  }
  const Placement& placement = inputs[0].placement();
  dist::Communicator* communicator = nullptr;
  OFLITE_ASSIGN_OR_RETURN(communicator, inputs[0].LiveCommunicator(op_type.c_str()));
  const int64_t world = placement.size();

  AttrMap complete;
  OFLITE_ASSIGN_OR_RETURN(complete, schema->CompleteAttrs(attrs));
  std::vector<TensorDesc> outputs;
  OFLITE_ASSIGN_OR_RETURN(outputs, schema->InferOutputs(descs, complete));
  Maybe<std::vector<SbpSignature>> listed = schema->SbpSignatures(descs, complete);
  OFLITE_CHECK_OR_RETURN(listed.ok(), NotImplemented)
      << op_type << ": cannot run on global inputs " << InputSbps(*schema, sbps) << ": "
      << listed.error().message();
  const std::vector<SbpSignature>& signatures = listed.value();
  size_t chosen = 0;
  OFLITE_ASSIGN_OR_RETURN(chosen,
                          ChooseSbpSignature(*schema, signatures, descs, sbps, outputs, world));
  const SbpSignature& signature = signatures[chosen];

  GlobalCallRecord record{
      op_type, SbpSignatureToString(signature, ArgOrder(*schema)), signatures.size(), 0, {}};
  std::vector<Tensor> shards;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Sbp& to = signature.at(schema->inputs()[i]);
    Tensor shard;
    OFLITE_ASSIGN_OR_RETURN(shard,
                            BoxShard(inputs[i].local(), descs[i].shape, sbps[i], to, communicator));
    shards.push_back(std::move(shard));
    if (sbps[i] != to) {
      const int64_t bytes = BoxingBytes(sbps[i], to, Bytes(descs[i]), world);
      record.bytes += bytes;
      record.boxing.push_back({schema->inputs()[i], sbps[i], to, BoxingMethod(sbps[i], to), bytes});
    }
  }
  std::vector<Tensor> local_outputs;
  OFLITE_ASSIGN_OR_RETURN(local_outputs, Dispatch(op_type, shards, complete));
  std::vector<GlobalTensor> results;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = schema->outputs()[i];
    const Sbp& sbp = signature.at(name);
    const Shape expected = ShardShape(outputs[i].shape, sbp, world, communicator->rank());
    OFLITE_CHECK_OR_RETURN(local_outputs[i].shape() == expected, RuntimeError)
        << op_type << ": signature " << record.signature << " gave output '" << name
        << "' a shard of shape " << local_outputs[i].shape() << " on rank " << communicator->rank()
        << ", expected " << expected << " of the global " << outputs[i].shape;
    results.push_back(GlobalTensor::FromAgreedShard(std::move(local_outputs[i]), outputs[i].shape,
                                                    placement, {sbp}, communicator));
  }
  if (GlobalTrace* trace = GlobalTrace::Current()) {
    trace->Add(std::move(record));
  }
  return results;
}

Maybe<GlobalTensor> GlobalDispatchOne(const std::string& op_type,
                                      const std::vector<GlobalTensor>& inputs,
                                      const AttrMap& attrs) {
  std::vector<GlobalTensor> outputs;
  OFLITE_ASSIGN_OR_RETURN(outputs, GlobalDispatch(op_type, inputs, attrs));
  OFLITE_CHECK_OR_RETURN(outputs.size() == 1, ValueError)
      << op_type << ": has " << outputs.size() << " outputs; GlobalDispatchOne takes ops with one";
  return outputs[0];
}

std::string GlobalCallRecordToString(const GlobalCallRecord& record) {
  std::string text = record.call + ":";
  if (!record.signature.empty()) {
    text += " " + record.signature;
    text +=
        record.candidates > 0 ? " (of " + std::to_string(record.candidates) + " signatures)," : ",";
  }
  text += " boxing " + std::to_string(record.bytes) + " B:";
  if (record.boxing.empty()) {
    return text + " none";
  }
  for (size_t i = 0; i < record.boxing.size(); ++i) {
    text += (i == 0 ? " " : "; ") + BoxingRecordToString(record.boxing[i]);
  }
  return text;
}

GlobalTrace::GlobalTrace() { live_global_traces.push_back(this); }

GlobalTrace::~GlobalTrace() {
  for (auto it = live_global_traces.begin(); it != live_global_traces.end(); ++it) {
    if (*it == this) {
      live_global_traces.erase(it);
      break;
    }
  }
}

GlobalTrace* GlobalTrace::Current() {
  return live_global_traces.empty() ? nullptr : live_global_traces.back();
}

}  // namespace oflite
