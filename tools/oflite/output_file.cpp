#include "tools/oflite/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace oflite {
namespace cli {

namespace {

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

// A FIFO without a reader fails at once (ENXIO) instead of blocking the open.
Maybe<void> WriteInPlace(const std::string& path, const std::vector<std::string_view>& parts) {
  const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  OFLITE_CHECK_OR_RETURN(fd >= 0, ValueError)
      << "cannot open " << path << " for writing: " << SystemError();
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const std::string reason = SystemError();
    close(fd);
    return OFLITE_ERROR(RuntimeError) << "cannot write " << path << ": " << reason;
  }
  const Maybe<void> written = WriteAll(fd, path, parts);
  if (!written.ok()) {
    close(fd);
    return written;
  }
  return CloseChecked(fd, path);
}

// The permissions a new file gets from open(path, O_CREAT, 0666) under the process's umask.
mode_t NewFileMode() {
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

Maybe<void> WriteAndRename(const std::string& path, mode_t mode,
                           const std::vector<std::string_view>& parts) {
  const size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string temp = folder + (slash == std::string::npos ? "/." : ".") + name + ".XXXXXX";
  const int fd = mkostemp(temp.data(), O_CLOEXEC);
  OFLITE_CHECK_OR_RETURN(fd >= 0, ValueError)
      << "cannot write " << path << ": cannot create a temporary file in " << folder << ": "
      << SystemError();
  Maybe<void> result = WriteAll(fd, path, parts);
  if (result.ok() && fchmod(fd, mode) != 0) {
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
  struct stat target;
  if (stat(path.c_str(), &target) != 0) {
    OFLITE_CHECK_OR_RETURN(errno == ENOENT, RuntimeError)
        << "cannot write " << path << ": " << SystemError();
    return WriteAndRename(path, NewFileMode(), parts);
  }
  OFLITE_CHECK_OR_RETURN(!S_ISDIR(target.st_mode), ValueError)
      << "cannot write " << path << ": it is a directory";
  if (!S_ISREG(target.st_mode)) {
    return WriteInPlace(path, parts);
  }
  char resolved[PATH_MAX];  // a link is followed: the file it names is what gets replaced
  const bool linked = realpath(path.c_str(), resolved) != nullptr;
  return WriteAndRename(linked ? std::string(resolved) : path, target.st_mode & 07777, parts);
}

}  // namespace cli
}  // namespace oflite
