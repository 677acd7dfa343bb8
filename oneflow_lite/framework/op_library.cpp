#include "oneflow_lite/framework/op_library.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>

#include "oneflow_lite/common/registration_owner.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/framework/op_test_spec.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {

namespace {

// Every library dlopen handed us, by handle: dlopen returns the same handle for the same file
// under any path, which is how a second load is recognized.
struct LoadedLibrary {
  std::string owner;  // the real path
  bool ok;
  std::string error;  // why it failed, when !ok
};

struct LibraryTable {
  std::mutex mutex;
  std::map<void*, LoadedLibrary> by_handle;
  std::vector<std::string> loaded;  // real paths of the successful loads, in order
};

LibraryTable& Libraries() {
  static LibraryTable table;
  return table;
}

std::string RealPathOr(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

// dlopen searches the library path for a name without '/'; a file of that name right here is
// what a user typing `oflite --load libmy_ops.so` means.
std::string DlopenPath(const std::string& path) {
  return path.find('/') == std::string::npos && access(path.c_str(), F_OK) == 0 ? "./" + path
                                                                                : path;
}

std::string DlError() {
  const char* message = dlerror();
  return message != nullptr ? message : "unknown dynamic loader error";
}

// dlopen, with what the library's registrars register owned by `owner`; `refusals` gets the
// registrations refused.
void* OpenOwned(const std::string& path, const std::string& owner,
                std::vector<std::string>* refusals) {
  RegistrationScope scope(owner);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  *refusals = scope.refusals();
  return handle;
}

void UndoRegistrations(const std::string& owner) {
  OpRegistry::Global().RemoveOwnedBy(owner);
  KernelRegistry::Global().RemoveOwnedBy(owner);
  OpTestRegistry::Global().RemoveOwnedBy(owner);
  primitive::RemoveFactoriesOwnedBy(owner);
}

// Empty when the freshly opened library is a compatible op library that registered nothing
// that exists; else why not.
std::string CheckLibrary(void* handle, const std::string& owner,
                         const std::vector<std::string>& refusals) {
  dlerror();  // clear any stale message
  using EntryFn = const char* (*)();
  auto entry = reinterpret_cast<EntryFn>(dlsym(handle, kOpLibraryEntrySymbol));
  if (entry == nullptr) {
    return owner + " is not a oneflow_lite op library: " + DlError() +
           " (a plugin defines it with OFLITE_OP_LIBRARY() from oneflow_lite/oneflow_lite.h)";
  }
  const char* reported = entry();
  if (reported == nullptr) {
    return owner + "'s " + kOpLibraryEntrySymbol +
           "() returned a null version string (OFLITE_OP_LIBRARY() returns the version built "
           "against)";
  }
  const std::string version = reported;
  if (!IsCompatibleOpLibraryVersion(version)) {
    return owner + " was compiled against oneflow_lite " + version + ", which cannot run with " +
           "this oneflow_lite " + Version() + " (rebuild it against " + Version() + ")";
  }
  std::string refused;
  for (const std::string& refusal : refusals) {
    refused += (refused.empty() ? "" : "; and ") + refusal;
  }
  return refused.empty() ? "" : owner + " registers " + refused;
}

}  // namespace

bool IsCompatibleOpLibraryVersion(const std::string& library_version) {
  int major = -1;
  int minor = -1;
  if (std::sscanf(library_version.c_str(), "%d.%d", &major, &minor) != 2) {
    return false;
  }
  // Before 1.0 a minor version may change the ABI, after it only a major one.
  return major == OFLITE_VERSION_MAJOR && (major > 0 || minor == OFLITE_VERSION_MINOR);
}

Maybe<void> LoadOpLibrary(const std::string& path) {
  // dlopen("") would hand back the running program itself.
  OFLITE_CHECK_OR_RETURN(!path.empty(), ValueError)
      << "LoadOpLibrary: the path is empty (expected the path of a shared library)";
  LibraryTable& table = Libraries();
  std::lock_guard<std::mutex> lock(table.mutex);
  const std::string dlopen_path = DlopenPath(path);
  const std::string owner = RealPathOr(dlopen_path);
  std::vector<std::string> refusals;
  void* handle = OpenOwned(dlopen_path, owner, &refusals);
  if (handle == nullptr) {
    const std::string message = DlError();
    UndoRegistrations(owner);  // nothing ran, as a rule; if anything did, its code is gone
    return OFLITE_ERROR(ValueError) << "LoadOpLibrary: cannot load " << path << ": " << message;
  }

  auto known = table.by_handle.find(handle);
  if (known != table.by_handle.end()) {  // loaded before: nothing ran again
    dlclose(handle);                     // only drops the reference this dlopen added
    OFLITE_CHECK_OR_RETURN(known->second.ok, ValueError)
        << "LoadOpLibrary: " << known->second.error;
    return Ok();
  }
  std::string problem = CheckLibrary(handle, owner, refusals);
  if (!problem.empty()) {
    UndoRegistrations(owner);  // the library stays mapped, inert (see op_library.h)
    problem += "; nothing it registered was kept";
  }
  table.by_handle[handle] = LoadedLibrary{owner, problem.empty(), problem};
  OFLITE_CHECK_OR_RETURN(problem.empty(), ValueError) << "LoadOpLibrary: " << problem;
  table.loaded.push_back(owner);
  return Ok();
}

std::vector<std::string> LoadedOpLibraries() {
  LibraryTable& table = Libraries();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.loaded;
}

}  // namespace oflite
