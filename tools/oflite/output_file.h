// Files the CLI writes (`run --out`, `optest --json`): whole or not at all.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_OUTPUT_FILE_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_OUTPUT_FILE_H_

#include <string>
#include <string_view>
#include <vector>

#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace cli {

// Writes the parts, in order, to `path`. A regular file (or a new one) is written to a
// temporary file in the same folder, closed with every write checked, then renamed over `path`:
// on any failure `path` keeps what it held and the temporary file is removed. A replaced file
// keeps its permissions (not its owner or other hard links); a link to an existing file is
// followed and stays a link. /dev/stdout and /dev/stderr are written to the process's own
// descriptors; another path that is not a regular file (a FIFO, a device) is written in place,
// a FIFO's reader being waited for up to 5 s. ValueError when the path cannot be opened or
// created (a missing folder, a directory, no permission, no reader), RuntimeError when writing
// fails (a full disk); both name the path and the system's reason.
Maybe<void> WriteOutputFile(const std::string& path, const std::vector<std::string_view>& parts);

}  // namespace cli
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_OUTPUT_FILE_H_
