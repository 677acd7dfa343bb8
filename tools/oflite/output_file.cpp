#include "tools/oflite/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace oflite {
namespace cli {

namespace {

// How long a FIFO's reader has to appear before the write gives up.
constexpr int kFifoWaitMs = 5000;

std::string SystemError() { return std::strerror(errno); }

Maybe<void> WriteAll(int fd, const std::string& path, const std::vector<std::string_view>& parts) {
  for (std::string_view part : parts) {
    while (!part.empty()) {
      const ssize_t written = write(fd, part.data(), part.size());
      if (written < 0 && errno == EINTR) {
        continue;
      }
      OFLITE_CHECK_OR_RETURN(written > 0, RuntimeError)
          << "cannot write " << path << ": " << SystemError();
      part.remove_prefix(static_cast<size_t>(written));
    }
  }
  return Ok();
}

Maybe<void> CloseChecked(int fd, const std::string& path) {
  OFLITE_CHECK_OR_RETURN(close(fd) == 0, RuntimeError)
      << "cannot write " << path << ": " << SystemError();
  return Ok();
}

void SleepMs(int ms) {
  const timespec pause{0, static_cast<long>(ms) * 1000000L};
  nanosleep(&pause, nullptr);
}

// Opens without blocking: a FIFO whose reader has not come yet (ENXIO) is retried for a while
// instead of waiting forever in open().
Maybe<int> OpenInPlace(const std::string& path) {
  for (int waited = 0;; waited += 20) {
    const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      const int flags = fcntl(fd, F_GETFL);
      if (flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0) {
        return fd;
      }
      close(fd);
    }
    OFLITE_CHECK_OR_RETURN(fd < 0 && errno == ENXIO && waited < kFifoWaitMs, ValueError)
        << "cannot open " << path << " for writing: "
        << (errno == ENXIO
                ? "no reader opened the FIFO within " + std::to_string(kFifoWaitMs) + " ms"
                : SystemError());
    SleepMs(20);
  }
}

// /dev/stdout and /dev/stderr are the process's own descriptors, written where they stand (a
// `>> log` redirection keeps appending; reopening them would start at offset 0), after what the
// streams have buffered.
Maybe<void> WriteStandardStream(int fd, const std::string& path,
                                const std::vector<std::string_view>& parts) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  return WriteAll(fd, path, parts);
}

Maybe<void> WriteInPlace(const std::string& path, const std::vector<std::string_view>& parts) {
  int fd = -1;
  OFLITE_ASSIGN_OR_RETURN(fd, OpenInPlace(path));
  const Maybe<void> written = WriteAll(fd, path, parts);
  if (!written.ok()) {
    close(fd);
    return written;
  }
  return CloseChecked(fd, path);
}

// A new file next to `path`, created with O_EXCL (another name is tried while one exists); the
// kernel applies the umask to `mode` as for any new file.
Maybe<int> CreateTemporary(const std::string& path, mode_t mode, std::string* temp) {
  const size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  for (unsigned attempt = 0;; ++attempt) {
    *temp = folder + "." + name + "." + std::to_string(getpid()) + "." + std::to_string(attempt);
    const int fd = open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0) {
      return fd;
    }
    OFLITE_CHECK_OR_RETURN(errno == EEXIST && attempt < 100, ValueError)
        << "cannot write " << path << ": cannot create a temporary file in "
        << (folder.empty() ? "." : folder) << ": " << SystemError();
  }
}

// `existing`: the target's mode to keep when it exists; a new file gets 0666 less the umask.
Maybe<void> WriteAndRename(const std::string& path, const struct stat* existing,
                           const std::vector<std::string_view>& parts) {
  std::string temp;
  int fd = -1;
  OFLITE_ASSIGN_OR_RETURN(fd, CreateTemporary(path, 0666, &temp));
  Maybe<void> result = WriteAll(fd, path, parts);
  if (result.ok() && existing != nullptr && fchmod(fd, existing->st_mode & 07777) != 0) {
    result = OFLITE_ERROR(RuntimeError) << "cannot write " << path << ": " << SystemError();
  }
  if (!result.ok()) {
    close(fd);
  } else {
    result = CloseChecked(fd, path);
  }
  if (result.ok() && rename(temp.c_str(), path.c_str()) != 0) {
    result = OFLITE_ERROR(RuntimeError)
             << "cannot replace " << path << " with the new file: " << SystemError();
  }
  if (!result.ok()) {
    unlink(temp.c_str());
  }
  return result;
}

}  // namespace

Maybe<void> WriteOutputFile(const std::string& path, const std::vector<std::string_view>& parts) {
  OFLITE_CHECK_OR_RETURN(!path.empty(), ValueError) << "the output path is empty";
  if (path == "/dev/stdout" || path == "/dev/stderr") {
    return WriteStandardStream(path == "/dev/stdout" ? STDOUT_FILENO : STDERR_FILENO, path, parts);
  }
  struct stat target;
  if (stat(path.c_str(), &target) != 0) {
    OFLITE_CHECK_OR_RETURN(errno == ENOENT, ValueError)
        << "cannot write " << path << ": " << SystemError();
    return WriteAndRename(path, nullptr, parts);
  }
  OFLITE_CHECK_OR_RETURN(!S_ISDIR(target.st_mode), ValueError)
      << "cannot write " << path << ": it is a directory";
  if (!S_ISREG(target.st_mode)) {
    return WriteInPlace(path, parts);
  }
  // Renaming needs only the folder's permission: refuse what opening the file would refuse.
  OFLITE_CHECK_OR_RETURN(access(path.c_str(), W_OK) == 0, ValueError)
      << "cannot write " << path << ": " << SystemError();
  char resolved[PATH_MAX];  // a link is followed: the file it names is what gets replaced
  const bool linked = realpath(path.c_str(), resolved) != nullptr;
  return WriteAndRename(linked ? std::string(resolved) : path, &target, parts);
}

}  // namespace cli
}  // namespace oflite
