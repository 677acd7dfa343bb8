// Log sinks (oneflow_lite/common/logging.h): a sink receives the library's own lines, with
// severity, file, line and message, and nothing reaches stderr meanwhile; restoring the default
// sends lines to glog again; the minimum severity drops lines unformatted; fatal lines and failed
// checks reach the sink before the process aborts; sinks can be swapped while threads log.
#include "oneflow_lite/common/logging.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/ep/num_threads.h"

namespace oflite {
namespace {

struct Line {
  LogSeverity severity;
  std::string file;
  int line;
  std::string message;
};

// A sink that keeps what it receives (tests that use it log from one thread).
LogSink Collect(std::vector<Line>* lines) {
  return [lines](LogSeverity severity, const char* file, int line, const std::string& message) {
    lines->push_back({severity, file, line, message});
  };
}

// In a fresh process, where OFLITE_NUM_THREADS is read for the first time: the library's
// warning about a bad value goes to the sink alone. Prints what arrived for the parent to check.
void ReadABadThreadCountWithASink() {
  setenv("OFLITE_NUM_THREADS", "two", 1);
  std::vector<Line> lines;
  ScopedLogSink sink(Collect(&lines));
  testing::internal::CaptureStderr();
  const int threads = GetNumThreads();
  const std::string err = testing::internal::GetCapturedStderr();
  for (const Line& line : lines) {
    std::fprintf(stderr, "[%s %s:%d %s]", LogSeverityName(line.severity), line.file.c_str(),
                 line.line, line.message.c_str());
  }
  std::fprintf(stderr, " lines=%zu threads_ok=%d stderr=\"%s\"\n", lines.size(), threads >= 1,
               err.c_str());
  std::fflush(stderr);
  std::_Exit(0);
}

TEST(LoggingTest, ASinkReceivesTheLibrarysWarningAndNothingReachesStderr) {
  // "threadsafe" re-executes the test binary for the child: its thread count is not yet read.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(ReadABadThreadCountWithASink(), testing::ExitedWithCode(0),
              "^\\[WARNING [^ ]*ep/cpu/parallel_for\\.cpp:[1-9][0-9]* OFLITE_NUM_THREADS=\"two\" "
              "is not a positive integer; using OpenMP's default\\] lines=1 threads_ok=1 "
              "stderr=\"\"\n$");
}

TEST(LoggingTest, RestoringTheDefaultSendsLinesToGlogAgain) {
  std::vector<Line> lines;
  const LogSink before = SetLogSink(Collect(&lines));
  const int logged_at = __LINE__ + 1;
  OFLITE_LOG(WARNING) << "to the sink";
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].severity, LogSeverity::kWarning);
  EXPECT_NE(lines[0].file.find("logging_test.cpp"), std::string::npos) << lines[0].file;
  EXPECT_EQ(lines[0].line, logged_at);
  EXPECT_EQ(lines[0].message, "to the sink");

  testing::internal::CaptureStderr();
  const LogSink replaced = SetLogSink(nullptr);
  const int glog_line = __LINE__ + 1;
  OFLITE_LOG(WARNING) << "back to glog " << 42;
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(lines.size(), 1u) << "the replaced sink still receives lines";
  EXPECT_NE(err.find("logging_test.cpp:" + std::to_string(glog_line) + "] back to glog 42"),
            std::string::npos)
      << err;
  // SetLogSink returned the sink it replaced: installing it again works as before.
  ASSERT_TRUE(static_cast<bool>(replaced));
  EXPECT_FALSE(static_cast<bool>(SetLogSink(replaced))) << "the default reads as an empty sink";
  OFLITE_LOG(ERROR) << "to the sink again";
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].severity, LogSeverity::kError);
  SetLogSink(before);
}

TEST(LoggingTest, LinesBelowTheMinimumAreDroppedUnformatted) {
  std::vector<Line> lines;
  ScopedLogSink sink(Collect(&lines));
  int formatted = 0;
  auto count = [&formatted]() { return ++formatted; };
  {
    ScopedMinLogSeverity min(LogSeverity::kError);
    EXPECT_EQ(GetMinLogSeverity(), LogSeverity::kError);
    OFLITE_LOG(INFO) << "info " << count();
    OFLITE_LOG(WARNING) << "warning " << count();
    OFLITE_LOG(ERROR) << "error " << count();
  }
  EXPECT_EQ(GetMinLogSeverity(), LogSeverity::kInfo);
  OFLITE_LOG(INFO) << "info again " << count();
  EXPECT_EQ(formatted, 2) << "a dropped line's operands were evaluated";
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].message, "error 1");
  EXPECT_EQ(lines[1].severity, LogSeverity::kInfo);
  EXPECT_EQ(lines[1].message, "info again 2");
}

// Prints what a fatal line brought, so that the death test can match it; returns normally.
void PrintFatal(LogSeverity severity, const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "sink got %s %s:%d %s\n", LogSeverityName(severity), file, line,
               message.c_str());
  std::fflush(stderr);
}

TEST(LoggingDeathTest, FatalLinesReachTheSinkThenTheProcessAborts) {
  EXPECT_DEATH(
      {
        SetLogSink(PrintFatal);
        OFLITE_LOG(FATAL) << "an invariant broke: " << 7;
      },
      "sink got FATAL [^ ]*logging_test\\.cpp:[0-9]+ an invariant broke: 7");
  // A failed OFLITE_CHECK is a fatal line too.
  EXPECT_DEATH(
      {
        SetLogSink(PrintFatal);
        (void)Shape({2, 3}).At(2);
      },
      "sink got FATAL [^ ]*shape\\.h:[0-9]+ check failed: .*Shape::At\\(2\\) of a rank-2 shape");
}

TEST(LoggingTest, ALineLoggedInsideTheSinkGoesToTheDefault) {
  int calls = 0;
  ScopedLogSink sink([&calls](LogSeverity, const char*, int, const std::string& message) {
    ++calls;
    OFLITE_LOG(WARNING) << "while handling '" << message << "'";
  });
  testing::internal::CaptureStderr();
  OFLITE_LOG(WARNING) << "outer";
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(calls, 1);
  EXPECT_NE(err.find("] while handling 'outer'"), std::string::npos) << err;
}

TEST(LoggingTest, ALineWhoseSinkThrowsGoesToTheDefault) {
  ScopedLogSink sink([](LogSeverity, const char*, int, const std::string&) {
    throw std::runtime_error("sink failed");
  });
  testing::internal::CaptureStderr();
  OFLITE_LOG(ERROR) << "kept";
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("] kept"), std::string::npos) << err;
}

// Threads log while the main thread swaps two sinks: every line reaches exactly one of them,
// none reaches stderr, and once SetLogSink returns the sink it replaced gets no more lines.
TEST(LoggingTest, SinksSwapWhileThreadsLog) {
  std::atomic<int64_t> to_a{0};
  std::atomic<int64_t> to_b{0};
  const LogSink sink_a = [&to_a](LogSeverity, const char*, int, const std::string&) {
    to_a.fetch_add(1, std::memory_order_relaxed);
  };
  const LogSink sink_b = [&to_b](LogSeverity, const char*, int, const std::string&) {
    to_b.fetch_add(1, std::memory_order_relaxed);
  };
  testing::internal::CaptureStderr();
  {
    ScopedLogSink scoped(sink_a);
    std::atomic<bool> stop{false};
    std::atomic<int64_t> written{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&stop, &written, t]() {
        while (!stop.load(std::memory_order_relaxed)) {
          OFLITE_LOG(INFO) << "thread " << t;
          written.fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
    // Lines written before the first swap go to sink_a.
    while (written.load() < 100) {
      std::this_thread::yield();
    }
    for (int i = 0; i < 1000; ++i) {
      SetLogSink(i % 2 == 0 ? sink_b : sink_a);
    }
    SetLogSink(sink_b);
    const int64_t a_after = to_a.load();
    const int64_t b_after = to_b.load();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (to_b.load() < b_after + 1000 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    EXPECT_GE(to_b.load(), b_after + 1000) << "the loggers stalled";
    EXPECT_EQ(to_a.load(), a_after) << "a replaced sink was called after SetLogSink returned";
    stop.store(true);
    for (std::thread& thread : threads) {
      thread.join();
    }
    EXPECT_EQ(to_a.load() + to_b.load(), written.load());
    EXPECT_GT(to_a.load(), 0);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace oflite
