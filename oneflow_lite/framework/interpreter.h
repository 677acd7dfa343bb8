// The eager interpreter: Dispatch(op_type, inputs, attrs) checks the call against the op's
// schema, infers and allocates the outputs on the inputs' device, picks the kernel whose
// predicate holds and runs it on the device's stream.
#ifndef ONEFLOW_LITE_FRAMEWORK_INTERPRETER_H_
#define ONEFLOW_LITE_FRAMEWORK_INTERPRETER_H_

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/op_schema.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {

// The input tensors of a call, not owned: `{x, y}` at a call site (the list lives until the
// call returns) or a vector. A parameter type only: a TensorArgs variable made from a braced
// list would outlive the list.
class TensorArgs {
 public:
  TensorArgs() = default;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"  // safe as a parameter, see above
#endif
  TensorArgs(std::initializer_list<Tensor> list)  // NOLINT
      : data_(list.begin()), size_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  TensorArgs(const std::vector<Tensor>& list)  // NOLINT
      : data_(list.data()), size_(list.size()) {}

  const Tensor* begin() const { return data_; }
  const Tensor* end() const { return data_ + size_; }
  const Tensor& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  const Tensor* data_ = nullptr;
  size_t size_ = 0;
};

// The first call with a signature (op, device, input shapes and dtypes, attrs as given) checks
// the attrs, infers the outputs and picks the kernel; later calls with it on the same thread
// reuse all of that (oneflow_lite/framework/call_cache.h) and only allocate and launch.
Maybe<std::vector<Tensor>> Dispatch(const std::string& op_type, TensorArgs inputs,
                                    const AttrMap& attrs = {});
// For ops with exactly one output.
Maybe<Tensor> DispatchOne(const std::string& op_type, TensorArgs inputs, const AttrMap& attrs = {});
// Into outputs the caller made (PyTorch's out=): one per op output, each of the shape and dtype
// the op infers, on the inputs' device, overlapping no input and no other output; else
// ValueError, TypeError or NotImplemented naming the output.
Maybe<void> DispatchInto(const std::string& op_type, TensorArgs inputs,
                         const std::vector<Tensor>& outputs, const AttrMap& attrs = {});

// A fixed sequence of ops run as one call, e.g. transpose, softmax, transpose: the steps are
// worked out once per signature like one op's, and each call then pays one cache lookup for
// all of them. `build` returns the steps for the call's input descs and attrs.
struct CompositeStep {
  std::string op_type;
  AttrMap attrs;
  // Where each input comes from: 0 .. n-1 the call's inputs, then each earlier step's output.
  std::vector<size_t> args;
};
struct Composite {
  std::string name;  // for errors
  std::function<Maybe<std::vector<CompositeStep>>(const std::vector<TensorDesc>& inputs,
                                                  const AttrMap& attrs)>
      build;
};
// Runs `composite` (kept alive by the caller for the process, e.g. a static) and returns the
// last step's output; every step must have one output.
Maybe<Tensor> DispatchComposite(const Composite& composite, TensorArgs inputs,
                                const AttrMap& attrs = {});

// One dispatched call: the op as called, where it ran, and which kernel and primitives served it.
struct DispatchRecord {
  std::string op_type;
  AttrMap attrs;  // completed with the defaults
  Device device;
  std::string kernel;
  std::vector<std::string> primitives;
};

// While alive, records every dispatch on this thread (the most recently created live trace
// gets the records).
class DispatchTrace {
 public:
  DispatchTrace();
  DispatchTrace(const DispatchTrace&) = delete;
  DispatchTrace& operator=(const DispatchTrace&) = delete;
  ~DispatchTrace();

  const std::vector<DispatchRecord>& records() const { return records_; }
  void Add(DispatchRecord record) { records_.push_back(std::move(record)); }

 private:
  std::vector<DispatchRecord> records_;
};

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_INTERPRETER_H_
