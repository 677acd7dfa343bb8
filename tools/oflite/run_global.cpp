// `oflite run FUNCTION --in ... --nproc N --sbp NAME=SBP ...`: the call on global tensors. Every
// rank loads the whole inputs, keeps its part under the input's SBP (B when not given), runs
// the function on global tensors (each op picks its signature, boxing the inputs as needed)
// and gathers the result whole; rank 0 writes it, and with --verbose prints each global call:
// the signature chosen and every boxing step.
#include <cstdlib>
#include <iostream>
#include <map>

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/dist/process_group.h"
#include "oneflow_lite/framework/global_dispatch.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/functional/global.h"
#include "tools/oflite/commands.h"
#include "tools/oflite/npy.h"
#include "tools/oflite/ranks.h"

namespace oflite {
namespace cli {

namespace {

using GlobalCall =
    std::function<Maybe<GlobalTensor>(const std::vector<GlobalTensor>&, const AttrMap&)>;

template <Maybe<GlobalTensor> (*F)(const GlobalTensor&, int64_t)>
Maybe<GlobalTensor> WithDim(const std::vector<GlobalTensor>& t, const AttrMap& a) {
  int64_t dim = 0;
  OFLITE_ASSIGN_OR_RETURN(dim, a.Get<int64_t>("dim"));
  return F(t[0], dim);
}

template <Maybe<GlobalTensor> (*F)(const GlobalTensor&, const GlobalTensor&, int64_t)>
Maybe<GlobalTensor> GradWithDim(const std::vector<GlobalTensor>& t, const AttrMap& a) {
  int64_t dim = 0;
  OFLITE_ASSIGN_OR_RETURN(dim, a.Get<int64_t>("dim"));
  return F(t[0], t[1], dim);
}

template <Maybe<GlobalTensor> (*F)(const GlobalTensor&, const GlobalTensor&)>
Maybe<GlobalTensor> Binary(const std::vector<GlobalTensor>& t, const AttrMap& /*a*/) {
  return F(t[0], t[1]);
}

Maybe<GlobalTensor> TransposeWith(const char* arg, const std::vector<GlobalTensor>& t,
                                  const AttrMap& a) {
  std::vector<int64_t> perm;
  OFLITE_ASSIGN_OR_RETURN(perm, a.Get<std::vector<int64_t>>(arg));
  return functional::Transpose(t[0], perm);
}

Maybe<GlobalTensor> MatMul(const std::vector<GlobalTensor>& t, const AttrMap& a) {
  MatMulArgs m;
  OFLITE_ASSIGN_OR_RETURN(m, GetMatMulArgs(a));
  return functional::MatMul(t[0], t[1], m.transpose_a, m.transpose_b, m.alpha);
}

// The functions with global forms; any other name that is an op runs by name with its attrs.
Maybe<GlobalCall> GlobalCallFor(const std::string& name) {
  static const std::map<std::string, GlobalCall> calls = {
      {"softmax", WithDim<functional::Softmax>},
      {"log_softmax", WithDim<functional::LogSoftmax>},
      {"softmax_grad", GradWithDim<functional::SoftmaxGrad>},
      {"log_softmax_grad", GradWithDim<functional::LogSoftmaxGrad>},
      {"transpose", [](auto& t, auto& a) { return TransposeWith("perm", t, a); }},
      {"permute", [](auto& t, auto& a) { return TransposeWith("dims", t, a); }},
      {"add", Binary<functional::Add>},
      {"sub", Binary<functional::Sub>},
      {"mul", Binary<functional::Mul>},
      {"div", Binary<functional::Div>},
      {"relu", [](auto& t, auto&) { return functional::Relu(t[0]); }},
      {"matmul", MatMul},
  };
  auto it = calls.find(name);
  if (it != calls.end()) {
    return it->second;
  }
  OFLITE_CHECK_OR_RETURN(OpRegistry::Global().Find(name).ok(), NotImplemented)
      << name << ": no global form with --nproc (functions: softmax, log_softmax, softmax_grad, "
      << "log_softmax_grad, transpose, permute, add, sub, mul, div, relu, matmul; or any op by "
      << "its name)";
  return GlobalCall(
      [name](const std::vector<GlobalTensor>& t, const AttrMap& a) -> Maybe<GlobalTensor> {
        std::vector<GlobalTensor> outputs;
        OFLITE_ASSIGN_OR_RETURN(outputs, functional::Call(name, t, a));
        OFLITE_CHECK_OR_RETURN(outputs.size() == 1, NotImplemented)
            << name << ": has " << outputs.size() << " outputs; the CLI writes one";
        return outputs[0];
      });
}

// "S(1)", "B" or "P".
Maybe<Sbp> ParseSbp(const std::string& text) {
  if (text == "B") {
    return BroadcastSbp();
  }
  if (text == "P") {
    return PartialSumSbp();
  }
  if (text.size() > 3 && text.compare(0, 2, "S(") == 0 && text.back() == ')') {
    const std::string axis = text.substr(2, text.size() - 3);
    char* end = nullptr;
    const long value = std::strtol(axis.c_str(), &end, 10);
    if (!axis.empty() && *end == '\0' && value >= 0) {
      return SplitSbp(value);
    }
  }
  return OFLITE_ERROR(ValueError) << "--sbp: '" << text << "' is not an SBP (S(axis), B or P)";
}

// Each input's SBP from NAME=SBP pairs; B where none is given.
Maybe<std::vector<Sbp>> ParseSbps(const FunctionEntry& function,
                                  const std::vector<std::string>& pairs) {
  std::vector<Sbp> sbps(function.tensors.size(), BroadcastSbp());
  for (const std::string& pair : pairs) {
    const size_t eq = pair.find('=');
    OFLITE_CHECK_OR_RETURN(eq != std::string::npos, ValueError)
        << "--sbp '" << pair << "' is not NAME=SBP";
    const std::string name = pair.substr(0, eq);
    size_t i = 0;
    while (i < function.tensors.size() && function.tensors[i] != name) {
      ++i;
    }
    OFLITE_CHECK_OR_RETURN(i < function.tensors.size(), ValueError)
        << "--sbp: " << function.name << " has no tensor '" << name
        << "' (tensors: " << Join(function.tensors) << ")";
    OFLITE_ASSIGN_OR_RETURN(sbps[i], ParseSbp(pair.substr(eq + 1)));
  }
  return sbps;
}

Maybe<void> RunGlobal(const RunOptions& options) {
  RunCall call;
  OFLITE_ASSIGN_OR_RETURN(call, ParseRunOptions(options));
  std::vector<Sbp> sbps;
  OFLITE_ASSIGN_OR_RETURN(sbps, ParseSbps(*call.function, options.sbps));
  GlobalCall global;
  OFLITE_ASSIGN_OR_RETURN(global, GlobalCallFor(call.function->name));
  dist::Communicator* comm = nullptr;
  OFLITE_ASSIGN_OR_RETURN(comm, JoinRanks(options.nproc, call.device.type()));
  // One GPU a rank: LOCAL_RANK's.
  const Device device =
      call.device.type() == DeviceType::kCUDA ? Device::Cuda(dist::LocalRank()) : call.device;
  std::vector<int> ranks;
  for (int r = 0; r < comm->size(); ++r) {
    ranks.push_back(r);
  }
  const Placement placement(device.type(), ranks);
  std::vector<GlobalTensor> inputs;
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    Tensor whole;
    OFLITE_ASSIGN_OR_RETURN(whole, npy::Load(options.inputs[i], device));
    GlobalTensor input;
    OFLITE_ASSIGN_OR_RETURN(input, GlobalTensor::FromWhole(whole, placement, {sbps[i]}));
    inputs.push_back(input);
  }
  GlobalTrace trace;
  GlobalTensor output;
  OFLITE_ASSIGN_OR_RETURN(output, global(inputs, call.args));
  GlobalTensor whole;
  OFLITE_ASSIGN_OR_RETURN(whole, output.ToGlobal(placement, {BroadcastSbp()}));
  if (comm->rank() != 0) {
    return Ok();
  }
  if (options.verbose) {
    for (const GlobalCallRecord& record : trace.records()) {
      std::cout << GlobalCallRecordToString(record) << "\n";
    }
    std::cout << "output: " << SbpToString(output.sbp()[0]) << " -> B\n";
  }
  return npy::Save(options.output, whole.local(), options.bfloat16_bits);
}

}  // namespace

int RunOnRanks(const RunOptions& options) {
  if (!IsRank()) {
    return LaunchSelf(options.nproc, options.threads, [&] { return RunOnRanks(options); });
  }
  const Maybe<void> result = RunGlobal(options);
  return result.ok() ? 0 : ReportError(result.error());
}

}  // namespace cli
}  // namespace oflite
