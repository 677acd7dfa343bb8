#include "tools/oflite/optest_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace oflite {
namespace optest {

namespace {

std::string Plural(int64_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string FailureJson(const Failure& f) {
  std::ostringstream out;
  out << "{\"check\": " << JsonString(f.check) << ", \"case\": " << f.case_index
      << ", \"case_seed\": " << JsonString(Hex(f.case_seed))
      << ", \"message\": " << JsonString(f.message)
      << ", \"reproduce\": " << JsonString(f.reproduce) << "}";
  return out.str();
}

std::string GroupJson(const Group& g) {
  std::ostringstream out;
  out << "    {\"op\": " << JsonString(g.op) << ", \"device\": " << JsonString(g.device)
      << ", \"dtype\": " << JsonString(g.dtype)
      << ", \"passed\": " << (g.passed() ? "true" : "false") << ", \"cases\": " << g.cases
      << ", \"sbp_checks\": " << g.sbp_checks << ", \"invalid_checks\": " << g.invalid_checks
      << ", \"failures\": [";
  for (size_t i = 0; i < g.failures.size(); ++i) {
    out << (i ? ",\n      " : "\n      ") << FailureJson(g.failures[i]);
  }
  out << (g.failures.empty() ? "]}" : "\n    ]}");
  return out.str();
}

}  // namespace

int64_t Report::passed() const {
  return std::count_if(groups.begin(), groups.end(), [](const Group& g) { return g.passed(); });
}

int64_t Report::failed() const { return static_cast<int64_t>(groups.size()) - passed(); }

std::string SummaryLine(const Group& group) {
  if (group.device.empty() && !group.failures.empty()) {  // the op did not run at all
    const Failure& f = group.failures.front();
    return "FAIL " + group.op + ": " +
           (f.check == kCheckUntested ? "untested (" + f.message + ")"
                                      : f.check + ": " + f.message);
  }
  return std::string(group.passed() ? "PASS " : "FAIL ") + group.op + " " + group.device + " " +
         group.dtype + ": " + Plural(group.cases, "case") + ", " +
         Plural(group.sbp_checks, "sbp check") + ", " +
         Plural(group.invalid_checks, "invalid check") + ", " +
         Plural(static_cast<int64_t>(group.failures.size()), "failure");
}

std::string FailureLines(const Group& group, const Failure& failure, uint64_t seed) {
  std::string text = "  " + group.op;
  if (!group.device.empty()) {
    text += " " + group.device + " " + group.dtype;
  }
  if (failure.case_index >= 0) {
    text += " case " + std::to_string(failure.case_index) + " (seed " + std::to_string(seed) +
            ", case seed " + Hex(failure.case_seed) + ")";
  }
  text += ": " + failure.check + ": " + failure.message + "\n";
  if (!failure.reproduce.empty()) {
    text += "    reproduce: " + failure.reproduce + "\n";
  }
  return text;
}

std::string GroupLines(const Group& group, uint64_t seed) {
  std::string text = SummaryLine(group) + "\n";
  for (const Failure& failure : group.failures) {
    if (failure.case_index >= 0) {
      text += FailureLines(group, failure, seed);
    }
  }
  return text;
}

std::string ClosingLine(const Report& report) {
  return std::to_string(report.passed()) + " passed, " + std::to_string(report.failed()) +
         " failed";
}

std::string ReportToJson(const Report& report) {
  std::ostringstream out;
  out << "{\n  \"seed\": " << report.seed << ",\n  \"cases\": " << report.cases << ",\n  \"case\": "
      << (report.case_index.has_value() ? std::to_string(*report.case_index) : "null")
      << ",\n  \"passed\": " << report.passed() << ",\n  \"failed\": " << report.failed()
      << ",\n  \"groups\": [";
  for (size_t i = 0; i < report.groups.size(); ++i) {
    out << (i ? ",\n" : "\n") << GroupJson(report.groups[i]);
  }
  out << (report.groups.empty() ? "]\n}\n" : "\n  ]\n}\n");
  return out.str();
}

}  // namespace optest
}  // namespace oflite
