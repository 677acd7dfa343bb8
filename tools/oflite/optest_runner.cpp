#include "tools/oflite/optest_runner.h"

#include <algorithm>
#include <exception>
#include <set>

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/framework/op_test_spec.h"
#include "tools/oflite/optest_sbp.h"
#include "tools/oflite/optest_tensor.h"
#include "tools/oflite/ranks.h"

namespace oflite {
namespace optest {

namespace {

// Random streams drawn from one case seed besides the generator's own, so that adding an
// invalid case to a spec never changes the valid case or its partial sums.
constexpr uint64_t kInvalidStream = 1;
constexpr uint64_t kSbpStream = 2;

// splitmix64's finalizer: every input bit flips about half the output bits.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// FNV-1a: a string hash that is the same on every platform (std::hash is not).
uint64_t Fnv1a(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h = (h ^ c) * 0x100000001b3ULL;
  }
  return h;
}

uint64_t StreamSeed(uint64_t case_seed, uint64_t stream, uint64_t index = 0) {
  return Mix(Mix(case_seed ^ Mix(stream)) ^ index);
}

template <typename T>
bool Contains(const std::vector<T>& items, const T& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

// Dtypes some kernel of the op serves on `type`, in AllDataTypes order.
std::vector<DataType> ServedDataTypes(const OpSchema& schema, DeviceType type) {
  const KernelRegistry& kernels = KernelRegistry::Global();
  std::set<DataType> served;
  for (const KernelRegistration& kernel : kernels.KernelsOf(schema.name())) {
    for (DataType dtype : kernels.ServedDataTypes(kernel, type, schema)) {
      served.insert(dtype);
    }
  }
  std::vector<DataType> ordered;
  for (DataType dtype : AllDataTypes()) {
    if (served.count(dtype) > 0) {
      ordered.push_back(dtype);
    }
  }
  return ordered;
}

std::vector<DeviceType> RunDevices(const Options& options) {
  if (!options.devices.empty()) {
    return options.devices;
  }
  std::vector<DeviceType> devices = {DeviceType::kCPU};
  if (ep::DeviceCount(DeviceType::kCUDA) > 0) {
    devices.push_back(DeviceType::kCUDA);
  }
  return devices;
}

// The named ops, or every op with a schema or a spec (a spec without a schema fails).
std::vector<std::string> SelectedOps(const Options& options) {
  if (!options.ops.empty()) {  // in the order given; an op named twice runs once
    std::vector<std::string> named;
    for (const std::string& op : options.ops) {
      if (std::find(named.begin(), named.end(), op) == named.end()) {
        named.push_back(op);
      }
    }
    return named;
  }
  std::set<std::string> ops;
  for (const std::string& op : OpRegistry::Global().OpTypes()) {
    ops.insert(op);
  }
  for (const std::string& op : OpTestRegistry::Global().OpTypes()) {
    ops.insert(op);
  }
  return std::vector<std::string>(ops.begin(), ops.end());
}

// The spec's dtypes that `served` has and the options allow, in the spec's order.
std::vector<DataType> TestedDataTypes(const OpTestSpec& spec, const std::vector<DataType>& served,
                                      const Options& options) {
  std::vector<DataType> tested;
  for (DataType dtype : spec.dtypes) {
    if (Contains(served, dtype) && (options.dtypes.empty() || Contains(options.dtypes, dtype)) &&
        !Contains(tested, dtype)) {
      tested.push_back(dtype);
    }
  }
  return tested;
}

std::vector<TensorDesc> DescsOf(const std::vector<HostTensor>& tensors) {
  std::vector<TensorDesc> descs;
  for (const HostTensor& t : tensors) {
    descs.push_back({t.shape, t.dtype});
  }
  return descs;
}

// The spec's tolerance for this case, per output dtype (the default when it has none). Holds
// references to spec and c: use it while both live.
std::function<Tolerance(DataType)> ToleranceOf(const OpTestSpec& spec, const OpCase& c) {
  if (spec.tolerance) {
    return [&spec, &c](DataType dtype) { return spec.tolerance(c, dtype); };
  }
  return DefaultTolerance;
}

std::string ErrorText(const Error& error) {
  return std::string(ErrorKindName(error.kind())) + ": " + error.message();
}

// Everything the cases of one op/device/dtype group share.
struct GroupContext {
  const OpSchema& schema;
  const OpTestSpec& spec;
  Device device;
  DataType dtype;
  bool compare_with_cpu;  // on cuda, where a cpu kernel serves the dtype
  uint64_t seed;
  Group* group;
  const Options* options;
};

// Adds one case's failures to its group, with the seeds and the command that reproduce it.
class CaseRecorder {
 public:
  CaseRecorder(const GroupContext& g, int64_t index, uint64_t case_seed)
      : g_(g), index_(index), case_seed_(case_seed) {}

  void Fail(const char* check, const std::string& message) {
    g_.group->failures.push_back(
        {check, index_, case_seed_, message,
         ReproduceCommand(g_.schema.name(), g_.device.type(), g_.dtype, g_.seed, index_)});
  }
  void Check(const char* check, const Maybe<void>& result) {
    if (!result.ok()) {
      Fail(check, result.error().message());
    }
  }

 private:
  const GroupContext& g_;
  int64_t index_;
  uint64_t case_seed_;
};

Maybe<void> CheckReference(const GroupContext& g, const OpCase& c,
                           const std::vector<HostTensor>& outputs,
                           const std::vector<HostTensor>& expected) {
  OFLITE_CHECK_OR_RETURN(expected.size() == outputs.size(), RuntimeError)
      << "the reference gives " << expected.size() << " output(s), the op " << outputs.size();
  const auto tolerance = ToleranceOf(g.spec, c);
  for (size_t i = 0; i < outputs.size(); ++i) {
    OFLITE_JUST(ExpectClose(outputs[i], expected[i],
                            ErrorBudget(expected[i], tolerance(expected[i].dtype)),
                            "output '" + g.schema.outputs()[i] + "' against the reference"));
  }
  return Ok();
}

// Every tensor holds exactly as many values as its shape has elements.
Maybe<void> CheckFilled(const std::vector<HostTensor>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    OFLITE_CHECK_OR_RETURN(
        static_cast<int64_t>(tensors[i].values.size()) == tensors[i].shape.elem_cnt(), RuntimeError)
        << "output " << i << " has " << tensors[i].values.size() << " values for shape "
        << tensors[i].shape << " of " << tensors[i].shape.elem_cnt() << " elements";
  }
  return Ok();
}

Maybe<void> CheckDesc(const TensorDesc& inferred, const HostTensor& t, const std::string& arg,
                      const char* whose) {
  OFLITE_CHECK_OR_RETURN(inferred.shape == t.shape && inferred.dtype == t.dtype, RuntimeError)
      << "the registry infers '" << arg << "' as " << inferred.shape << " " << inferred.dtype
      << ", " << whose << " has " << t.shape << " " << t.dtype;
  return Ok();
}

Maybe<void> CheckInferred(const GroupContext& g, const OpCase& c, const AttrMap& attrs,
                          const std::vector<HostTensor>& outputs,
                          const std::vector<HostTensor>& expected) {
  std::vector<TensorDesc> inferred;
  OFLITE_ASSIGN_OR_RETURN(inferred, g.schema.InferOutputs(DescsOf(c.inputs), attrs));
  OFLITE_CHECK_OR_RETURN(inferred.size() == outputs.size(), RuntimeError)
      << "the registry infers " << inferred.size() << " output(s), the kernel gave "
      << outputs.size();
  for (size_t i = 0; i < inferred.size(); ++i) {
    OFLITE_JUST(CheckDesc(inferred[i], outputs[i], g.schema.outputs()[i], "the kernel's output"));
    if (i < expected.size()) {
      OFLITE_JUST(CheckDesc(inferred[i], expected[i], g.schema.outputs()[i], "the reference"));
    }
  }
  return Ok();
}

void CheckSbp(const GroupContext& g, const OpCase& c, const AttrMap& attrs,
              const std::vector<HostTensor>& outputs, uint64_t case_seed, CaseRecorder* recorder) {
  const auto signatures = g.schema.SbpSignatures(DescsOf(c.inputs), attrs);
  if (!signatures.ok()) {
    recorder->Fail(kCheckSbp, "listing the signatures failed: " + ErrorText(signatures.error()));
    return;
  }
  const SbpCase sbp_case{g.schema, c.inputs, attrs, outputs, g.device, ToleranceOf(g.spec, c)};
  dist::Communicator* ranks = g.options->communicator;
  for (size_t s = 0; s < signatures.value().size(); ++s) {
    if (ranks != nullptr) {  // one piece a rank, instead of every piece here
      ++g.group->sbp_checks;
      recorder->Check(kCheckSbp,
                      CheckSbpSignatureOnRanks(sbp_case, signatures.value()[s], ranks,
                                               StreamSeed(case_seed, kSbpStream, s * 8)));
      continue;
    }
    for (int64_t k : kSbpPieceCounts) {
      ++g.group->sbp_checks;
      recorder->Check(kCheckSbp, CheckSbpSignature(sbp_case, signatures.value()[s], k,
                                                   StreamSeed(case_seed, kSbpStream, s * 8 + k)));
    }
  }
}

Maybe<void> CheckInvalidCase(const GroupContext& g, const InvalidCase& invalid) {
  const auto result = DispatchHost(g.schema.name(), invalid.inputs, invalid.attrs, g.device);
  OFLITE_CHECK_OR_RETURN(!result.ok(), RuntimeError)
      << "invalid case '" << invalid.what << "': expected " << ErrorKindName(invalid.expected)
      << ", but the call succeeded";
  OFLITE_CHECK_OR_RETURN(result.error().kind() == invalid.expected, RuntimeError)
      << "invalid case '" << invalid.what << "': expected " << ErrorKindName(invalid.expected)
      << ", got " << ErrorText(result.error());
  for (const std::string& fragment : invalid.message_contains) {
    OFLITE_CHECK_OR_RETURN(result.error().message().find(fragment) != std::string::npos,
                           RuntimeError)
        << "invalid case '" << invalid.what << "': the message does not name '" << fragment
        << "': " << ErrorText(result.error());
  }
  return Ok();
}

void CheckInvalid(const GroupContext& g, uint64_t case_seed, CaseRecorder* recorder) {
  if (!g.spec.invalid) {
    return;
  }
  CaseRng rng(StreamSeed(case_seed, kInvalidStream));
  for (const InvalidCase& invalid : g.spec.invalid(g.dtype, rng)) {
    ++g.group->invalid_checks;
    recorder->Check(kCheckInvalid, CheckInvalidCase(g, invalid));
  }
}

Maybe<void> CheckAgainstCpu(const GroupContext& g, const OpCase& c,
                            const std::vector<HostTensor>& outputs) {
  const auto cpu = DispatchHost(g.schema.name(), c.inputs, c.attrs, Device::Cpu());
  OFLITE_CHECK_OR_RETURN(cpu.ok(), RuntimeError)
      << "the same call on cpu failed: " << (cpu.ok() ? "" : ErrorText(cpu.error()));
  const auto tolerance = ToleranceOf(g.spec, c);
  for (size_t i = 0; i < outputs.size() && i < cpu.value().size(); ++i) {
    const HostTensor& expected = cpu.value()[i];
    std::vector<double> budget = ErrorBudget(expected, tolerance(expected.dtype));
    if (outputs[i].values.size() == budget.size()) {  // each side may be off the truth
      AddBudget(&budget, ErrorBudget(outputs[i], tolerance(outputs[i].dtype)));
    }
    OFLITE_JUST(ExpectClose(outputs[i], expected, budget,
                            "cuda output '" + g.schema.outputs()[i] + "' against cpu"));
  }
  return Ok();
}

// The valid call and everything checked against its result.
void CheckValidCase(const GroupContext& g, uint64_t case_seed, CaseRecorder* recorder) {
  CaseRng rng(case_seed);
  const OpCase c = g.spec.generate(g.dtype, rng);
  const auto outputs = DispatchHost(g.schema.name(), c.inputs, c.attrs, g.device);
  // On ranks, every rank takes the same path to the signatures' collectives.
  const Maybe<bool> ran_everywhere = cli::EveryRank(g.options->communicator, outputs.ok());
  if (!outputs.ok()) {
    recorder->Fail(kCheckDispatch, ErrorText(outputs.error()));
    return;
  }
  const auto expected = g.spec.reference(c);
  const Maybe<void> well_formed = expected.ok() ? CheckFilled(expected.value()) : Ok();
  if (!well_formed.ok()) {
    recorder->Fail(kCheckSpec, "the reference is malformed: " + ErrorText(well_formed.error()));
  } else if (expected.ok()) {
    recorder->Check(kCheckReference, CheckReference(g, c, outputs.value(), expected.value()));
  } else {
    recorder->Fail(kCheckSpec, "the reference failed: " + ErrorText(expected.error()));
  }
  // Dispatch completed these attrs just now, so this cannot fail.
  const AttrMap attrs = g.schema.CompleteAttrs(c.attrs).value();
  recorder->Check(kCheckInfer,
                  CheckInferred(g, c, attrs, outputs.value(),
                                expected.ok() ? expected.value() : std::vector<HostTensor>()));
  if (ran_everywhere.ok() && ran_everywhere.value()) {
    CheckSbp(g, c, attrs, outputs.value(), case_seed, recorder);
  } else {
    recorder->Fail(kCheckSbp, ran_everywhere.ok()
                                  ? std::string("the case failed on another rank")
                                  : "ranks could not agree: " + ErrorText(ran_everywhere.error()));
  }
  if (g.compare_with_cpu) {
    recorder->Check(kCheckCudaVsCpu, CheckAgainstCpu(g, c, outputs.value()));
  }
}

void RunCase(const GroupContext& g, int64_t index) {
  const uint64_t case_seed = CaseSeed(g.seed, g.schema.name(), g.dtype, index);
  CaseRecorder recorder(g, index, case_seed);
  ++g.group->cases;
  try {  // a spec or kernel that throws fails its case instead of ending the run
    CheckValidCase(g, case_seed, &recorder);
    CheckInvalid(g, case_seed, &recorder);
  } catch (const std::exception& e) {
    recorder.Fail(kCheckException, e.what());
  }
}

// Collects finished groups and tells the callback.
class GroupSink {
 public:
  GroupSink(Report* report, const Callbacks& callbacks) : report_(report), callbacks_(callbacks) {}

  void Add(Group group) {
    if (callbacks_.group_done) {
      callbacks_.group_done(group);
    }
    report_->groups.push_back(std::move(group));
  }
  // A group of one failure not tied to a case: the op could not be run at all.
  void AddOpFailure(const std::string& op, const char* check, const std::string& message) {
    Group group;
    group.op = op;
    group.failures.push_back({check, -1, 0, message, ""});
    Add(std::move(group));
  }

 private:
  Report* report_;
  const Callbacks& callbacks_;
};

// Case indices are counted, never listed: --cases sizes no buffer.
void RunGroup(const GroupContext& g, const Options& options, const Callbacks& callbacks) {
  const int64_t count = options.case_index.has_value() ? 1 : options.cases;
  for (int64_t i = 0; i < count; ++i) {
    if (callbacks.progress) {
      callbacks.progress(g.schema.name() + " " + DeviceTypeName(g.device.type()) + " " +
                         DataTypeName(g.dtype) + " case " + std::to_string(i + 1) + "/" +
                         std::to_string(count));
    }
    RunCase(g, options.case_index.value_or(i));
  }
}

void RunOp(const std::string& op, const Options& options, const Callbacks& callbacks,
           GroupSink* sink) {
  const auto schema = OpRegistry::Global().Find(op);
  const OpTestSpec* spec = OpTestRegistry::Global().Find(op);
  if (!schema.ok()) {
    sink->AddOpFailure(op, kCheckSpec, "a spec is registered, but no op of that name");
    return;
  }
  if (spec == nullptr) {
    sink->AddOpFailure(op, kCheckUntested, "no OpTestSpec is registered for it");
    return;
  }
  if (!spec->generate || !spec->reference) {
    sink->AddOpFailure(op, kCheckSpec, "the spec lacks a generator or a reference");
    return;
  }
  bool ran = false;
  const std::vector<DataType> cpu_served = ServedDataTypes(*schema.value(), DeviceType::kCPU);
  for (DeviceType type : RunDevices(options)) {
    const std::vector<DataType> served = ServedDataTypes(*schema.value(), type);
    for (DataType dtype : TestedDataTypes(*spec, served, options)) {
      Group group;
      group.op = op;
      group.device = DeviceTypeName(type);
      group.dtype = DataTypeName(dtype);
      const bool compare_with_cpu = type != DeviceType::kCPU && Contains(cpu_served, dtype);
      const int index = type == DeviceType::kCUDA ? options.cuda_index : 0;
      RunGroup({*schema.value(), *spec, Device(type, index), dtype, compare_with_cpu, options.seed,
                &group, &options},
               options, callbacks);
      sink->Add(std::move(group));
      ran = true;
    }
  }
  // Nothing run is a failure, also when --dtype narrowed it to nothing: a filter that selects
  // nothing must not pass silently.
  if (!ran) {
    sink->AddOpFailure(
        op, kCheckUntested,
        "no kernel on the devices run serves a dtype of its spec (" + Join(spec->dtypes) + ")" +
            (options.dtypes.empty() ? "" : " among --dtype " + Join(options.dtypes)));
  }
}

// The dtype --list counts signatures for: float32 where tested, else the first floating one,
// else the first.
DataType ListedDataType(const std::vector<DataType>& dtypes) {
  if (Contains(dtypes, DataType::kFloat32)) {
    return DataType::kFloat32;
  }
  for (DataType dtype : dtypes) {
    if (IsFloatingDataType(dtype)) {
      return dtype;
    }
  }
  return dtypes.front();
}

Maybe<int64_t> CountSignatures(const OpSchema& schema, const OpTestSpec& spec, DataType dtype,
                               uint64_t seed) {
  CaseRng rng(CaseSeed(seed, schema.name(), dtype, 0));
  const OpCase c = spec.generate(dtype, rng);
  AttrMap attrs;
  OFLITE_ASSIGN_OR_RETURN(attrs, schema.CompleteAttrs(c.attrs));
  std::vector<SbpSignature> signatures;
  OFLITE_ASSIGN_OR_RETURN(signatures, schema.SbpSignatures(DescsOf(c.inputs), attrs));
  return static_cast<int64_t>(signatures.size());
}

ListEntry ListOp(const std::string& op, const Options& options) {
  ListEntry entry;
  entry.op = op;
  const OpTestSpec* spec = OpTestRegistry::Global().Find(op);
  entry.has_spec = spec != nullptr;
  const auto schema = OpRegistry::Global().Find(op);
  if (!schema.ok()) {
    return entry;
  }
  std::vector<DataType> served_anywhere;
  for (DeviceType type : kAllDeviceTypes) {
    const bool selected = options.devices.empty() || Contains(options.devices, type);
    const std::vector<DataType> served = ServedDataTypes(*schema.value(), type);
    if (!selected || ep::FindDeviceProvider(type) == nullptr || served.empty()) {
      continue;
    }
    entry.devices.push_back(type);
    served_anywhere.insert(served_anywhere.end(), served.begin(), served.end());
  }
  if (spec == nullptr || !spec->generate) {
    return entry;
  }
  entry.dtypes = TestedDataTypes(*spec, served_anywhere, options);
  if (!entry.dtypes.empty()) {
    const auto count =
        CountSignatures(*schema.value(), *spec, ListedDataType(entry.dtypes), options.seed);
    entry.sbp_signatures = count.ok() ? count.value() : -1;
  }
  return entry;
}

}  // namespace

uint64_t CaseSeed(uint64_t seed, const std::string& op, DataType dtype, int64_t case_index) {
  uint64_t h = Mix(Fnv1a(op) ^ Mix(seed));
  h = Mix(h ^ static_cast<uint64_t>(dtype));
  return Mix(h ^ static_cast<uint64_t>(case_index));
}

std::string ReproduceCommand(const std::string& op, DeviceType device, DataType dtype,
                             uint64_t seed, int64_t case_index) {
  return "oflite optest --op " + op + " --device " + DeviceTypeName(device) + " --dtype " +
         DataTypeName(dtype) + " --seed " + std::to_string(seed) + " --case " +
         std::to_string(case_index);
}

Maybe<void> ValidateOptions(const Options& options) {
  OFLITE_CHECK_OR_RETURN(options.cases >= 1 && options.cases <= kMaxCases, ValueError)
      << "optest: --cases must be 1.." << kMaxCases << ", got " << options.cases;
  OFLITE_CHECK_OR_RETURN(!options.case_index.has_value() || *options.case_index >= 0, ValueError)
      << "optest: --case must be non-negative, got " << options.case_index.value_or(0);
  for (const std::string& op : options.ops) {
    OFLITE_CHECK_OR_RETURN(
        OpRegistry::Global().Find(op).ok() || OpTestRegistry::Global().Find(op) != nullptr,
        ValueError)
        << "optest: unknown op '" << op << "' (`oflite ops` lists them)";
  }
  for (DeviceType type : options.devices) {
    OFLITE_CHECK_OR_RETURN(ep::DeviceCount(type) > 0, DeviceError)
        << "optest: --device " << DeviceTypeName(type) << ", but no " << DeviceTypeName(type)
        << " device is visible"
        << (ep::FindDeviceProvider(type) == nullptr ? " (this build does not include it)" : "");
  }
  return Ok();
}

Maybe<Report> Run(const Options& options, const Callbacks& callbacks) {
  OFLITE_JUST(ValidateOptions(options));
  Report report;
  report.seed = options.seed;
  report.cases = options.cases;
  report.case_index = options.case_index;
  GroupSink sink(&report, callbacks);
  for (const std::string& op : SelectedOps(options)) {
    RunOp(op, options, callbacks, &sink);
  }
  return report;
}

Maybe<std::vector<ListEntry>> List(const Options& options) {
  OFLITE_JUST(ValidateOptions(options));
  std::vector<ListEntry> entries;
  for (const std::string& op : SelectedOps(options)) {
    entries.push_back(ListOp(op, options));
  }
  return entries;
}

}  // namespace optest
}  // namespace oflite
