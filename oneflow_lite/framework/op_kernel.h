// OpKernel: computes one op on one device type by building and launching primitives.
// Kernels register per op with a predicate saying which (device, dtypes, attrs) they serve:
//
//   OFLITE_REGISTER_KERNEL(kSoftmaxOp, SoftmaxKernel);   // SoftmaxKernel::IsMatched(ctx)
//
// The interpreter makes one kernel instance per call signature (op, device, input shapes and
// dtypes, attributes) on each thread, calls Init once, and then only Compute: a kernel builds
// its primitives and reads its attributes in Init, not on every call.
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
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {

namespace ep {
class Stream;
}

// What a match predicate and Init see: the device type, the dtypes of inputs and outputs, and
// the op's complete attributes.
struct KernelMatchContext {
  DeviceType device_type;
  std::vector<DataType> input_dtypes;
  std::vector<DataType> output_dtypes;
  const AttrMap* attrs;
};

class KernelComputeContext {
 public:
  // inputs and outputs hold the schema's inputs and outputs in order; `tracing` says whether a
  // DispatchTrace wants the primitives' descriptions.
  KernelComputeContext(const OpSchema* schema, const Tensor* inputs, Tensor* outputs,
                       const AttrMap* attrs, ep::Stream* stream, bool tracing)
      : schema_(schema),
        inputs_(inputs),
        outputs_(outputs),
        attrs_(attrs),
        stream_(stream),
        tracing_(tracing) {}

  const Tensor& Input(const std::string& name) const;
  const Tensor& Output(const std::string& name) const;
  // By position in the schema's order, for kernels shared by ops with different arg names.
  const Tensor& InputAt(size_t i) const;
  const Tensor& OutputAt(size_t i) const;
  const AttrMap& attrs() const { return *attrs_; }
  ep::Stream* stream() const { return stream_; }
  DeviceType device_type() const;

  // Kernels report the primitives that did the work, after launching them; traces and the demo
  // show them, with what each launch chose (primitive/launch_notes.h).
  void NotePrimitive(const std::string& name) {
    if (tracing_) {
      primitives_.push_back(name);
    }
  }
  void NotePrimitive(const primitive::Primitive& primitive);
  bool tracing() const { return tracing_; }
  const std::vector<std::string>& primitives() const { return primitives_; }

 private:
  const OpSchema* schema_;
  const Tensor* inputs_;
  Tensor* outputs_;
  const AttrMap* attrs_;
  ep::Stream* stream_;
  bool tracing_;
  std::vector<std::string> primitives_;
};

class OpKernel {
 public:
  OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;
  virtual ~OpKernel() = default;

  // Once per instance, before its first Compute: build primitives, read attributes. An error
  // fails the call (and the next call with that signature tries again).
  virtual Maybe<void> Init(const KernelMatchContext& /*ctx*/) { return Ok(); }
  virtual Maybe<void> Compute(KernelComputeContext* ctx) const = 0;
};

struct KernelRegistration {
  std::string op_type;
  std::string name;  // the kernel class, e.g. "SoftmaxKernel"
  std::function<bool(const KernelMatchContext&)> is_matched;
  std::function<std::unique_ptr<OpKernel>()> create;  // a new instance per call signature
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

#define OFLITE_REGISTER_KERNEL(op_type, KernelClass)                              \
  static const bool OFLITE_CONCAT(oflite_kernel_registered_, __LINE__) = [] {     \
    ::oflite::KernelRegistry::Global().Register(                                  \
        {op_type, #KernelClass, &KernelClass::IsMatched,                          \
         [] { return std::unique_ptr<::oflite::OpKernel>(new KernelClass()); }}); \
    return true;                                                                  \
  }()

#endif  // ONEFLOW_LITE_FRAMEWORK_OP_KERNEL_H_
