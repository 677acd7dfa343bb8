// Op libraries: ops, kernels and op test specs from outside liboneflow_lite, registered with the
// same macros our own ops use (docs/ADDING_AN_OP.md), either linked in (registered at start-up,
// like ours) or loaded at run time as a plugin:
//   OFLITE_OP_LIBRARY();                                       // once, in the plugin's sources
//   OFLITE_JUST(oflite::LoadOpLibrary("/path/libmy_ops.so"));  // or: oflite --load PATH ...
// What a library's static registrars register is owned by it
// (oneflow_lite/common/registration_owner.h). A load that registers an op, kernel, test spec or
// primitive factory that exists fails, naming the thing and both owners, and undoes all of the
// library's registrations; the library stays mapped but inert (dlclose cannot promise to unload
// it, and code it ran may have left pointers into it), and loading it again gives the same
// error. Other threads may dispatch during a load: the registries are read from snapshots
// without a lock, so built-in ops are never disturbed, but a loading library's ops may appear
// one by one (a failing library's until they are undone). Load an op library after those it
// links (DT_NEEDED): what they register while it loads is counted as its own.
#ifndef ONEFLOW_LITE_FRAMEWORK_OP_LIBRARY_H_
#define ONEFLOW_LITE_FRAMEWORK_OP_LIBRARY_H_

#include <string>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/version.h"

namespace oflite {

// The symbol OFLITE_OP_LIBRARY() defines: it returns the OFLITE_VERSION_STRING the library was
// compiled against.
constexpr const char* kOpLibraryEntrySymbol = "oflite_op_library_version";

// Loads the shared library at `path` (dlopen; a name without '/' is a file in the current
// directory when there is one, else searched as dlopen searches). Loading a library already
// loaded, by any path, does nothing. ValueError with
// dlopen's or dlsym's message when the file is missing or cannot load, or has no entry symbol;
// ValueError when it was compiled against an incompatible version (another major version, or
// for 0.x another minor one) or registers something that exists; ValueError for an empty path.
// The version string is read after dlopen has run the library's registrars: what keeps a
// library built against an incompatible oneflow_lite from running at all is the soname
// (liboneflow_lite.so.MAJOR.MINOR), which the dynamic loader resolves first; the string check
// catches what the soname lets through (a library built against another release of the same
// soname) and names both versions.
Maybe<void> LoadOpLibrary(const std::string& path);

// The real paths of the libraries loaded with LoadOpLibrary, in load order.
std::vector<std::string> LoadedOpLibraries();

// Whether a library compiled against `library_version` ("major.minor.patch") may run with
// this one.
bool IsCompatibleOpLibraryVersion(const std::string& library_version);

}  // namespace oflite

// Marks a shared library as an op library; place it once, at namespace scope, in one of its
// source files.
#define OFLITE_OP_LIBRARY()                                                                   \
  extern "C" __attribute__((visibility("default"))) const char* oflite_op_library_version() { \
    return OFLITE_VERSION_STRING;                                                             \
  }                                                                                           \
  static_assert(true, "")

#endif  // ONEFLOW_LITE_FRAMEWORK_OP_LIBRARY_H_
