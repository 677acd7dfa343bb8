#include "oneflow_lite/common/logging.h"

#include <glog/logging.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <shared_mutex>

namespace oflite {

namespace {

struct SinkState {
  // Held shared while a line is sent, exclusively while the sink is replaced.
  std::shared_mutex mutex;
  LogSink sink;  // empty: the default, glog
};

// Never destroyed: a line logged while the process exits still finds it.
SinkState& State() {
  static SinkState* state = new SinkState;
  return *state;
}

std::atomic<int> min_severity{static_cast<int>(LogSeverity::kInfo)};

// Set while this thread runs the installed sink: a line logged from inside it goes to glog.
thread_local bool in_sink = false;

google::LogSeverity ToGlog(LogSeverity severity) {
  switch (severity) {
    case LogSeverity::kInfo:
      return google::GLOG_INFO;
    case LogSeverity::kWarning:
      return google::GLOG_WARNING;
    case LogSeverity::kError:
      return google::GLOG_ERROR;
    case LogSeverity::kFatal:
      break;
  }
  return google::GLOG_FATAL;
}

// The default sink. glog prints a fatal line and aborts through its own failure function.
void SendToGlog(LogSeverity severity, const char* file, int line, const std::string& message) {
  google::LogMessage(file, line, ToGlog(severity)).stream() << message;
}

}  // namespace

const char* LogSeverityName(LogSeverity severity) {
  switch (severity) {
    case LogSeverity::kInfo:
      return "INFO";
    case LogSeverity::kWarning:
      return "WARNING";
    case LogSeverity::kError:
      return "ERROR";
    case LogSeverity::kFatal:
      break;
  }
  return "FATAL";
}

LogSink SetLogSink(LogSink sink) {
  SinkState& state = State();
  std::unique_lock<std::shared_mutex> lock(state.mutex);
  state.sink.swap(sink);
  return sink;
}

void SetMinLogSeverity(LogSeverity severity) {
  min_severity.store(static_cast<int>(severity), std::memory_order_relaxed);
}

LogSeverity GetMinLogSeverity() {
  return static_cast<LogSeverity>(min_severity.load(std::memory_order_relaxed));
}

namespace detail {

bool LogEnabled(LogSeverity severity) {
  return severity == LogSeverity::kFatal ||
         static_cast<int>(severity) >= min_severity.load(std::memory_order_relaxed);
}

void SendLogLine(LogSeverity severity, const char* file, int line, const std::string& message) {
  if (!in_sink) {
    SinkState& state = State();
    std::shared_lock<std::shared_mutex> lock(state.mutex);
    if (state.sink) {
      in_sink = true;
      try {
        state.sink(severity, file, line, message);
        in_sink = false;
        return;
      } catch (...) {
        in_sink = false;  // the line goes to glog below
      }
    }
  }
  SendToGlog(severity, file, line, message);
}

void SendFatalLogLine(const char* file, int line, const std::string& message) {
  SendLogLine(LogSeverity::kFatal, file, line, message);
  std::abort();
}

}  // namespace detail
}  // namespace oflite
