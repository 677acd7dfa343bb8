// Eager calls on global tensors. GlobalDispatch(op, inputs, attrs) infers the global outputs
// from the inputs' global shapes, asks the op for its SBP signatures (OpSchema::SbpSignatures)
// and picks the one whose boxing moves the fewest bytes given the inputs' SBPs (the cost model
// in boxing.h, summed over the inputs); ties go to the signature that re-boxes fewer inputs,
// then to the op's own order. A signature that would box an input into partial sums (B -> P,
// S -> P) is never chosen: it moves nothing now but leaves a reduction for later, which the
// cost of one call cannot see (explicit ToGlobal still makes partial sums). The choice depends only
// on what every rank knows alike (global shapes, dtypes, SBPs, attrs), so every rank makes the same
// one. It then boxes the inputs, runs the op's local kernel on the shards (Dispatch) and returns
// global outputs laid out as the signature says.
#ifndef ONEFLOW_LITE_FRAMEWORK_GLOBAL_DISPATCH_H_
#define ONEFLOW_LITE_FRAMEWORK_GLOBAL_DISPATCH_H_

#include <string>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/boxing.h"
#include "oneflow_lite/framework/global_tensor.h"
#include "oneflow_lite/framework/op_schema.h"

namespace oflite {

// Every rank of the inputs' placement calls it with the same op, attrs and global tensors.
// Errors: the interpreter's for the op and attrs, checked on the global shapes (the same on
// every rank, before any communication); ValueError for inputs on different placements;
// NotImplemented naming the op and the inputs' SBPs when the op lists no signature for them.
Maybe<std::vector<GlobalTensor>> GlobalDispatch(const std::string& op_type,
                                                const std::vector<GlobalTensor>& inputs,
                                                const AttrMap& attrs = {});
Maybe<GlobalTensor> GlobalDispatchOne(const std::string& op_type,
                                      const std::vector<GlobalTensor>& inputs,
                                      const AttrMap& attrs = {});

// The signature GlobalDispatch picks among `signatures` (valid ones: every argument named,
// split axes in range, no input boxed into P) for inputs of these descs and SBPs on `world` ranks:
// its index. NotImplemented when none is valid.
Maybe<size_t> ChooseSbpSignature(const OpSchema& schema,
                                 const std::vector<SbpSignature>& signatures,
                                 const std::vector<TensorDesc>& inputs,
                                 const std::vector<Sbp>& input_sbps,
                                 const std::vector<TensorDesc>& outputs, int64_t world);

// One global call or re-shard, as a trace shows it (the CLI's --verbose).
struct GlobalCallRecord {
  std::string call;                  // the op, or "to_global" for a re-shard
  std::string signature;             // the chosen one, "a:S(0) b:B out:S(0)"; empty for a re-shard
  size_t candidates = 0;             // signatures the op listed; 0 where the call chose itself
  int64_t bytes = 0;                 // the cost model's bytes of the boxing below
  std::vector<BoxingRecord> boxing;  // the steps that changed an SBP, in input order
};
// "matmul: a:S(0) b:B out:S(0) (of 4 signatures), boxing 0 B: none"
std::string GlobalCallRecordToString(const GlobalCallRecord& record);

// While alive, records every global call and re-shard of this thread (the most recently
// created live trace gets them).
class GlobalTrace {
 public:
  GlobalTrace();
  GlobalTrace(const GlobalTrace&) = delete;
  GlobalTrace& operator=(const GlobalTrace&) = delete;
  ~GlobalTrace();

  const std::vector<GlobalCallRecord>& records() const { return records_; }
  void Add(GlobalCallRecord record) { records_.push_back(std::move(record)); }
  // The innermost live trace of this thread, or nullptr.
  static GlobalTrace* Current();

 private:
  std::vector<GlobalCallRecord> records_;
};

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_GLOBAL_DISPATCH_H_
