// The optest harness proves ops; these tests prove the harness. The binary registers small
// float64 CPU ops of its own, each with a spec: one correct, one whose kernel is wrong on one
// element, one that lists a wrong SBP signature, one whose spec expects the wrong error kind,
// and one with no spec at all; the runner must pass the first and name what is wrong with
// each of the others.
#include "tools/oflite/optest_runner.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/framework/op_test_spec.h"
#include "tools/oflite/optest_report.h"
#include "tools/oflite/optest_sbp.h"

namespace oflite {
namespace {

constexpr const char* kScaleOp = "optest_scale";
constexpr const char* kFaultyScaleOp = "optest_faulty_scale";
constexpr const char* kWrongKindOp = "optest_scale_wrong_kind";
constexpr const char* kSumRowsOp = "optest_sum_rows";
constexpr const char* kUnspeccedOp = "optest_unspecced";
constexpr const char* kShortReferenceOp = "optest_short_reference";
constexpr const char* kSkipsLastOp = "optest_skips_last";
constexpr const char* kX = "x";
constexpr const char* kY = "y";

// ---------------------------------------------------------------------------------------------
// The test ops: y = fn(x) on float64, computed on the host by one kernel class.

using HostFn = std::function<std::vector<double>(const std::vector<double>& x, const Shape& shape)>;

class HostKernel final : public OpKernel {
 public:
  explicit HostKernel(HostFn fn) : fn_(std::move(fn)) {}

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    std::vector<double> x;
    OFLITE_ASSIGN_OR_RETURN(x, ctx->InputAt(0).ToVector<double>());
    const std::vector<double> y = fn_(x, ctx->InputAt(0).shape());
    // fn may return fewer values than the output holds: the rest stays unwritten
    std::copy(y.begin(), y.end(), static_cast<double*>(ctx->OutputAt(0).mut_data()));
    return Ok();
  }

 private:
  HostFn fn_;
};

void RegisterHostKernel(const char* op, HostFn fn) {
  KernelRegistry::Global().Register({op, "HostKernel",
                                     [](const KernelMatchContext& ctx) {
                                       return ctx.device_type == DeviceType::kCPU &&
                                              ctx.input_dtypes[0] == DataType::kFloat64;
                                     },
                                     [fn] { return std::make_unique<HostKernel>(fn); }});
}

std::vector<double> Scale(const std::vector<double>& x, const Shape&) {
  std::vector<double> y;
  for (double v : x) {
    y.push_back(2 * v);
  }
  return y;
}

// Wrong on one element: what a kernel with an indexing bug looks like.
std::vector<double> FaultyScale(const std::vector<double>& x, const Shape& shape) {
  std::vector<double> y = Scale(x, shape);
  if (y.size() > 3) {
    y[3] += 1;
  }
  return y;
}

// Leaves the last element unwritten: what a kernel that forgets its tail looks like.
std::vector<double> ScaleButTheLast(const std::vector<double>& x, const Shape& shape) {
  std::vector<double> y = Scale(x, shape);
  if (!y.empty()) {  // an SBP piece may be empty
    y.pop_back();
  }
  return y;
}

std::vector<double> SumRows(const std::vector<double>& x, const Shape& shape) {
  std::vector<double> y(static_cast<size_t>(shape[1]), 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    y[i % y.size()] += x[i];
  }
  return y;
}

Maybe<void> InferScale(InferContext* ctx) {
  OFLITE_CHECK_OR_RETURN(ctx->Input(kX).shape.rank() >= 1, ValueError)
      << ctx->op_type() << ": x must have rank >= 1";
  *ctx->MutOutput(kY) = ctx->Input(kX);
  return Ok();
}

Maybe<void> InferSumRows(InferContext* ctx) {
  const TensorDesc& x = ctx->Input(kX);
  OFLITE_CHECK_OR_RETURN(x.shape.rank() == 2, ValueError)
      << ctx->op_type() << ": x must have rank 2, got " << x.shape;
  *ctx->MutOutput(kY) = {Shape{x.shape[1]}, x.dtype};
  return Ok();
}

SbpSignature Signature(const Sbp& x, const Sbp& y) {
  SbpSignature signature;
  signature[kX] = x;
  signature[kY] = y;
  return signature;
}

// Scaling: any axis splits, and it is linear, so partial sums pass through.
Maybe<std::vector<SbpSignature>> ScaleSbp(const InferContext& ctx) {
  std::vector<SbpSignature> signatures;
  for (int64_t axis = 0; axis < ctx.Input(kX).shape.rank(); ++axis) {
    signatures.push_back(Signature(SplitSbp(axis), SplitSbp(axis)));
  }
  signatures.push_back(Signature(BroadcastSbp(), BroadcastSbp()));
  signatures.push_back(Signature(PartialSumSbp(), PartialSumSbp()));
  return signatures;
}

// Summing over rows: x:S(0) gives partial sums (P), not splits. Two entries are deliberate
// mistakes the harness must catch: S(0) -> S(0) (pieces of the wrong shape) and B -> P (pieces
// of the right shape, k times too much); the other three hold.
Maybe<std::vector<SbpSignature>> SumRowsSbp(const InferContext&) {
  return std::vector<SbpSignature>{
      Signature(SplitSbp(1), SplitSbp(0)), Signature(SplitSbp(0), SplitSbp(0)),
      Signature(BroadcastSbp(), BroadcastSbp()), Signature(BroadcastSbp(), PartialSumSbp()),
      Signature(PartialSumSbp(), PartialSumSbp())};
}

OFLITE_REGISTER_OP(kScaleOp).Input(kX).Output(kY).SetInferFn(InferScale).SetSbpFn(ScaleSbp);
OFLITE_REGISTER_OP(kFaultyScaleOp).Input(kX).Output(kY).SetInferFn(InferScale).SetSbpFn(ScaleSbp);
OFLITE_REGISTER_OP(kWrongKindOp).Input(kX).Output(kY).SetInferFn(InferScale).SetSbpFn(ScaleSbp);
OFLITE_REGISTER_OP(kUnspeccedOp).Input(kX).Output(kY).SetInferFn(InferScale).SetSbpFn(ScaleSbp);
OFLITE_REGISTER_OP(kSumRowsOp).Input(kX).Output(kY).SetInferFn(InferSumRows).SetSbpFn(SumRowsSbp);
OFLITE_REGISTER_OP(kSkipsLastOp).Input(kX).Output(kY).SetInferFn(InferScale).SetSbpFn(ScaleSbp);
OFLITE_REGISTER_OP(kShortReferenceOp)
    .Input(kX)
    .Output(kY)
    .SetInferFn(InferScale)
    .SetSbpFn(ScaleSbp);

const bool kKernelsRegistered = [] {
  RegisterHostKernel(kScaleOp, Scale);
  RegisterHostKernel(kFaultyScaleOp, FaultyScale);
  RegisterHostKernel(kWrongKindOp, Scale);
  RegisterHostKernel(kUnspeccedOp, Scale);
  RegisterHostKernel(kSumRowsOp, SumRows);
  RegisterHostKernel(kShortReferenceOp, Scale);
  RegisterHostKernel(kSkipsLastOp, ScaleButTheLast);
  return true;
}();

// ---------------------------------------------------------------------------------------------
// Their specs: correct references; the invalid cases differ.

HostTensor Rank0(DataType dtype) { return {Shape{}, dtype, {1.0}}; }

// x of 2..5 x 2..5 (at least four elements, so the faulty element always exists).
OpTestSpec ScaleSpec(std::function<std::vector<InvalidCase>(DataType, CaseRng&)> invalid) {
  OpTestSpec spec;
  spec.dtypes = {DataType::kFloat64, DataType::kFloat32};  // no kernel serves float32
  spec.generate = [](DataType dtype, CaseRng& rng) {
    return OpCase{{RandomHostTensor(rng, Shape{rng.Int(2, 5), rng.Int(2, 5)}, dtype)}, {}};
  };
  spec.reference = [](const OpCase& c) -> Maybe<std::vector<HostTensor>> {
    HostTensor y = c.inputs[0];
    y.values = Scale(y.values, y.shape);
    return std::vector<HostTensor>{y};
  };
  spec.invalid = std::move(invalid);
  return spec;
}

std::vector<InvalidCase> RightKind(DataType dtype, CaseRng&) {
  return {{"x of rank 0", {Rank0(dtype)}, {}, ErrorKind::kValueError, {"x must have rank >= 1"}}};
}

// Rank 0 gives a ValueError, not a TypeError, a valid call no error at all, and the rank-0
// error's message does not say "rank >= 2".
std::vector<InvalidCase> WrongKind(DataType dtype, CaseRng& rng) {
  return {{"x of rank 0", {Rank0(dtype)}, {}, ErrorKind::kTypeError},
          {"a valid call", {RandomHostTensor(rng, Shape{2, 3}, dtype)}, {}, ErrorKind::kValueError},
          {"x of rank 0, named", {Rank0(dtype)}, {}, ErrorKind::kValueError, {"rank >= 2"}}};
}

// Rows from 1 to 6: fewer rows than pieces leaves some pieces empty.
OpTestSpec SumRowsSpec() {
  OpTestSpec spec;
  spec.dtypes = {DataType::kFloat64};
  spec.generate = [](DataType dtype, CaseRng& rng) {
    return OpCase{{RandomHostTensor(rng, Shape{rng.Int(1, 6), rng.Int(1, 4)}, dtype)}, {}};
  };
  spec.reference = [](const OpCase& c) -> Maybe<std::vector<HostTensor>> {
    const HostTensor& x = c.inputs[0];
    return std::vector<HostTensor>{{Shape{x.shape[1]}, x.dtype, SumRows(x.values, x.shape)}};
  };
  return spec;
}

OFLITE_REGISTER_OP_TEST(kScaleOp, ScaleSpec(RightKind));
OFLITE_REGISTER_OP_TEST(kFaultyScaleOp, ScaleSpec(RightKind));
OFLITE_REGISTER_OP_TEST(kWrongKindOp, ScaleSpec(WrongKind));
OFLITE_REGISTER_OP_TEST(kSumRowsOp, SumRowsSpec());

// A spec bug: the reference's values do not fill its shape.
OpTestSpec ShortReferenceSpec() {
  OpTestSpec spec = ScaleSpec(RightKind);
  spec.reference = [](const OpCase& c) -> Maybe<std::vector<HostTensor>> {
    HostTensor y = c.inputs[0];
    y.values.pop_back();
    return std::vector<HostTensor>{y};
  };
  return spec;
}
OFLITE_REGISTER_OP_TEST(kShortReferenceOp, ShortReferenceSpec());
OFLITE_REGISTER_OP_TEST(kSkipsLastOp, ScaleSpec(RightKind));

// ---------------------------------------------------------------------------------------------

optest::Report RunOps(const std::vector<std::string>& ops, uint64_t seed = 5, int64_t cases = 6) {
  optest::Options options;
  options.ops = ops;
  options.devices = {DeviceType::kCPU};
  options.cases = cases;
  options.seed = seed;
  const Maybe<optest::Report> report = optest::Run(options);
  EXPECT_TRUE(report.ok()) << report.error().ToString();
  return report.ok() ? report.value() : optest::Report();
}

std::vector<optest::Failure> FailuresOf(const optest::Report& report, const std::string& check) {
  std::vector<optest::Failure> found;
  for (const optest::Group& group : report.groups) {
    for (const optest::Failure& f : group.failures) {
      if (f.check == check) {
        found.push_back(f);
      }
    }
  }
  return found;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(OptestRunner, CorrectOpPassesEveryCheck) {
  const optest::Report report = RunOps({kScaleOp});
  ASSERT_EQ(report.groups.size(), 1u);  // float64 only: no kernel serves the spec's float32
  const optest::Group& group = report.groups[0];
  EXPECT_TRUE(group.passed()) << optest::ReportToJson(report);
  EXPECT_EQ(group.op, kScaleOp);
  EXPECT_EQ(group.device, "cpu");
  EXPECT_EQ(group.dtype, "float64");
  EXPECT_EQ(group.cases, 6);
  EXPECT_EQ(group.sbp_checks, 6 * 4 * 3);  // rank 2: S(0), S(1), B, P; k = 2, 3, 4
  EXPECT_EQ(group.invalid_checks, 6);
  EXPECT_EQ(optest::ClosingLine(report), "1 passed, 0 failed");
  EXPECT_EQ(optest::SummaryLine(group),
            "PASS optest_scale cpu float64: 6 cases, 72 sbp checks, 6 invalid checks, 0 failures");
}

TEST(OptestRunner, FaultyKernelIsCaughtAndNamed) {
  const optest::Report report = RunOps({kScaleOp, kFaultyScaleOp});
  ASSERT_EQ(report.groups.size(), 2u);
  EXPECT_EQ(optest::ClosingLine(report), "1 passed, 1 failed");
  const optest::Group& faulty = report.groups[1];
  EXPECT_EQ(faulty.op, kFaultyScaleOp);
  EXPECT_FALSE(faulty.passed());
  const std::string lines = optest::GroupLines(faulty, report.seed);
  EXPECT_EQ(lines.rfind("FAIL optest_faulty_scale cpu float64: 6 cases, ", 0), 0u) << lines;
  EXPECT_TRUE(Contains(lines, "\n  optest_faulty_scale cpu float64 case 0 (seed 5, ")) << lines;

  const std::vector<optest::Failure> wrong = FailuresOf(report, optest::kCheckReference);
  ASSERT_EQ(wrong.size(), 6u) << optest::ReportToJson(report);  // every case
  for (const optest::Failure& f : wrong) {
    EXPECT_TRUE(Contains(f.message, "output 'y' against the reference")) << f.message;
    EXPECT_TRUE(Contains(f.message, "1 of ")) << f.message;
    EXPECT_EQ(f.reproduce,
              "oflite optest --op optest_faulty_scale --device cpu --dtype float64 --seed 5 "
              "--case " +
                  std::to_string(f.case_index));
    const std::string lines = optest::FailureLines(faulty, f, report.seed);
    EXPECT_TRUE(Contains(lines, "(seed 5, case seed 0x")) << lines;
    EXPECT_TRUE(Contains(lines, "    reproduce: " + f.reproduce)) << lines;
  }
}

TEST(OptestRunner, OneCaseReproducesAlone) {
  const optest::Report all = RunOps({kFaultyScaleOp});
  ASSERT_EQ(all.groups.size(), 1u);
  ASSERT_FALSE(all.groups[0].failures.empty());
  const optest::Failure& first = all.groups[0].failures.front();

  optest::Options options;
  options.ops = {kFaultyScaleOp};
  options.devices = {DeviceType::kCPU};
  options.seed = 5;
  options.case_index = first.case_index;
  const optest::Report one = optest::Run(options).value();
  ASSERT_EQ(one.groups.size(), 1u);
  EXPECT_EQ(one.groups[0].cases, 1);
  std::set<std::string> expected, got;
  for (const optest::Failure& f : all.groups[0].failures) {
    if (f.case_index == first.case_index) {
      expected.insert(f.check + ": " + f.message);
    }
  }
  for (const optest::Failure& f : one.groups[0].failures) {
    EXPECT_EQ(f.case_seed, first.case_seed);
    got.insert(f.check + ": " + f.message);
  }
  EXPECT_EQ(got, expected);
}

TEST(OptestRunner, WrongSbpSignaturesAreCaughtWithOpSignatureAndK) {
  const optest::Report report = RunOps({kSumRowsOp});
  ASSERT_EQ(report.groups.size(), 1u);
  EXPECT_TRUE(FailuresOf(report, optest::kCheckReference).empty());
  const std::vector<optest::Failure> sbp = FailuresOf(report, optest::kCheckSbp);
  // each case, each k, each of the two wrong signatures
  ASSERT_EQ(sbp.size(), 6u * 3 * 2) << optest::ReportToJson(report);
  std::set<std::string> caught;
  for (const optest::Failure& f : sbp) {
    const size_t k = f.message.find(" does not hold with k=");
    ASSERT_NE(k, std::string::npos) << f.message;
    caught.insert(f.message.substr(0, k + 23));
  }
  const std::string prefix = "optest_sum_rows: signature ";
  EXPECT_EQ(caught, (std::set<std::string>{
                        prefix + "x:S(0) y:S(0) does not hold with k=2",
                        prefix + "x:S(0) y:S(0) does not hold with k=3",
                        prefix + "x:S(0) y:S(0) does not hold with k=4",
                        prefix + "x:B y:P does not hold with k=2",
                        prefix + "x:B y:P does not hold with k=3",
                        prefix + "x:B y:P does not hold with k=4",
                    }));
  EXPECT_EQ(report.groups[0].sbp_checks, 6 * 5 * 3);
}

TEST(OptestRunner, InvalidCaseOfTheWrongKindOrMessageOrThatSucceedsIsCaught) {
  const optest::Report report = RunOps({kWrongKindOp}, 5, 2);
  const std::vector<optest::Failure> invalid = FailuresOf(report, optest::kCheckInvalid);
  ASSERT_EQ(invalid.size(), 6u) << optest::ReportToJson(report);  // three per case
  EXPECT_TRUE(Contains(invalid[0].message, "'x of rank 0': expected TypeError, got ValueError"))
      << invalid[0].message;
  EXPECT_TRUE(Contains(invalid[1].message, "'a valid call': expected ValueError, but the call"))
      << invalid[1].message;
  EXPECT_TRUE(
      Contains(invalid[2].message, "'x of rank 0, named': the message does not name 'rank >= 2'"))
      << invalid[2].message;
  EXPECT_EQ(report.groups.at(0).invalid_checks, 6);
}

TEST(OptestRunner, OpWithoutSpecIsUntestedAndFails) {
  const optest::Report report = RunOps({kUnspeccedOp, kScaleOp});
  ASSERT_EQ(report.groups.size(), 2u);
  EXPECT_EQ(optest::ClosingLine(report), "1 passed, 1 failed");
  EXPECT_EQ(optest::GroupLines(report.groups[0], report.seed),
            "FAIL optest_unspecced: untested (no OpTestSpec is registered for it)\n");
}

// Outputs are poisoned before the kernel runs, so an element it never writes cannot pass on
// what the allocator happened to hand back (often the previous, correct, result).
TEST(OptestRunner, AnElementTheKernelLeavesUnwrittenIsCaught) {
  const optest::Report report = RunOps({kSkipsLastOp});
  ASSERT_EQ(report.groups.size(), 1u);
  EXPECT_EQ(optest::ClosingLine(report), "0 passed, 1 failed");
  const std::vector<optest::Failure> wrong = FailuresOf(report, optest::kCheckReference);
  ASSERT_EQ(wrong.size(), 6u) << optest::ReportToJson(report);  // every case
  EXPECT_TRUE(Contains(wrong[0].message, "nan")) << wrong[0].message;
}

TEST(OptestRunner, AnOpNamedTwiceRunsOnce) {
  const optest::Report report = RunOps({kScaleOp, kScaleOp});
  ASSERT_EQ(report.groups.size(), 1u);
  EXPECT_EQ(optest::ClosingLine(report), "1 passed, 0 failed");
}

// A --dtype no kernel serves selects nothing: that fails rather than passing empty.
TEST(OptestRunner, ADtypeFilterThatSelectsNothingFails) {
  optest::Options options;
  options.ops = {kScaleOp};
  options.devices = {DeviceType::kCPU};
  options.dtypes = {DataType::kInt32};
  const Maybe<optest::Report> report = optest::Run(options);
  ASSERT_TRUE(report.ok()) << report.error().ToString();
  EXPECT_EQ(optest::ClosingLine(report.value()), "0 passed, 1 failed");
  EXPECT_TRUE(Contains(optest::GroupLines(report.value().groups[0], report.value().seed),
                       "among --dtype int32"))
      << optest::GroupLines(report.value().groups[0], report.value().seed);
}

TEST(OptestRunner, AReferenceThatDoesNotFillItsShapeIsASpecFailure) {
  const optest::Report report = RunOps({kShortReferenceOp});
  ASSERT_EQ(report.groups.size(), 1u);
  const std::vector<optest::Failure> spec_failures = FailuresOf(report, "spec");
  ASSERT_EQ(spec_failures.size(), 6u) << optest::ReportToJson(report);
  EXPECT_TRUE(Contains(spec_failures[0].message, "the reference is malformed"))
      << spec_failures[0].message;
}

TEST(OptestRunner, UnknownOpAndInvisibleDeviceAreOptionErrors) {
  optest::Options options;
  options.ops = {"optest_no_such_op"};
  const Maybe<optest::Report> unknown = optest::Run(options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind(), ErrorKind::kValueError);
  EXPECT_TRUE(Contains(unknown.error().message(), "optest_no_such_op"));
  options.ops = {kScaleOp};
  options.cases = 0;
  EXPECT_EQ(optest::ValidateOptions(options).error().kind(), ErrorKind::kValueError);
  options.cases = 1;
  options.devices = {DeviceType::kCUDA};
  if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
    EXPECT_EQ(optest::ValidateOptions(options).error().kind(), ErrorKind::kDeviceError);
  } else {
    EXPECT_TRUE(optest::ValidateOptions(options).ok());
  }
}

TEST(OptestRunner, SameSeedSameReportOtherSeedOtherCases) {
  const std::string a = optest::ReportToJson(RunOps({kFaultyScaleOp, kSumRowsOp}, 11));
  const std::string b = optest::ReportToJson(RunOps({kFaultyScaleOp, kSumRowsOp}, 11));
  EXPECT_EQ(a, b);
  EXPECT_NE(optest::CaseSeed(1, kScaleOp, DataType::kFloat64, 0),
            optest::CaseSeed(2, kScaleOp, DataType::kFloat64, 0));
  EXPECT_NE(optest::CaseSeed(1, kScaleOp, DataType::kFloat64, 0),
            optest::CaseSeed(1, kScaleOp, DataType::kFloat32, 0));
  EXPECT_NE(optest::CaseSeed(1, kScaleOp, DataType::kFloat64, 0),
            optest::CaseSeed(1, kScaleOp, DataType::kFloat64, 1));
  EXPECT_NE(optest::CaseSeed(1, kScaleOp, DataType::kFloat64, 0),
            optest::CaseSeed(1, kFaultyScaleOp, DataType::kFloat64, 0));
}

TEST(OptestRunner, JsonReportParsesAndCarriesTheFailures) {
  const optest::Report report = RunOps({kScaleOp, kSumRowsOp}, 5, 1);
  const std::string json = optest::ReportToJson(report);
  google::protobuf::Struct parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok()) << json;
  const auto& fields = parsed.fields();
  EXPECT_EQ(fields.at("passed").number_value(), 1);
  EXPECT_EQ(fields.at("failed").number_value(), 1);
  const auto& groups = fields.at("groups").list_value().values();
  ASSERT_EQ(groups.size(), 2);
  const auto& sum_rows = groups[1].struct_value().fields();
  EXPECT_EQ(sum_rows.at("op").string_value(), kSumRowsOp);
  EXPECT_FALSE(sum_rows.at("passed").bool_value());
  const auto& failure = sum_rows.at("failures").list_value().values(0).struct_value().fields();
  EXPECT_EQ(failure.at("check").string_value(), "sbp");
  EXPECT_EQ(failure.at("reproduce").string_value(),
            "oflite optest --op optest_sum_rows --device cpu --dtype float64 --seed 5 --case 0");
}

TEST(OptestRunner, ListShowsDevicesDtypesAndSignatures) {
  optest::Options options;
  options.ops = {kScaleOp, kUnspeccedOp};
  const std::vector<optest::ListEntry> entries = optest::List(options).value();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(entries[0].has_spec);
  EXPECT_EQ(entries[0].devices, std::vector<DeviceType>{DeviceType::kCPU});
  EXPECT_EQ(entries[0].dtypes, std::vector<DataType>{DataType::kFloat64});
  EXPECT_EQ(entries[0].sbp_signatures, 4);
  EXPECT_FALSE(entries[1].has_spec);
}

// ---------------------------------------------------------------------------------------------
// The split and partial-sum helpers.

// Integer inputs are drawn within the dtype's range (a negative double cast to uint8 is
// undefined behaviour), whatever range the spec asks for.
TEST(OptestSpec, RandomIntegersStayInTheDtypesRange) {
  CaseRng rng(7);
  const HostTensor u8 = RandomHostTensor(rng, Shape{256}, DataType::kUInt8);  // asks [-4, 4]
  const HostTensor i8 = RandomHostTensor(rng, Shape{256}, DataType::kInt8, -1000, 1000);
  EXPECT_EQ(*std::min_element(u8.values.begin(), u8.values.end()), 0.0);
  EXPECT_EQ(*std::max_element(u8.values.begin(), u8.values.end()), 4.0);
  EXPECT_GE(*std::min_element(i8.values.begin(), i8.values.end()), -128.0);
  EXPECT_LE(*std::max_element(i8.values.begin(), i8.values.end()), 127.0);
  const HostTensor none = RandomHostTensor(rng, Shape{3}, DataType::kUInt8, -5, -1);
  EXPECT_EQ(none.values, (std::vector<double>{0, 0, 0}));  // no value in range: the clipped end
}

TEST(OptestSbp, BalancedRangesDifferByAtMostOneAndMayBeEmpty) {
  auto sizes = [](int64_t dim, int64_t k) {
    std::vector<int64_t> s;
    int64_t next = 0;
    for (int64_t i = 0; i < k; ++i) {
      const optest::PieceRange r = optest::BalancedRange(dim, k, i);
      EXPECT_EQ(r.begin, next);
      next = r.end;
      s.push_back(r.end - r.begin);
    }
    EXPECT_EQ(next, dim);
    return s;
  };
  EXPECT_EQ(sizes(5, 3), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(sizes(8, 4), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_EQ(sizes(2, 4), (std::vector<int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(sizes(0, 2), (std::vector<int64_t>{0, 0}));
}

TEST(OptestSbp, SliceAndConcatRoundTrip) {
  CaseRng rng(1);
  const HostTensor t = RandomHostTensor(rng, Shape{3, 5, 2}, DataType::kFloat32);
  for (int64_t axis = 0; axis < 3; ++axis) {
    std::vector<HostTensor> pieces;
    for (int64_t i = 0; i < 4; ++i) {
      pieces.push_back(optest::SliceAxis(t, axis, optest::BalancedRange(t.shape[axis], 4, i)));
    }
    const HostTensor back = optest::ConcatAxis(pieces, axis);
    EXPECT_EQ(back.shape, t.shape);
    EXPECT_EQ(back.values, t.values) << "axis " << axis;
  }
}

// Parts are values of the dtype and add up to exactly the whole: floating parts are the whole
// times weights ±2^e summing to 1, some of them of the other sign (not proportional shares).
TEST(OptestSbp, PartialSumPartsAreExactInEveryDtype) {
  for (DataType dtype : {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat64,
                         DataType::kInt8, DataType::kUInt8, DataType::kInt64, DataType::kBool}) {
    const bool floating = IsFloatingDataType(dtype);
    const bool has_negatives = dtype != DataType::kUInt8 && dtype != DataType::kBool;
    for (int64_t k : optest::kSbpPieceCounts) {
      CaseRng rng(static_cast<uint64_t>(k) * 100 + static_cast<uint64_t>(dtype));
      HostTensor t = RandomHostTensor(rng, Shape{64}, dtype, has_negatives ? -4 : 0, 4);
      if (dtype == DataType::kInt8 || dtype == DataType::kUInt8) {
        t.values[0] = dtype == DataType::kInt8 ? -128 : 255;  // the range's ends stay reachable
        t.values[1] = 127;
      }
      if (dtype == DataType::kFloat16) {  // a tiny one has no exact eighth, a huge one no double
        t.values[0] = RoundToDtype(7.9e-5, dtype);
        t.values[1] = RoundToDtype(-60000, dtype);
      }
      const std::vector<HostTensor> parts = optest::PartialSumParts(t, k, rng);
      ASSERT_EQ(parts.size(), static_cast<size_t>(k));
      int64_t sign_flips = 0;
      for (size_t e = 0; e < t.values.size(); ++e) {
        const double v = t.values[e];
        double sum = 0;  // of the parts, or for floating dtypes of the weights (exact)
        for (const HostTensor& p : parts) {
          EXPECT_EQ(p.values[e], RoundToDtype(p.values[e], dtype)) << dtype << " element " << e;
          sum += floating && v != 0 ? p.values[e] / v : p.values[e];
          sign_flips += p.values[e] * v < 0;
        }
        EXPECT_EQ(sum, floating && v != 0 ? 1.0 : v) << dtype << " k=" << k << " element " << e;
      }
      if (floating) {
        EXPECT_GT(sign_flips, 0) << dtype << " k=" << k;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The command line: usage errors and the closing line.

struct CliRun {
  int status = -1;
  std::string output;
};

CliRun RunCli(const std::string& args) {
  CliRun run;
  const std::string command = std::string(OFLITE_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return run;
  }
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;) {
    run.output.append(buffer, n);
  }
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

TEST(OptestCli, UsageErrorsExitTwo) {
  for (const char* args : {"optest --op optest_no_such_op", "optest --dtype float13",
                           "optest --device tpu", "optest --cases 0",
                           // too many to run, and more than int64: refused at once, no memory
                           // sized by the count
                           "optest --cases 1000001", "optest --cases 99999999999999999999"}) {
    const CliRun run = RunCli(args);
    EXPECT_EQ(run.status, 2) << args << "\n" << run.output;
  }
  EXPECT_NE(RunCli("optest --cases 0").output.find("--cases must be 1..1000000, got 0"),
            std::string::npos);
}

TEST(OptestCli, ClosingLineCountsGroupsAndStatusFollowsIt) {
  const CliRun run = RunCli("optest --op transpose --device cpu --dtype float32 --cases 1");
  ASSERT_FALSE(run.output.empty());
  const size_t last = run.output.find_last_of('\n', run.output.size() - 2);
  const std::string closing = run.output.substr(last + 1);
  int passed = -1, failed = -1;
  ASSERT_EQ(std::sscanf(closing.c_str(), "%d passed, %d failed", &passed, &failed), 2)
      << run.output;
  EXPECT_EQ(passed + failed, 1) << run.output;
  EXPECT_EQ(run.status, failed > 0 ? 1 : 0) << run.output;
}

TEST(OptestCli, ListNamesTheOpAndItsDevices) {
  const CliRun run = RunCli("optest --list --op softmax");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "softmax  devices=cpu")) << run.output;
}

}  // namespace
}  // namespace oflite
