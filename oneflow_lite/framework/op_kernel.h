// OpKernel: computes one op on one device type by building and launching primitives.
// Kernels register per op with a predicate saying which (device, dtypes, attrs) they serve:
//
//   OFLITE_REGISTER_KERNEL(kSoftmaxOp, SoftmaxKernel);   // SoftmaxKernel::IsMatched(ctx)
#ifndef ONEFLOW_LITE_FRAMEWORK_OP_KERNEL_H_
#define ONEFLOW_LITE_FRAMEWORK_OP_KERNEL_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/snapshot_cell.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/op_schema.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {

namespace ep {
class Stream;
}

// What a match predicate sees: the device type and the dtypes of inputs and outputs.
struct KernelMatchContext {
  DeviceType device_type;
  std::vector<DataType> input_dtypes;
  std::vector<DataType> output_dtypes;
  const AttrMap* attrs;
};

class KernelComputeContext {
 public:
  KernelComputeContext(const OpSchema* schema, const std::vector<Tensor>* inputs,
                       std::vector<Tensor>* outputs, const AttrMap* attrs, ep::Stream* stream)
      : schema_(schema), inputs_(inputs), outputs_(outputs), attrs_(attrs), stream_(stream) {}

  const Tensor& Input(const std::string& name) const;
  const Tensor& Output(const std::string& name) const;
  // By position in the schema's order, for kernels shared by ops with different arg names.
  const Tensor& InputAt(size_t i) const { return inputs_->at(i); }
  const Tensor& OutputAt(size_t i) const { return outputs_->at(i); }
  const AttrMap& attrs() const { return *attrs_; }
  ep::Stream* stream() const { return stream_; }
  DeviceType device_type() const;

  // Kernels report the primitive that did the work; traces and the demo show it.
  void NotePrimitive(const std::string& name) { primitives_.push_back(name); }
  const std::vector<std::string>& primitives() const { return primitives_; }

 private:
  const OpSchema* schema_;
  const std::vector<Tensor>* inputs_;
  std::vector<Tensor>* outputs_;
  const AttrMap* attrs_;
  ep::Stream* stream_;
  std::vector<std::string> primitives_;
};

class OpKernel {
 public:
  OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;
  virtual ~OpKernel() = default;

  virtual Maybe<void> Compute(KernelComputeContext* ctx) const = 0;
};

struct KernelRegistration {
  std::string op_type;
  std::string name;  // the kernel class, e.g. "SoftmaxKernel"
  std::function<bool(const KernelMatchContext&)> is_matched;
  std::shared_ptr<const OpKernel> kernel;  // kernels are stateless: one instance serves all calls
};

class KernelRegistry {
 public:
  static KernelRegistry& Global();

  // Kernels may be added to any op, an op library's to built-in ops too; a second kernel of
  // the same name for the same op is reported (ReportDuplicateRegistration) and not registered.
  void Register(KernelRegistration registration);
  // Takes out every kernel `owner` registered (an op library that failed to load).
  void RemoveOwnedBy(const std::string& owner);
  // The first registered kernel of op_type whose predicate holds; nullptr when none. Reads take
  // no lock and are safe while a library loads (oneflow_lite/common/snapshot_cell.h); what they
  // return stays valid after later changes.
  const KernelRegistration* Find(const std::string& op_type, const KernelMatchContext& ctx) const;
  const std::vector<KernelRegistration>& KernelsOf(const std::string& op_type) const;
  // Dtypes served on a device type, probing each with every input of that dtype (outputs as
  // the op infers them, with default attrs).
  std::vector<DataType> ServedDataTypes(const KernelRegistration& kernel, DeviceType device_type,
                                        const OpSchema& schema) const;

 private:
  struct OpKernels {
    std::vector<KernelRegistration> kernels;
    // Who registered each kernel (oneflow_lite/common/registration_owner.h), index for index.
    std::vector<std::string> owners;
  };
  using Table = std::map<std::string, std::shared_ptr<const OpKernels>>;
  SnapshotCell<Table> table_;
};

}  // namespace oflite

#define OFLITE_REGISTER_KERNEL(op_type, KernelClass)                                        \
  static const bool OFLITE_CONCAT(oflite_kernel_registered_, __LINE__) = [] {               \
    ::oflite::KernelRegistry::Global().Register(                                            \
        {op_type, #KernelClass, &KernelClass::IsMatched, std::make_shared<KernelClass>()}); \
    return true;                                                                            \
  }()

#endif  // ONEFLOW_LITE_FRAMEWORK_OP_KERNEL_H_
