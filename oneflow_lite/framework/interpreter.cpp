#include "oneflow_lite/framework/interpreter.h"

#include <algorithm>

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"

namespace oflite {

namespace {
// Live traces of this thread, innermost last. A trace removes itself wherever it stands, so
// traces destroyed out of order (e.g. one held in a reassigned unique_ptr) leave no dangling
// pointer behind.
thread_local std::vector<DispatchTrace*> live_traces;
thread_local std::vector<const ScopedOutputInit*> live_output_inits;

Maybe<void> CheckInputs(const OpSchema& schema, const std::vector<Tensor>& inputs) {
  OFLITE_CHECK_OR_RETURN(inputs.size() == schema.inputs().size(), ValueError)
      << schema.name() << ": expected " << schema.inputs().size() << " input(s), got "
      << inputs.size();
  for (size_t i = 0; i < inputs.size(); ++i) {
    OFLITE_CHECK_OR_RETURN(inputs[i].defined(), ValueError)
        << schema.name() << ": input '" << schema.inputs()[i] << "' is an undefined tensor";
    OFLITE_CHECK_OR_RETURN(inputs[i].is_contiguous(), NotImplemented)
        << schema.name() << ": input '" << schema.inputs()[i] << "' is not contiguous";
    OFLITE_CHECK_OR_RETURN(inputs[i].device() == inputs[0].device(), ValueError)
        << schema.name() << ": expected all inputs on one device, but '" << schema.inputs()[0]
        << "' is on " << inputs[0].device() << " and '" << schema.inputs()[i] << "' on "
        << inputs[i].device();
  }
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

proto::OpConf MakeOpConf(const OpSchema& schema, const AttrMap& attrs) {
  proto::OpConf conf;
  conf.set_op_type(schema.name());
  for (const std::string& name : schema.inputs()) {
    conf.add_input(name);
  }
  for (const std::string& name : schema.outputs()) {
    conf.add_output(name);
  }
  for (const auto& [name, value] : attrs.values()) {
    (*conf.mutable_attr())[name] = value;
  }
  return conf;
}
}  // namespace

ScopedOutputInit::ScopedOutputInit(Fn init) : init_(std::move(init)) {
  live_output_inits.push_back(this);
}

ScopedOutputInit::~ScopedOutputInit() {
  live_output_inits.erase(std::find(live_output_inits.begin(), live_output_inits.end(), this));
}

DispatchTrace::DispatchTrace() { live_traces.push_back(this); }
DispatchTrace::~DispatchTrace() {
  live_traces.erase(std::find(live_traces.begin(), live_traces.end(), this));
}

Maybe<std::vector<Tensor>> Dispatch(const std::string& op_type, const std::vector<Tensor>& inputs,
                                    const AttrMap& attrs) {
  const OpSchema* schema = nullptr;
  OFLITE_ASSIGN_OR_RETURN(schema, OpRegistry::Global().Find(op_type));
  OFLITE_JUST(CheckInputs(*schema, inputs));
  AttrMap complete_attrs;
  OFLITE_ASSIGN_OR_RETURN(complete_attrs, schema->CompleteAttrs(attrs));

  std::vector<TensorDesc> input_descs;
  for (const Tensor& t : inputs) {
    input_descs.push_back({t.shape(), t.dtype()});
  }
  std::vector<TensorDesc> output_descs;
  OFLITE_ASSIGN_OR_RETURN(output_descs, schema->InferOutputs(input_descs, complete_attrs));

  // Ops without inputs would need a device attribute; every op so far has inputs.
  OFLITE_CHECK_OR_RETURN(!inputs.empty(), NotImplemented) << op_type << ": ops without inputs";
  const Device device = inputs[0].device();
  KernelMatchContext match{device.type(), {}, {}, &complete_attrs};
  for (const TensorDesc& d : input_descs) {
    match.input_dtypes.push_back(d.dtype);
  }
  for (const TensorDesc& d : output_descs) {
    match.output_dtypes.push_back(d.dtype);
  }
  const KernelRegistration* kernel = KernelRegistry::Global().Find(op_type, match);
  if (kernel == nullptr) {
    return OFLITE_ERROR(NotImplemented)
           << op_type << ": no kernel for device " << device << " with input dtype(s) ("
           << Join(match.input_dtypes) << "); kernels exist for: " << DescribeKernels(*schema);
  }

  std::vector<Tensor> outputs;
  for (const TensorDesc& d : output_descs) {
    Tensor output;
    OFLITE_ASSIGN_OR_RETURN(output, Tensor::Empty(d.shape, d.dtype, device));
    if (!live_output_inits.empty()) {
      OFLITE_JUST((*live_output_inits.back())(output));
    }
    outputs.push_back(std::move(output));
  }
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(device));
  KernelComputeContext ctx(schema, &inputs, &outputs, &complete_attrs, ep_device->default_stream());
  OFLITE_JUST(kernel->kernel->Compute(&ctx));
  if (!live_traces.empty()) {
    live_traces.back()->Add(
        {MakeOpConf(*schema, complete_attrs), device, kernel->name, ctx.primitives()});
  }
  return outputs;
}

Maybe<Tensor> DispatchOne(const std::string& op_type, const std::vector<Tensor>& inputs,
                          const AttrMap& attrs) {
  std::vector<Tensor> outputs;
  OFLITE_ASSIGN_OR_RETURN(outputs, Dispatch(op_type, inputs, attrs));
  OFLITE_CHECK_OR_RETURN(outputs.size() == 1, ValueError)
      << op_type << ": has " << outputs.size() << " outputs; use Dispatch, not DispatchOne";
  return outputs[0];
}

}  // namespace oflite
