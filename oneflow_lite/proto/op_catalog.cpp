#include "oneflow_lite/proto/op_catalog.h"

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/proto/attr_value_proto.h"

namespace oflite {

proto::OpDef OpDefOf(const OpSchema& schema) {
  proto::OpDef def;
  def.set_name(schema.name());
  for (const std::string& name : schema.inputs()) {
    def.add_input()->set_name(name);
  }
  for (const std::string& name : schema.outputs()) {
    def.add_output()->set_name(name);
  }
  for (const AttrDef& attr : schema.attrs()) {
    proto::AttrDef* out = def.add_attr();
    out->set_name(attr.name);
    out->set_type(AttrTypeName(attr.type));
    out->set_required(!attr.default_value.has_value());
    if (attr.default_value) {
      *out->mutable_default_value() = AttrValueToProto(*attr.default_value);
    }
  }
  return def;
}

proto::OpDefList OpCatalog() {
  proto::OpDefList list;
  const KernelRegistry& kernels = KernelRegistry::Global();
  for (const std::string& op_type : OpRegistry::Global().OpTypes()) {
    const OpSchema* schema = OpRegistry::Global().Find(op_type).value();
    proto::OpDef* def = list.add_op();
    *def = OpDefOf(*schema);
    for (const KernelRegistration& kernel : kernels.KernelsOf(op_type)) {
      for (DeviceType device_type : kAllDeviceTypes) {
        const std::vector<DataType> dtypes =
            ep::FindDeviceProvider(device_type) == nullptr
                ? std::vector<DataType>{}
                : kernels.ServedDataTypes(kernel, device_type, *schema);
        if (dtypes.empty()) {  // the kernel does not run on this device
          continue;
        }
        proto::KernelDef* kernel_def = def->add_kernel();
        kernel_def->set_name(kernel.name);
        kernel_def->set_device(DeviceTypeName(device_type));
        for (DataType dtype : dtypes) {
          kernel_def->add_data_type(static_cast<proto::DataType>(dtype));
        }
      }
    }
  }
  return list;
}

}  // namespace oflite
