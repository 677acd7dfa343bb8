// Where the library's log lines go. By default they go to glog (which, before the host calls
// InitGoogleLogging, prints them on stderr), so a host that uses glog sees them as its own. A host
// with a logger of its own installs a sink with SetLogSink: from then on every line goes to the
// sink and nowhere else. The library never initializes glog itself.
//
// Inside the library (and in user op libraries), OFLITE_LOG(WARNING) << ... writes a line;
// INFO, WARNING, ERROR and FATAL are the severities. A FATAL line, like a failed OFLITE_CHECK,
// reports a broken invariant: it reaches the sink with severity kFatal, then the process aborts.
#ifndef ONEFLOW_LITE_COMMON_LOGGING_H_
#define ONEFLOW_LITE_COMMON_LOGGING_H_

#include <functional>
#include <sstream>
#include <string>
#include <utility>

#include "oneflow_lite/common/scoped_setting.h"

namespace oflite {

enum class LogSeverity : int { kInfo = 0, kWarning = 1, kError = 2, kFatal = 3 };

// "INFO", "WARNING", "ERROR", "FATAL".
const char* LogSeverityName(LogSeverity severity);

// Receives one line: its severity, the source file (as the compiler spelled __FILE__) and line
// that wrote it, and the message (without a trailing newline). It is called on the thread that
// logs, possibly on several threads at once, so it must be thread-safe. A line the library logs
// while a sink runs on the same thread goes to the default sink; an exception a sink throws is
// caught, and its line goes to the default sink instead.
using LogSink = std::function<void(LogSeverity severity, const char* file, int line,
                                   const std::string& message)>;

// Sends the library's log lines to `sink` and returns the sink it replaces (empty when that was
// the default, glog). An empty sink restores the default. It waits for calls in progress to the
// replaced sink: once it returns, that sink is never called again, and whatever it refers to may
// be released. A sink must not call SetLogSink itself.
LogSink SetLogSink(LogSink sink);

// Lines of a lower severity are dropped before they are formatted (default kInfo). Fatal lines
// always reach the sink.
void SetMinLogSeverity(LogSeverity severity);
LogSeverity GetMinLogSeverity();
using ScopedMinLogSeverity = ScopedSetting<LogSeverity, GetMinLogSeverity, SetMinLogSeverity>;

// Installs a sink for a scope and puts back the one it replaced.
class ScopedLogSink {
 public:
  explicit ScopedLogSink(LogSink sink) : previous_(SetLogSink(std::move(sink))) {}
  ScopedLogSink(const ScopedLogSink&) = delete;
  ScopedLogSink& operator=(const ScopedLogSink&) = delete;
  ~ScopedLogSink() { SetLogSink(std::move(previous_)); }

 private:
  LogSink previous_;
};

namespace detail {

bool LogEnabled(LogSeverity severity);
// Sends a line to the current sink.
void SendLogLine(LogSeverity severity, const char* file, int line, const std::string& message);
// Sends a fatal line to the current sink, then aborts.
[[noreturn]] void SendFatalLogLine(const char* file, int line, const std::string& message);

// Collects one line; its destructor sends it.
class LogLine {
 public:
  LogLine(const char* file, int line, LogSeverity severity)
      : file_(file), line_(line), severity_(severity) {}
  LogLine(const LogLine&) = delete;
  LogLine& operator=(const LogLine&) = delete;
  ~LogLine() { SendLogLine(severity_, file_, line_, message_.str()); }

  template <typename T>
  LogLine& operator<<(const T& value) {
    message_ << value;
    return *this;
  }

 private:
  const char* file_;
  int line_;
  LogSeverity severity_;
  std::ostringstream message_;
};

// A fatal line: its destructor sends it and aborts.
class FatalLogLine {
 public:
  FatalLogLine(const char* file, int line) : file_(file), line_(line) {}
  FatalLogLine(const FatalLogLine&) = delete;
  FatalLogLine& operator=(const FatalLogLine&) = delete;
  [[noreturn]] ~FatalLogLine() { SendFatalLogLine(file_, line_, message_.str()); }

  template <typename T>
  FatalLogLine& operator<<(const T& value) {
    message_ << value;
    return *this;
  }

 private:
  const char* file_;
  int line_;
  std::ostringstream message_;
};

}  // namespace detail
}  // namespace oflite

// OFLITE_LOG(WARNING) << "..."; the severity is INFO, WARNING, ERROR or FATAL.
#define OFLITE_LOG(severity) OFLITE_DETAIL_LOG_##severity
// `if (...) {} else`: a following `else` cannot bind to the macro's if.
#define OFLITE_DETAIL_LOG_AT(severity)           \
  if (!::oflite::detail::LogEnabled(severity)) { \
  } else                                         \
    ::oflite::detail::LogLine(__FILE__, __LINE__, severity)
#define OFLITE_DETAIL_LOG_INFO OFLITE_DETAIL_LOG_AT(::oflite::LogSeverity::kInfo)
#define OFLITE_DETAIL_LOG_WARNING OFLITE_DETAIL_LOG_AT(::oflite::LogSeverity::kWarning)
#define OFLITE_DETAIL_LOG_ERROR OFLITE_DETAIL_LOG_AT(::oflite::LogSeverity::kError)
#define OFLITE_DETAIL_LOG_FATAL ::oflite::detail::FatalLogLine(__FILE__, __LINE__)

#endif  // ONEFLOW_LITE_COMMON_LOGGING_H_
