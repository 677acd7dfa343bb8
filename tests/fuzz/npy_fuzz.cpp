// libFuzzer target: the .npy reader on arbitrary bytes. Each input becomes an in-memory file
// (memfd) read through npy::Load, and its header text, where one can be cut out, goes to
// npy::ParseHeader too. Errors are expected; a crash, a sanitizer report, a hang or an
// allocation beyond the input's size is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tools/oflite/npy.h"
#include "tools/oflite/npy_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)oflite::npy::ParseHeader(bytes.size() > 10 ? bytes.substr(10) : bytes);
  const int fd = memfd_create("npy_fuzz", MFD_CLOEXEC);
  if (fd < 0) {
    return 0;
  }
  if (write(fd, data, size) == static_cast<ssize_t>(size)) {
    (void)oflite::npy::Load("/proc/self/fd/" + std::to_string(fd));
  }
  close(fd);
  return 0;
}
