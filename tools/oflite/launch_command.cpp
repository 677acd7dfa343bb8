// `oflite launch --nproc N [--timeout S] [--grace S] -- PROGRAM ARGS...`: runs N copies of
// PROGRAM on this host as the ranks of one world (torchrun's variables plus a fresh file
// rendezvous for oflite::dist::Init), prefixes each line they print with "[rank] ", and waits.
// When a rank fails (non-zero exit or a signal), the others get the grace period to notice
// through their own timeouts and report, then are terminated; launch then exits 1 naming the
// rank that failed first and how.
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "oneflow_lite/dist/process_group.h"
#include "tools/oflite/commands.h"

namespace oflite {
namespace cli {

namespace {

using Clock = std::chrono::steady_clock;

// How long a terminated rank has between SIGTERM and SIGKILL.
constexpr double kKillAfterSeconds = 2;
constexpr int kMaxProcesses = 1024;

volatile std::sig_atomic_t g_interrupted = 0;
void OnInterrupt(int signal) { g_interrupted = signal; }

// One stream (stdout or stderr) of one rank: a pipe read without blocking, split into lines.
struct Output {
  int fd = -1;
  int target = STDOUT_FILENO;
  std::string pending;  // a line not ended yet
};

struct Rank {
  pid_t pid = -1;
  bool running = false;
  int status = 0;  // waitpid's, once exited
  bool terminated_by_launch = false;
  Output out;
  Output err;
};

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;
    }
    done += n;
  }
}

// Reads what the pipe holds and forwards each complete line with the rank's prefix; at the end
// of the stream, also the unfinished line. Returns false once the stream has ended.
bool Forward(int rank, Output* output) {
  char buffer[4096];
  const ssize_t n = read(output->fd, buffer, sizeof(buffer));
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
    return true;
  }
  const std::string prefix = "[" + std::to_string(rank) + "] ";
  if (n > 0) {
    output->pending.append(buffer, n);
  }
  std::string lines;
  size_t start = 0;
  for (size_t end; (end = output->pending.find('\n', start)) != std::string::npos;
       start = end + 1) {
    lines += prefix + output->pending.substr(start, end + 1 - start);
  }
  output->pending.erase(0, start);
  if (n <= 0) {  // end of stream (or an error reading it)
    if (!output->pending.empty()) {
      lines += prefix + output->pending + "\n";
      output->pending.clear();
    }
    close(output->fd);
    output->fd = -1;
  }
  WriteAll(output->target, lines);
  return n > 0;
}

std::string DescribeStatus(int status) {
  std::ostringstream text;
  if (WIFEXITED(status)) {
    text << "exited with status " << WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    text << "was killed by signal " << WTERMSIG(status) << " (" << strsignal(WTERMSIG(status))
         << ")";
  } else {
    text << "ended with wait status " << status;
  }
  return text.str();
}

bool Failed(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

// The child side of fork: its environment, its output into the pipes, then PROGRAM.
[[noreturn]] void ExecRank(const LaunchOptions& options, int rank, const std::string& rendezvous,
                           int out_fd, int err_fd, pid_t launcher) {
  setpgid(0, 0);  // its own process group, so that terminating it reaches what it started
  // Ends with launch, however launch ends (even SIGKILL); the check covers a launch that died
  // before the request was made.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != launcher) {
    _exit(128 + SIGTERM);
  }
  // A rank in a background process group that read the terminal would be stopped (SIGTTIN).
  const int null_in = open("/dev/null", O_RDONLY);
  if (null_in >= 0) {
    dup2(null_in, STDIN_FILENO);
    close(null_in);
  }
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  const std::string n = std::to_string(options.nproc);
  setenv("RANK", std::to_string(rank).c_str(), 1);
  setenv("WORLD_SIZE", n.c_str(), 1);
  setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
  setenv("LOCAL_WORLD_SIZE", n.c_str(), 1);
  setenv("OFLITE_RENDEZVOUS", ("file:" + rendezvous).c_str(), 1);
  if (options.timeout > 0) {
    std::ostringstream seconds;
    seconds << options.timeout;
    setenv("OFLITE_DIST_TIMEOUT", seconds.str().c_str(), 1);
  }
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
    std::signal(signal, SIG_DFL);
  }
  std::vector<char*> argv;
  for (const std::string& arg : options.command) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const std::string message =
      "oflite launch: cannot run " + options.command[0] + ": " + std::strerror(errno) + "\n";
  WriteAll(STDERR_FILENO, message);
  _exit(127);
}

// The timeout the ranks will use: --timeout, else theirs from the environment, else the
// default.
double EffectiveTimeout(const LaunchOptions& options) {
  if (options.timeout > 0) {
    return options.timeout;
  }
  Maybe<dist::WorldSpec> spec = dist::ParseWorldSpec([](const char* name) -> const char* {
    return std::strcmp(name, "OFLITE_DIST_TIMEOUT") == 0 ? std::getenv(name) : nullptr;
  });
  return spec.ok() ? spec.value().timeout_seconds : dist::kDefaultTimeoutSeconds;
}

Maybe<void> ValidateLaunchOptions(const LaunchOptions& options) {
  OFLITE_CHECK_OR_RETURN(options.nproc >= 1 && options.nproc <= kMaxProcesses, ValueError)
      << "launch: --nproc " << options.nproc << " is out of range (expected 1.." << kMaxProcesses
      << ")";
  OFLITE_CHECK_OR_RETURN(options.timeout >= 0 && options.timeout <= 1e6, ValueError)
      << "launch: --timeout " << options.timeout << " is out of range (expected seconds, 0..1e6)";
  OFLITE_CHECK_OR_RETURN(options.grace <= 1e6, ValueError)
      << "launch: --grace " << options.grace << " is out of range (expected seconds, 0..1e6)";
  OFLITE_CHECK_OR_RETURN(!options.command.empty(), ValueError)
      << "launch: no program given (expected `oflite launch --nproc N -- PROGRAM ARGS...`)";
  return Ok();
}

}  // namespace

int LaunchCommand(const LaunchOptions& options) {
  const Maybe<void> valid = ValidateLaunchOptions(options);
  if (!valid.ok()) {
    return ReportError(valid.error());
  }
  const double grace = options.grace >= 0 ? options.grace : EffectiveTimeout(options) + 5;

  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp") + "/oflite-launch-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return ReportError(Error(ErrorKind::kRuntimeError,
                             "launch: cannot make a rendezvous "
                             "directory from " +
                                 pattern + ": " + strerror(errno)));
  }
  const std::string rendezvous = pattern;

  struct sigaction interrupt = {};
  interrupt.sa_handler = OnInterrupt;
  // A hang-up (a closed terminal or ssh session) or a quit ends the ranks as an interrupt does;
  // a closed reader of launch's output is a write error, not the end of launch.
  const int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  struct sigaction old_handlers[4] = {};
  for (int i = 0; i < 4; ++i) {
    sigaction(handled[i], &interrupt, &old_handlers[i]);
  }
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_pipe = {};
  sigaction(SIGPIPE, &ignore, &old_pipe);

  std::vector<Rank> ranks(options.nproc);
  std::cout.flush();
  std::cerr.flush();
  for (int r = 0; r < options.nproc; ++r) {
    int out_pipe[2];
    int err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
      ReportError(Error(ErrorKind::kRuntimeError, std::string("launch: pipe: ") + strerror(errno)));
      g_interrupted = SIGTERM;  // terminate the ranks started so far
      break;
    }
    const pid_t launcher = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
      ExecRank(options, r, rendezvous, out_pipe[1], err_pipe[1], launcher);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (pid < 0) {
      close(out_pipe[0]);
      close(err_pipe[0]);
      ReportError(Error(ErrorKind::kRuntimeError, std::string("launch: fork: ") + strerror(errno)));
      g_interrupted = SIGTERM;
      break;
    }
    setpgid(pid, pid);  // also here: no race with the child's own call
    ranks[r].pid = pid;
    ranks[r].running = true;
    ranks[r].out = {out_pipe[0], STDOUT_FILENO, {}};
    ranks[r].err = {err_pipe[0], STDERR_FILENO, {}};
    fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
  }

  int first_failure = -1;
  Clock::time_point failure_time;
  Clock::time_point terminate_time;
  bool terminating = false;
  Clock::time_point all_exited_time;
  bool all_exited = false;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<int, Output*>> owners;
    for (int r = 0; r < options.nproc; ++r) {
      for (Output* output : {&ranks[r].out, &ranks[r].err}) {
        if (output->fd >= 0) {
          fds.push_back({output->fd, POLLIN, 0});
          owners.push_back({r, output});
        }
      }
    }
    if (fds.empty() && all_exited) {
      break;
    }
    // Output a rank's own children keep open does not hold launch for more than a second.
    if (all_exited && Clock::now() - all_exited_time > std::chrono::seconds(1)) {
      for (auto& [r, output] : owners) {
        close(output->fd);
        output->fd = -1;
      }
      break;
    }
    const int ready = poll(fds.data(), fds.size(), 100);
    for (size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      if (fds[i].revents != 0) {
        Forward(owners[i].first, owners[i].second);
      }
    }
    bool any_running = false;
    for (int r = 0; r < options.nproc; ++r) {
      Rank& rank = ranks[r];
      if (!rank.running) {
        continue;
      }
      int status = 0;
      if (waitpid(rank.pid, &status, WNOHANG) == rank.pid) {
        rank.running = false;
        rank.status = status;
        if (Failed(status) && first_failure < 0 && !rank.terminated_by_launch) {
          first_failure = r;
          failure_time = Clock::now();
        }
      } else {
        any_running = true;
      }
    }
    if (!any_running && !all_exited) {
      all_exited = true;
      all_exited_time = Clock::now();
    }
    const bool grace_over =
        first_failure >= 0 && Clock::now() - failure_time > std::chrono::duration<double>(grace);
    if (any_running && !terminating && (grace_over || g_interrupted != 0)) {
      terminating = true;
      terminate_time = Clock::now();
      for (Rank& rank : ranks) {
        if (rank.running) {
          rank.terminated_by_launch = true;
          kill(-rank.pid, SIGTERM);
        }
      }
    }
    if (terminating && any_running &&
        Clock::now() - terminate_time > std::chrono::duration<double>(kKillAfterSeconds)) {
      for (Rank& rank : ranks) {
        if (rank.running) {
          kill(-rank.pid, SIGKILL);
        }
      }
    }
  }
  for (int i = 0; i < 4; ++i) {
    sigaction(handled[i], &old_handlers[i], nullptr);
  }
  sigaction(SIGPIPE, &old_pipe, nullptr);
  std::error_code ignored;
  std::filesystem::remove_all(rendezvous, ignored);

  std::ostringstream report;
  if (first_failure >= 0) {
    report << "launch: rank " << first_failure << " of " << options.nproc << " "
           << DescribeStatus(ranks[first_failure].status);
  } else if (g_interrupted != 0) {
    report << "launch: interrupted by signal " << g_interrupted << " (" << strsignal(g_interrupted)
           << ")";
  }
  std::vector<int> terminated;
  for (int r = 0; r < options.nproc; ++r) {
    if (ranks[r].terminated_by_launch) {
      terminated.push_back(r);
    } else if (r != first_failure && ranks[r].pid > 0 && Failed(ranks[r].status)) {
      report << "; rank " << r << " " << DescribeStatus(ranks[r].status);
    }
  }
  if (!terminated.empty()) {
    report << "; terminated by launch";
    if (first_failure >= 0 && g_interrupted == 0) {
      report << " after the " << grace << " s grace period";
    }
    report << ": rank" << (terminated.size() > 1 ? "s" : "");
    for (size_t i = 0; i < terminated.size(); ++i) {
      report << (i == 0 ? " " : ", ") << terminated[i];
    }
  }
  g_interrupted = 0;
  if (report.tellp() > 0) {
    return ReportError(Error(ErrorKind::kRuntimeError, report.str()));
  }
  return 0;
}

}  // namespace cli
}  // namespace oflite
