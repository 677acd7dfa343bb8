// LoadOpLibrary: a good library, the same one twice, a missing file, a file that is no shared
// library, a library without the entry symbol or of another version, and libraries that
// register what exists (a built-in op and kernel; another library's op). The libraries are
// built from tests/plugin/libraries (tests/plugin/plugins.cmake). Each test leaves the process
// as any order of the others expects: loads are idempotent and failed ones stay failed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "oneflow_lite/oneflow_lite.h"
#include "tests/support/test_util.h"
#include "tools/oflite/function_table.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

bool HasOp(const std::string& op_type) {
  const std::vector<std::string> ops = OpRegistry::Global().OpTypes();
  return std::count(ops.begin(), ops.end(), op_type) == 1;
}

bool HasTestSpec(const std::string& op_type) {
  return OpTestRegistry::Global().Find(op_type) != nullptr;
}

bool HasFactory(const std::string& name) {
  for (const primitive::FactoryEntry& entry : primitive::RegisteredFactories()) {
    if (entry.name == name) {
      return true;
    }
  }
  return false;
}

std::string RealPath(const std::string& path) { return std::filesystem::canonical(path).string(); }

// What the registries hold, to check that a failed load changes none of it.
struct RegistrySnapshot {
  std::vector<std::string> ops;
  std::vector<std::string> specs;
  size_t softmax_kernels;
  size_t factories;
  std::vector<std::string> softmax_inputs;

  static RegistrySnapshot Take() {
    const OpSchema* softmax = Unwrap(OpRegistry::Global().Find("softmax"));
    return {OpRegistry::Global().OpTypes(), OpTestRegistry::Global().OpTypes(),
            KernelRegistry::Global().KernelsOf("softmax").size(),
            primitive::RegisteredFactories().size(), softmax->inputs()};
  }
  bool operator==(const RegistrySnapshot& o) const {
    return ops == o.ops && specs == o.specs && softmax_kernels == o.softmax_kernels &&
           factories == o.factories && softmax_inputs == o.softmax_inputs;
  }
};

TEST(OpLibraryTest, LoadsAGoodLibraryAndCallsItsOpByName) {
  ASSERT_TRUE(LoadOpLibrary(OFLITE_TEST_PLUGIN_GOOD).ok());
  EXPECT_TRUE(HasOp("plugin.scale"));
  EXPECT_TRUE(HasTestSpec("plugin.scale"));
  EXPECT_EQ(OpRegistry::Global().OwnerOf("plugin.scale"), RealPath(OFLITE_TEST_PLUGIN_GOOD));
  EXPECT_EQ(OpRegistry::Global().OwnerOf("softmax"), kBuiltinOwner);

  const Tensor x = Unwrap(Tensor::FromVector<double>({1, -2, 3}, Shape{3}));
  const std::vector<Tensor> y = Unwrap(functional::Call("plugin.scale", {x}, {{"factor", 1.5}}));
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(Unwrap(y[0].ToVector<double>()), (std::vector<double>{1.5, -3, 4.5}));
  // The CLI's `run` and `bench` reach it by name too, with its attrs as arguments.
  const cli::FunctionEntry* entry = Unwrap(cli::FindFunction("plugin.scale"));
  const AttrMap attrs = Unwrap(cli::ParseArgs(*entry, {"factor=-1"}));
  EXPECT_EQ(Unwrap(Unwrap(entry->call({x}, attrs)).ToVector<double>()),
            (std::vector<double>{-1, 2, -3}));
}

// A library's op may reuse a built-in's short name in its own namespace: both live, each
// reached by its own name, and the built-in keeps its owner and kernels.
TEST(OpLibraryTest, APluginOpBesideTheBuiltInOfItsShortName) {
  ASSERT_TRUE(LoadOpLibrary(OFLITE_TEST_PLUGIN_SHADOW).ok());
  EXPECT_EQ(OpRegistry::Global().OwnerOf("plugin.softmax"), RealPath(OFLITE_TEST_PLUGIN_SHADOW));
  EXPECT_EQ(OpRegistry::Global().OwnerOf("softmax"), kBuiltinOwner);
  EXPECT_EQ(KernelRegistry::Global().KernelsOf("plugin.softmax").size(), 1u);

  const Tensor x = Unwrap(Tensor::FromVector<double>({1, 2, 4, -1, 0, 1}, Shape{2, 3}));
  const Tensor y = Unwrap(functional::Call("plugin.softmax", {x}, {{"temperature", 2.0}})).at(0);
  // Rows (1, 2, 4) and (-1, 0, 1), computed here: softmax(row / t).
  const auto softmax_rows = [](const std::vector<double>& v, double t) {
    std::vector<double> out(v.size());
    for (size_t r = 0; r < v.size(); r += 3) {
      const double sum = std::exp(v[r] / t) + std::exp(v[r + 1] / t) + std::exp(v[r + 2] / t);
      for (size_t c = r; c < r + 3; ++c) {
        out[c] = std::exp(v[c] / t) / sum;
      }
    }
    return out;
  };
  const std::vector<double> values = {1, 2, 4, -1, 0, 1};
  const auto expect_near = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-12) << i;
    }
  };
  expect_near(Unwrap(y.ToVector<double>()), softmax_rows(values, 2.0));
  // The built-in is untouched: its own kernel, no temperature attribute, the usual result.
  ExpectError(functional::Call("softmax", {x}, {{"temperature", 2.0}}), ErrorKind::kValueError,
              {"softmax: unknown attribute 'temperature'"});
  DispatchTrace trace;
  const Tensor builtin = Unwrap(functional::Call("softmax", {x})).at(0);
  ASSERT_EQ(trace.records().size(), 1u);
  EXPECT_EQ(trace.records()[0].kernel, "SoftmaxKernel");
  expect_near(Unwrap(builtin.ToVector<double>()), softmax_rows(values, 1.0));
  EXPECT_EQ(Unwrap(OpRegistry::Global().Find("plugin.softmax"))->Signature(),
            "plugin.softmax(Tensor x, double temperature=1) -> Tensor y");
}

TEST(OpLibraryTest, LoadingTheSameLibraryAgainByAnyPathDoesNothing) {
  ASSERT_TRUE(LoadOpLibrary(OFLITE_TEST_PLUGIN_GOOD).ok());
  const RegistrySnapshot before = RegistrySnapshot::Take();
  const std::filesystem::path path(OFLITE_TEST_PLUGIN_GOOD);
  const std::string roundabout =
      (path.parent_path() / ".." / path.parent_path().filename() / path.filename()).string();
  ASSERT_TRUE(LoadOpLibrary(OFLITE_TEST_PLUGIN_GOOD).ok());
  ASSERT_TRUE(LoadOpLibrary(roundabout).ok());
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
  EXPECT_TRUE(HasOp("plugin.scale"));
  EXPECT_EQ(KernelRegistry::Global().KernelsOf("plugin.scale").size(), 1u);
  const std::vector<std::string> loaded = LoadedOpLibraries();
  EXPECT_EQ(std::count(loaded.begin(), loaded.end(), RealPath(OFLITE_TEST_PLUGIN_GOOD)), 1);
}

TEST(OpLibraryTest, ABareFileNameIsAFileInTheCurrentDirectory) {
  const std::filesystem::path path(OFLITE_TEST_PLUGIN_GOOD);
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(path.parent_path());
  const Maybe<void> loaded = LoadOpLibrary(path.filename().string());
  std::filesystem::current_path(cwd);
  ASSERT_TRUE(loaded.ok()) << loaded.error().ToString();
  EXPECT_EQ(OpRegistry::Global().OwnerOf("plugin.scale"), RealPath(OFLITE_TEST_PLUGIN_GOOD));
}

TEST(OpLibraryTest, AMissingFileIsAValueErrorWithTheLoadersMessage) {
  const std::string path = "/nonexistent/libno_such_ops.so";
  ExpectError(LoadOpLibrary(path), ErrorKind::kValueError,
              {"LoadOpLibrary: cannot load " + path, "No such file or directory"});
}

TEST(OpLibraryTest, AnEmptyPathIsAValueErrorNotTheRunningProgram) {
  const std::vector<std::string> before = LoadedOpLibraries();
  ExpectError(LoadOpLibrary(""), ErrorKind::kValueError, {"LoadOpLibrary: the path is empty"});
  EXPECT_EQ(LoadedOpLibraries(), before);
}

TEST(OpLibraryTest, AFileThatIsNoSharedLibraryIsAValueError) {
  const std::string path = ::testing::TempDir() + "oflite_not_a_library.so";
  std::ofstream(path) << "not an ELF file\n";
  ExpectError(LoadOpLibrary(path), ErrorKind::kValueError, {"cannot load " + path});
  std::filesystem::remove(path);
}

TEST(OpLibraryTest, ALibraryWithoutTheEntrySymbolIsRefusedAndUndone) {
  const RegistrySnapshot before = RegistrySnapshot::Take();
  for (int attempt = 0; attempt < 2; ++attempt) {  // and stays refused
    ExpectError(LoadOpLibrary(OFLITE_TEST_PLUGIN_NO_ENTRY), ErrorKind::kValueError,
                {RealPath(OFLITE_TEST_PLUGIN_NO_ENTRY), "is not a oneflow_lite op library",
                 "undefined symbol: oflite_op_library_version", "OFLITE_OP_LIBRARY()"});
  }
  EXPECT_FALSE(HasOp("plugin.no_entry"));
  EXPECT_FALSE(HasTestSpec("plugin.no_entry"));
  EXPECT_TRUE(KernelRegistry::Global().KernelsOf("plugin.no_entry").empty());
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
}

TEST(OpLibraryTest, ALibraryOfAnotherVersionIsRefused) {
  ExpectError(LoadOpLibrary(OFLITE_TEST_PLUGIN_OLD_VERSION), ErrorKind::kValueError,
              {"compiled against oneflow_lite 0.0.7", std::string("oneflow_lite ") + Version()});
  EXPECT_FALSE(HasOp("plugin.old_version"));
}

TEST(OpLibraryTest, AnEntryFunctionReturningNullIsAValueErrorNotAThrow) {
  const RegistrySnapshot before = RegistrySnapshot::Take();
  ExpectError(LoadOpLibrary(OFLITE_TEST_PLUGIN_NULL_VERSION), ErrorKind::kValueError,
              {RealPath(OFLITE_TEST_PLUGIN_NULL_VERSION), "returned a null version string",
               "nothing it registered was kept"});
  EXPECT_FALSE(HasOp("plugin.null_version"));
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
}

// Loads that register and undo (a library clashing with built-ins, copied to many paths so
// each copy loads anew) while other threads dispatch built-in ops: no built-in call may fail
// or find softmax owned by another library. tools/test.sh --sanitize runs it under
// ThreadSanitizer too, which the unlocked registries it was written for failed every time.
TEST(OpLibraryTest, LoadingWhileOtherThreadsDispatchFailsNoCall) {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("oflite_plugin_copies_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  constexpr int kLoads = 150;
  std::vector<std::string> copies;
  for (int i = 0; i < kLoads; ++i) {
    copies.push_back(dir + "/libconflict_" + std::to_string(i) + ".so");
    std::filesystem::copy_file(OFLITE_TEST_PLUGIN_CONFLICT, copies.back());
  }
  const Tensor x = Unwrap(Tensor::FromVector<float>({1, 2, 3}, Shape{3}));
  std::atomic<bool> done{false};
  std::atomic<int> calls{0}, failures{0};
  std::string first_failure;
  std::mutex failure_mutex;
  auto dispatch = [&] {
    while (!done.load()) {
      const Maybe<Tensor> sum = functional::Add(x, x);
      const Maybe<Tensor> softmax = functional::Softmax(x, 0);
      // and walks over every registry, through the entries a load adds and removes
      const bool listed = HasOp("add") && HasFactory("softmax") &&
                          KernelRegistry::Global().KernelsOf("softmax").size() == 1;
      const bool ok = sum.ok() && softmax.ok() && listed &&
                      OpRegistry::Global().OwnerOf("softmax") == kBuiltinOwner;
      calls.fetch_add(1);
      if (!ok) {
        failures.fetch_add(1);
        std::lock_guard<std::mutex> lock(failure_mutex);
        first_failure = !sum.ok()       ? sum.error().ToString()
                        : !softmax.ok() ? softmax.error().ToString()
                                        : "a registry listing lost a built-in entry";
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back(dispatch);
  }
  for (const std::string& copy : copies) {
    ExpectError(LoadOpLibrary(copy), ErrorKind::kValueError, {"nothing it registered was kept"});
  }
  done.store(true);
  for (std::thread& thread : threads) {
    thread.join();
  }
  std::filesystem::remove_all(dir);
  EXPECT_GT(calls.load(), 0);
  EXPECT_EQ(failures.load(), 0) << first_failure;
  EXPECT_FALSE(HasOp("plugin.conflict_extra"));
}

TEST(OpLibraryTest, VersionsAreCompatibleWithinAMinorVersionBeforeOnePointZero) {
  EXPECT_TRUE(IsCompatibleOpLibraryVersion(OFLITE_VERSION_STRING));
  EXPECT_TRUE(IsCompatibleOpLibraryVersion(std::to_string(OFLITE_VERSION_MAJOR) + "." +
                                           std::to_string(OFLITE_VERSION_MINOR) + ".99"));
  EXPECT_FALSE(IsCompatibleOpLibraryVersion(std::to_string(OFLITE_VERSION_MAJOR + 1) + ".0.0"));
  EXPECT_FALSE(IsCompatibleOpLibraryVersion("0.0.7"));
  EXPECT_FALSE(IsCompatibleOpLibraryVersion("garbage"));
  EXPECT_EQ(std::string(Version()), OFLITE_VERSION_STRING);
}

TEST(OpLibraryTest, ALibraryRegisteringAnOpWithoutNamespaceOrABuiltInKernelIsRefusedAndUndone) {
  const RegistrySnapshot before = RegistrySnapshot::Take();
  const std::string library = RealPath(OFLITE_TEST_PLUGIN_CONFLICT);
  for (int attempt = 0; attempt < 2; ++attempt) {
    ExpectError(LoadOpLibrary(OFLITE_TEST_PLUGIN_CONFLICT), ErrorKind::kValueError,
                {library + " registers op 'softmax' without a namespace",
                 "kernel 'SoftmaxKernel' of op 'softmax', which is already registered by built-in",
                 "nothing it registered was kept"});
  }
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
  EXPECT_FALSE(HasOp("plugin.conflict_extra"));
  EXPECT_FALSE(HasTestSpec("plugin.conflict_extra"));
  EXPECT_TRUE(KernelRegistry::Global().KernelsOf("plugin.conflict_extra").empty());
  EXPECT_FALSE(HasFactory("plugin_conflict_probe"));
  EXPECT_EQ(OpRegistry::Global().OwnerOf("softmax"), kBuiltinOwner);
  const std::vector<std::string> loaded = LoadedOpLibraries();
  EXPECT_EQ(std::count(loaded.begin(), loaded.end(), library), 0);
}

TEST(OpLibraryTest, TwoLibrariesRegisteringOneOpNameClashNamingBoth) {
  ASSERT_TRUE(LoadOpLibrary(OFLITE_TEST_PLUGIN_GOOD).ok());
  const RegistrySnapshot before = RegistrySnapshot::Take();
  ExpectError(LoadOpLibrary(OFLITE_TEST_PLUGIN_RIVAL), ErrorKind::kValueError,
              {RealPath(OFLITE_TEST_PLUGIN_RIVAL) + " registers op 'plugin.scale', which is " +
                   "already registered by " + RealPath(OFLITE_TEST_PLUGIN_GOOD),
               "op test spec 'plugin.scale'"});
  EXPECT_TRUE(RegistrySnapshot::Take() == before);
  EXPECT_EQ(OpRegistry::Global().OwnerOf("plugin.scale"), RealPath(OFLITE_TEST_PLUGIN_GOOD));
}

TEST(OpLibraryDeathTest, ADuplicateOutsideALoadIsAProgrammingError) {
  // Both registrations built in (linked into the process): nothing could return an error.
  EXPECT_DEATH(OpRegistry::Global().Register(OpSchemaBuilder("softmax").schema()),
               "op 'softmax' is registered twice");
}

}  // namespace
}  // namespace oflite
