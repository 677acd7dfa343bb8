#include "oneflow_lite/framework/interpreter.h"

#include <algorithm>
#include <array>
#include <optional>

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/call_cache.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/primitive/launch_notes.h"

namespace oflite {

namespace {
// Live traces of this thread, innermost last. A trace removes itself wherever it stands, so
// traces destroyed out of order (e.g. one held in a reassigned unique_ptr) leave no dangling
// pointer behind.
thread_local std::vector<DispatchTrace*> live_traces;

// The most values (inputs plus step outputs) a composite call holds at once.
constexpr size_t kMaxCompositeValues = 16;

// What every call checks before the cache: the cache keys on shapes and dtypes, not on these.
Maybe<void> CheckInputs(const std::string& call, const std::vector<std::string>* names,
                        TensorArgs inputs) {
  const auto name = [&](size_t i) {
    return names != nullptr ? "'" + (*names)[i] + "'" : "input " + std::to_string(i);
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    OFLITE_CHECK_OR_RETURN(inputs[i].defined(), ValueError)
        << call << ": input " << name(i) << " is an undefined tensor";
    OFLITE_CHECK_OR_RETURN(inputs[i].is_contiguous(), NotImplemented)
        << call << ": input " << name(i) << " is not contiguous";
    OFLITE_CHECK_OR_RETURN(inputs[i].device() == inputs[0].device(), ValueError)
        << call << ": expected all inputs on one device, but " << name(0) << " is on "
        << inputs[0].device() << " and " << name(i) << " on " << inputs[i].device();
  }
  // Ops without inputs would need a device attribute; every op so far has inputs.
  OFLITE_CHECK_OR_RETURN(!inputs.empty(), NotImplemented) << call << ": calls without inputs";
  return Ok();
}

std::string DescribeKernels(const OpSchema& schema) {
  std::string text;
  for (const KernelRegistration& kernel : KernelRegistry::Global().KernelsOf(schema.name())) {
    for (DeviceType device_type : kAllDeviceTypes) {
      std::vector<DataType> dtypes =
          KernelRegistry::Global().ServedDataTypes(kernel, device_type, schema);
      if (dtypes.empty()) {
        continue;
      }
      text += (text.empty() ? "" : "; ") + std::string(DeviceTypeName(device_type)) + " [" +
              Join(dtypes) + "]";
    }
  }
  return text.empty() ? "none" : text;
}

std::vector<TensorDesc> Descs(TensorArgs inputs) {
  std::vector<TensorDesc> descs;
  for (const Tensor& t : inputs) {
    descs.push_back({t.shape(), t.dtype()});
  }
  return descs;
}

// Checks attrs, infers the outputs, picks the kernel and makes its instance: everything a
// signature needs once.
Maybe<CachedStep> BuildStep(const OpSchema& schema, const std::vector<TensorDesc>& inputs,
                            const AttrMap& given_attrs, const Device& device) {
  OFLITE_CHECK_OR_RETURN(inputs.size() == schema.inputs().size(), ValueError)
      << schema.name() << ": expected " << schema.inputs().size() << " input(s), got "
      << inputs.size();
  CachedStep step;
  step.schema = &schema;
  OFLITE_ASSIGN_OR_RETURN(step.attrs, schema.CompleteAttrs(given_attrs));
  OFLITE_ASSIGN_OR_RETURN(step.outputs, schema.InferOutputs(inputs, step.attrs));
  KernelMatchContext match{device.type(), {}, {}, &step.attrs};
  for (const TensorDesc& d : inputs) {
    match.input_dtypes.push_back(d.dtype);
  }
  for (const TensorDesc& d : step.outputs) {
    match.output_dtypes.push_back(d.dtype);
  }
  const KernelRegistration* kernel = KernelRegistry::Global().Find(schema.name(), match);
  if (kernel == nullptr) {
    return OFLITE_ERROR(NotImplemented)
           << schema.name() << ": no kernel for device " << device << " with input dtype(s) ("
           << Join(match.input_dtypes) << "); kernels exist for: " << DescribeKernels(schema);
  }
  step.kernel_name = kernel->name;
  step.kernel = kernel->create();
  OFLITE_JUST(step.kernel->Init(match));
  return step;
}

std::shared_ptr<CallEntry> NewEntry(const void* callee, TensorArgs inputs, const AttrMap& attrs) {
  auto entry = std::make_shared<CallEntry>();
  entry->callee = callee;
  entry->device = inputs[0].device();
  entry->inputs = Descs(inputs);
  entry->given_attrs = attrs;
  return entry;
}

// The device is looked up after the kernels: a call no kernel serves says so first.
Maybe<std::shared_ptr<const CallEntry>> Finish(std::shared_ptr<CallEntry> entry) {
  OFLITE_ASSIGN_OR_RETURN(entry->ep_device, ep::GetDevice(entry->device));
  return std::shared_ptr<const CallEntry>(std::move(entry));
}

Maybe<std::shared_ptr<const CallEntry>> BuildOpEntry(const OpSchema& schema, TensorArgs inputs,
                                                     const AttrMap& attrs) {
  std::shared_ptr<CallEntry> entry = NewEntry(&schema, inputs, attrs);
  CachedStep step;
  OFLITE_ASSIGN_OR_RETURN(step, BuildStep(schema, entry->inputs, attrs, entry->device));
  for (size_t i = 0; i < inputs.size(); ++i) {
    step.args.push_back(i);
  }
  entry->steps.push_back(std::move(step));
  return Finish(std::move(entry));
}

Maybe<std::shared_ptr<const CallEntry>> BuildCompositeEntry(const Composite& composite,
                                                            TensorArgs inputs,
                                                            const AttrMap& attrs) {
  std::shared_ptr<CallEntry> entry = NewEntry(&composite, inputs, attrs);
  std::vector<CompositeStep> plan;
  OFLITE_ASSIGN_OR_RETURN(plan, composite.build(entry->inputs, attrs));
  OFLITE_CHECK_OR_RETURN(!plan.empty() && inputs.size() + plan.size() <= kMaxCompositeValues,
                         NotImplemented)
      << composite.name << ": a composite runs 1 to " << kMaxCompositeValues - inputs.size()
      << " steps here, got " << plan.size();
  std::vector<TensorDesc> values = entry->inputs;
  for (CompositeStep& planned : plan) {
    const OpSchema* schema = nullptr;
    OFLITE_ASSIGN_OR_RETURN(schema, OpRegistry::Global().Find(planned.op_type));
    std::vector<TensorDesc> step_inputs;
    for (size_t arg : planned.args) {
      OFLITE_CHECK_OR_RETURN(arg < values.size(), ValueError)
          << composite.name << ": step " << planned.op_type << " reads value " << arg
          << ", which is not made yet";
      step_inputs.push_back(values[arg]);
    }
    CachedStep step;
    OFLITE_ASSIGN_OR_RETURN(step, BuildStep(*schema, step_inputs, planned.attrs, entry->device));
    OFLITE_CHECK_OR_RETURN(step.outputs.size() == 1, NotImplemented)
        << composite.name << ": step " << planned.op_type << " has " << step.outputs.size()
        << " outputs; composite steps have one";
    step.args = std::move(planned.args);
    values.push_back(step.outputs[0]);
    entry->steps.push_back(std::move(step));
  }
  return Finish(std::move(entry));
}

// The entry for this call, from the cache or built and cached now.
template <typename Callee, typename Build>
Maybe<std::shared_ptr<const CallEntry>> LookUp(const Callee* callee, TensorArgs inputs,
                                               const AttrMap& attrs, Build build) {
  const CallSignature signature{callee, inputs[0].device(), inputs.begin(), inputs.size(), &attrs};
  const size_t hash = signature.Hash();
  CallCache& cache = CallCache::ThisThread();
  std::shared_ptr<const CallEntry> entry = cache.Find(signature, hash);
  if (entry == nullptr) {
    OFLITE_ASSIGN_OR_RETURN(entry, build(*callee, inputs, attrs));
    cache.Insert(hash, entry);
  }
  return entry;
}

// Runs a step's kernel on inputs gathered in order, into outputs allocated here unless the
// caller gave them.
Maybe<void> RunStep(const CallEntry& entry, const CachedStep& step, const Tensor* inputs,
                    Tensor* outputs, bool outputs_given = false) {
  ep::Stream* stream = entry.ep_device->stream();
  for (size_t i = 0; i < step.outputs.size() && !outputs_given; ++i) {
    OFLITE_ASSIGN_OR_RETURN(
        outputs[i], Tensor::Empty(step.outputs[i].shape, step.outputs[i].dtype, entry.ep_device));
  }
  const bool tracing = !live_traces.empty();
  KernelComputeContext ctx(step.schema, inputs, outputs, &step.attrs, stream, tracing);
  std::optional<primitive::LaunchNotes> notes;  // what the kernel's launches choose, when traced
  if (tracing) {
    notes.emplace();
  }
  const Maybe<void> computed = step.kernel->Compute(&ctx);
  // Memory of another stream used here goes back to its allocator only after this work.
  for (size_t i = 0; i < step.schema->inputs().size(); ++i) {
    inputs[i].storage()->RecordStream(stream);
  }
  for (size_t i = 0; i < step.outputs.size() && outputs_given; ++i) {
    outputs[i].storage()->RecordStream(stream);
  }
  OFLITE_JUST(computed);
  if (tracing) {
    live_traces.back()->Add(
        {step.schema->name(), step.attrs, entry.device, step.kernel_name, ctx.primitives()});
  }
  return Ok();
}

// Whether the bytes of a and b overlap.
bool Overlap(const Tensor& a, const Tensor& b) {
  const auto* a0 = static_cast<const char*>(a.data());
  const auto* b0 = static_cast<const char*>(b.data());
  return a.nbytes() > 0 && b.nbytes() > 0 && a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes();
}

// Outputs a caller gave must be what the op makes, where it makes it, apart from the inputs
// (kernels do not compute in place) and from each other. Tensors are always contiguous.
Maybe<void> CheckGivenOutputs(const CallEntry& entry, const CachedStep& step, TensorArgs inputs,
                              const Tensor* outputs) {
  const std::string& op = step.schema->name();
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    const std::string name = "output '" + step.schema->outputs()[i] + "'";
    const Tensor& out = outputs[i];
    OFLITE_CHECK_OR_RETURN(out.defined(), ValueError) << op << ": " << name << " is undefined";
    OFLITE_CHECK_OR_RETURN(out.shape() == step.outputs[i].shape, ValueError)
        << op << ": " << name << " must have shape " << step.outputs[i].shape << ", got "
        << out.shape();
    OFLITE_CHECK_OR_RETURN(out.dtype() == step.outputs[i].dtype, TypeError)
        << op << ": " << name << " must be " << step.outputs[i].dtype << ", got " << out.dtype();
    OFLITE_CHECK_OR_RETURN(out.device() == entry.device, ValueError)
        << op << ": " << name << " must be on " << entry.device << ", got " << out.device();
    for (const Tensor& other : inputs) {
      OFLITE_CHECK_OR_RETURN(!Overlap(out, other), NotImplemented)
          << op << ": " << name << " overlaps an input (ops do not compute in place)";
    }
    for (size_t j = 0; j < i; ++j) {
      OFLITE_CHECK_OR_RETURN(!Overlap(out, outputs[j]), ValueError)
          << op << ": " << name << " overlaps output '" << step.schema->outputs()[j] << "'";
    }
  }
  return Ok();
}

// One op's call; outputs holds as many tensors as the op has outputs, allocated here unless
// outputs_given.
Maybe<void> DispatchOp(const std::string& op_type, TensorArgs inputs, const AttrMap& attrs,
                       Tensor* outputs, size_t num_outputs, bool outputs_given = false) {
  const OpSchema* schema = nullptr;
  OFLITE_ASSIGN_OR_RETURN(schema, OpRegistry::Global().Find(op_type));
  OFLITE_CHECK_OR_RETURN(inputs.size() == schema->inputs().size(), ValueError)
      << op_type << ": expected " << schema->inputs().size() << " input(s), got " << inputs.size();
  OFLITE_CHECK_OR_RETURN(num_outputs == schema->outputs().size(), ValueError)
      << op_type << ": has " << schema->outputs().size() << " outputs; "
      << (outputs_given ? "got " + std::to_string(num_outputs) + " to write into"
                        : std::string("use Dispatch, not DispatchOne"));
  OFLITE_JUST(CheckInputs(op_type, &schema->inputs(), inputs));
  std::shared_ptr<const CallEntry> entry;
  OFLITE_ASSIGN_OR_RETURN(entry, LookUp(schema, inputs, attrs, BuildOpEntry));
  if (outputs_given) {
    OFLITE_JUST(CheckGivenOutputs(*entry, entry->steps[0], inputs, outputs));
  }
  OFLITE_JUST(RunStep(*entry, entry->steps[0], inputs.begin(), outputs, outputs_given));
  return Ok();
}
}  // namespace

DispatchTrace::DispatchTrace() { live_traces.push_back(this); }
DispatchTrace::~DispatchTrace() {
  live_traces.erase(std::find(live_traces.begin(), live_traces.end(), this));
}

Maybe<std::vector<Tensor>> Dispatch(const std::string& op_type, TensorArgs inputs,
                                    const AttrMap& attrs) {
  const OpSchema* schema = nullptr;
  OFLITE_ASSIGN_OR_RETURN(schema, OpRegistry::Global().Find(op_type));
  std::vector<Tensor> outputs(schema->outputs().size());
  OFLITE_JUST(DispatchOp(op_type, inputs, attrs, outputs.data(), outputs.size()));
  return outputs;
}

Maybe<void> DispatchInto(const std::string& op_type, TensorArgs inputs,
                         const std::vector<Tensor>& outputs, const AttrMap& attrs) {
  std::vector<Tensor> given = outputs;  // handles, not data: the kernel writes the caller's
  return DispatchOp(op_type, inputs, attrs, given.data(), given.size(), true);
}

Maybe<Tensor> DispatchOne(const std::string& op_type, TensorArgs inputs, const AttrMap& attrs) {
  Tensor output;
  OFLITE_JUST(DispatchOp(op_type, inputs, attrs, &output, 1));
  return output;
}

Maybe<Tensor> DispatchComposite(const Composite& composite, TensorArgs inputs,
                                const AttrMap& attrs) {
  OFLITE_JUST(CheckInputs(composite.name, nullptr, inputs));
  std::shared_ptr<const CallEntry> entry;
  OFLITE_ASSIGN_OR_RETURN(entry, LookUp(&composite, inputs, attrs, BuildCompositeEntry));
  std::array<Tensor, kMaxCompositeValues> values;
  std::copy(inputs.begin(), inputs.end(), values.begin());
  std::array<Tensor, kMaxCompositeValues> step_inputs;
  size_t next = inputs.size();
  for (const CachedStep& step : entry->steps) {
    for (size_t i = 0; i < step.args.size(); ++i) {
      step_inputs[i] = values[step.args[i]];
    }
    OFLITE_JUST(RunStep(*entry, step, step_inputs.data(), &values[next++]));
  }
  return values[next - 1];
}

}  // namespace oflite
