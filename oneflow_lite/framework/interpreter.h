// The eager interpreter: Dispatch(op_type, inputs, attrs) checks the call against the op's
// schema, infers and allocates the outputs on the inputs' device, picks the kernel whose
// predicate holds and runs it on the device's stream.
#ifndef ONEFLOW_LITE_FRAMEWORK_INTERPRETER_H_
#define ONEFLOW_LITE_FRAMEWORK_INTERPRETER_H_

#include <functional>
#include <string>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/tensor.h"
#include "oneflow_lite/proto/op_conf.pb.h"

namespace oflite {

Maybe<std::vector<Tensor>> Dispatch(const std::string& op_type, const std::vector<Tensor>& inputs,
                                    const AttrMap& attrs = {});
// For ops with exactly one output.
Maybe<Tensor> DispatchOne(const std::string& op_type, const std::vector<Tensor>& inputs,
                          const AttrMap& attrs = {});

// One dispatched call: the op as called, where it ran, and which kernel and primitives served it.
struct DispatchRecord {
  proto::OpConf op_conf;
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

// While alive, every dispatch on this thread passes each output it allocates to `init` before
// the kernel runs (the most recently created live one applies). Test harnesses poison outputs
// this way, so that an element a kernel leaves unwritten fails instead of passing on whatever
// the allocator handed back. An error from `init` fails the dispatch.
class ScopedOutputInit {
 public:
  using Fn = std::function<Maybe<void>(const Tensor& output)>;
  explicit ScopedOutputInit(Fn init);
  ScopedOutputInit(const ScopedOutputInit&) = delete;
  ScopedOutputInit& operator=(const ScopedOutputInit&) = delete;
  ~ScopedOutputInit();

  Maybe<void> operator()(const Tensor& output) const { return init_(output); }

 private:
  Fn init_;
};

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_INTERPRETER_H_
