// What `oflite optest` found: one group per op/device/dtype with its counts and failures, and
// the ways the CLI shows it (summary lines, the closing line, the JSON report).
//
// The closing line counts groups: an op/device/dtype group passes when none of its checks
// failed; an op without a spec is one failed group ("untested").
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_REPORT_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace oflite {
namespace optest {

// The checks a failure can come from.
constexpr const char* kCheckDispatch = "dispatch";      // the whole call failed
constexpr const char* kCheckReference = "reference";    // output vs the spec's reference
constexpr const char* kCheckInfer = "infer";            // registry-inferred shapes/dtypes
constexpr const char* kCheckSbp = "sbp";                // one SBP signature with k pieces
constexpr const char* kCheckInvalid = "invalid";        // an invalid case's error kind
constexpr const char* kCheckCudaVsCpu = "cuda_vs_cpu";  // cuda outputs vs cpu outputs
constexpr const char* kCheckSpec = "spec";              // the spec itself is unusable
constexpr const char* kCheckUntested = "untested";      // the op has no spec
constexpr const char* kCheckException = "exception";    // something threw

struct Failure {
  std::string check;        // one of kCheck*
  int64_t case_index = -1;  // -1: not tied to a case
  uint64_t case_seed = 0;   // the seed the case's generator got
  std::string message;
  std::string reproduce;  // the command line that reruns exactly this case; "" without a case
};

struct Group {
  std::string op;
  std::string device;  // "cpu", "cuda"; "" for an op not run at all
  std::string dtype;   // "" for an op not run at all
  int64_t cases = 0;
  int64_t sbp_checks = 0;      // (signature, k) pairs checked
  int64_t invalid_checks = 0;  // invalid calls made
  std::vector<Failure> failures;

  bool passed() const { return failures.empty(); }
};

struct Report {
  uint64_t seed = 0;
  int64_t cases = 0;                  // per group, unless case_index is set
  std::optional<int64_t> case_index;  // only this case was run
  std::vector<Group> groups;

  int64_t passed() const;  // groups
  int64_t failed() const;  // groups
};

// "PASS softmax cpu float32: 4 cases, 12 sbp checks, 8 invalid checks, 0 failures"; for an op
// not run at all, "FAIL relu: untested (no OpTestSpec is registered for it)".
std::string SummaryLine(const Group& group);
// Two lines: where it failed (case, seeds, check, message), then "    reproduce: <command>".
std::string FailureLines(const Group& group, const Failure& failure, uint64_t seed);
// What the CLI prints of a group: its summary line, then the lines of each failure of a case
// (a failure not tied to a case is in the summary line already).
std::string GroupLines(const Group& group, uint64_t seed);
// "N passed, N failed" over groups.
std::string ClosingLine(const Report& report);
std::string ReportToJson(const Report& report);

}  // namespace optest
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_REPORT_H_
