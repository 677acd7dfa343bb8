// Compiled into the library, so it reports the library's version, whatever headers the
// caller was compiled against.
#include "oneflow_lite/version.h"

namespace oflite {

const char* Version() { return OFLITE_VERSION_STRING; }

}  // namespace oflite
