#include "oneflow_lite/framework/op_catalog.h"

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"

namespace oflite {

proto::OpDefList OpCatalog() {
  proto::OpDefList list;
  const KernelRegistry& kernels = KernelRegistry::Global();
  for (const std::string& op_type : OpRegistry::Global().OpTypes()) {
    const OpSchema* schema = OpRegistry::Global().Find(op_type).value();
    proto::OpDef* def = list.add_op();
    *def = schema->ToProto();
    for (const KernelRegistration& kernel : kernels.KernelsOf(op_type)) {
      for (DeviceType device_type : kAllDeviceTypes) {
        if (ep::FindDeviceProvider(device_type) == nullptr) {
          continue;
        }
        proto::KernelDef* kernel_def = def->add_kernel();
        kernel_def->set_name(kernel.name);
        kernel_def->set_device(DeviceTypeName(device_type));
        for (DataType dtype : kernels.ServedDataTypes(kernel, device_type, *schema)) {
          kernel_def->add_data_type(static_cast<proto::DataType>(dtype));
        }
      }
    }
  }
  return list;
}

}  // namespace oflite
