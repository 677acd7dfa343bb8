#include "oneflow_lite/framework/op_kernel.h"

#include <algorithm>

#include "oneflow_lite/common/check.h"
#include "oneflow_lite/common/registration_owner.h"
#include "oneflow_lite/ep/stream.h"

namespace oflite {

namespace {
size_t ArgIndex(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  OFLITE_CHECK(it != names.end()) << "no argument named '" << name << "'";
  return static_cast<size_t>(it - names.begin());
}
}  // namespace

void KernelComputeContext::NotePrimitive(const primitive::Primitive& primitive) {
  if (!tracing_) {
    return;
  }
  primitive::LaunchNotes* notes = primitive::LaunchNotes::Current();
  primitives_.push_back(notes != nullptr ? notes->Describe(primitive) : primitive.name());
}

const Tensor& KernelComputeContext::Input(const std::string& name) const {
  return inputs_[ArgIndex(schema_->inputs(), name)];
}

const Tensor& KernelComputeContext::Output(const std::string& name) const {
  return outputs_[ArgIndex(schema_->outputs(), name)];
}

const Tensor& KernelComputeContext::InputAt(size_t i) const {
  OFLITE_CHECK(i < schema_->inputs().size()) << schema_->name() << ": no input " << i;
  return inputs_[i];
}

const Tensor& KernelComputeContext::OutputAt(size_t i) const {
  OFLITE_CHECK(i < schema_->outputs().size()) << schema_->name() << ": no output " << i;
  return outputs_[i];
}

DeviceType KernelComputeContext::device_type() const { return stream_->device_type(); }

KernelRegistry& KernelRegistry::Global() {
  static KernelRegistry registry;
  return registry;
}

void KernelRegistry::Register(KernelRegistration registration) {
  table_.Update([&](Table& table) {
    std::shared_ptr<const OpKernels>& slot = table[registration.op_type];
    OpKernels op_kernels = slot != nullptr ? *slot : OpKernels();
    for (size_t i = 0; i < op_kernels.kernels.size(); ++i) {
      if (op_kernels.kernels[i].name == registration.name) {
        ReportDuplicateRegistration(
            "kernel '" + registration.name + "' of op '" + registration.op_type + "'",
            op_kernels.owners[i]);
        return;
      }
    }
    op_kernels.kernels.push_back(std::move(registration));
    op_kernels.owners.push_back(CurrentRegistrationOwner());
    slot = std::make_shared<const OpKernels>(std::move(op_kernels));
  });
}

void KernelRegistry::RemoveOwnedBy(const std::string& owner) {
  table_.Update([&](Table& table) {
    for (auto& [op_type, slot] : table) {
      OpKernels kept;
      for (size_t i = 0; i < slot->kernels.size(); ++i) {
        if (slot->owners[i] != owner) {
          kept.kernels.push_back(slot->kernels[i]);
          kept.owners.push_back(slot->owners[i]);
        }
      }
      if (kept.kernels.size() != slot->kernels.size()) {
        slot = std::make_shared<const OpKernels>(std::move(kept));
      }
    }
  });
}

const KernelRegistration* KernelRegistry::Find(const std::string& op_type,
                                               const KernelMatchContext& ctx) const {
  for (const KernelRegistration& kernel : KernelsOf(op_type)) {
    if (kernel.is_matched(ctx)) {
      return &kernel;
    }
  }
  return nullptr;
}

const std::vector<KernelRegistration>& KernelRegistry::KernelsOf(const std::string& op_type) const {
  static const std::vector<KernelRegistration> none;
  const Table& table = table_.Read();
  auto it = table.find(op_type);
  return it == table.end() ? none : it->second->kernels;
}

std::vector<DataType> KernelRegistry::ServedDataTypes(const KernelRegistration& kernel,
                                                      DeviceType device_type,
                                                      const OpSchema& schema) const {
  // Default attrs where the op has them all; the output dtypes inference gives for a
  // one-element input (comparisons give bool), or the input dtype where inference needs more.
  const Maybe<AttrMap> defaults = schema.CompleteAttrs(AttrMap());
  const AttrMap attrs = defaults.ok() ? defaults.value() : AttrMap();
  std::vector<DataType> served;
  for (DataType dtype : AllDataTypes()) {
    KernelMatchContext ctx{device_type, std::vector<DataType>(schema.inputs().size(), dtype),
                           std::vector<DataType>(schema.outputs().size(), dtype), &attrs};
    if (defaults.ok()) {
      // A shape the op refuses (matmul wants rank 2) keeps the input dtype for the outputs.
      const std::vector<TensorDesc> inputs(schema.inputs().size(), TensorDesc{Shape{1}, dtype});
      const Maybe<std::vector<TensorDesc>> outputs = schema.InferOutputs(inputs, attrs);
      for (size_t i = 0; outputs.ok() && i < outputs.value().size(); ++i) {
        ctx.output_dtypes[i] = outputs.value()[i].dtype;
      }
    }
    if (kernel.is_matched(ctx)) {
      served.push_back(dtype);
    }
  }
  return served;
}

}  // namespace oflite
