// End-to-end tests of the `oflite` binary: each test spawns the real executable, captures its
// stdout, stderr and exit status, and checks results against independent double references.
#include <fcntl.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/proto/op_def.pb.h"
#include "ops/softmax_reference.h"
#include "tests/support/test_util.h"
#include "tools/oflite/npy.h"

extern char** environ;

namespace oflite {
namespace {

// These tests check the CLI's plumbing (files, arguments, dispatch), not kernel precision
// (tests/primitive and tests/functional do that, relatively): values compare on the scale of 1,
// which is also what the demo's 5 printed decimals can show.
void ExpectAllClose(const std::vector<double>& actual, const std::vector<double>& expected,
                    double tol, const std::string& context) {
  test::ExpectAllClose(actual, expected, tol, context, /*floor=*/1.0);
}
using test::MakeTensor;
using test::RandomValues;
using test::RoundTo;
using test::ToDoubles;
using test::Unwrap;

std::string ReadText(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    lines.push_back(line);
  }
  return lines;
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++n;
  }
  return n;
}

struct CliResult {
  bool exited = false;  // false: killed by a signal (a crash)
  int status = -1;      // the exit status when exited
  int signal = 0;
  std::string out;
  std::string err;
  std::string command;  // for failure messages
};

std::ostream& operator<<(std::ostream& os, const CliResult& r) {
  os << "`" << r.command << "` ";
  if (r.exited) {
    os << "exited " << r.status;
  } else {
    os << "killed by signal " << r.signal;
  }
  return os << "\n--- stdout:\n" << r.out << "--- stderr:\n" << r.err;
}

// A fresh directory for one test's files, removed at the end; runs the binary with its output
// captured into files there.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "oflite_cli_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp failed for " << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::string File(const std::string& name) const { return dir_ + "/" + name; }

  CliResult Run(const std::vector<std::string>& args) {
    CliResult result;
    const std::string out_path = File("stdout" + std::to_string(runs_));
    const std::string err_path = File("stderr" + std::to_string(runs_));
    ++runs_;
    std::vector<std::string> argv_strings = {OFLITE_CLI_PATH};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : argv_strings) {
      argv.push_back(arg.data());
      result.command += (result.command.empty() ? "" : " ") + arg;
    }
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(spawned, 0) << "cannot start " << argv[0];
    if (spawned != 0) {
      return result;
    }
    int wait_status = 0;
    EXPECT_EQ(waitpid(pid, &wait_status, 0), pid);
    result.exited = WIFEXITED(wait_status);
    result.status = result.exited ? WEXITSTATUS(wait_status) : -1;
    result.signal = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
    result.out = ReadText(out_path);
    result.err = ReadText(err_path);
    return result;
  }

  // A tensor of `dtype` written to a .npy file in the test's directory.
  std::string WriteInput(const std::string& name, const std::vector<double>& values,
                         const Shape& shape, DataType dtype) {
    const std::string path = File(name);
    const Maybe<void> saved = npy::Save(path, MakeTensor(values, shape, dtype));
    EXPECT_TRUE(saved.ok()) << (saved.ok() ? "" : saved.error().ToString());
    return path;
  }

  // A successful run: status 0, nothing on stderr, and the output file loads.
  Tensor RunAndLoad(const std::vector<std::string>& args, const std::string& out_path) {
    const CliResult r = Run(args);
    EXPECT_TRUE(r.exited && r.status == 0) << r;
    EXPECT_EQ(r.err, "") << r;
    if (!r.exited || r.status != 0) {
      return Tensor();
    }
    return Unwrap(npy::Load(out_path));
  }

  // A failed call: exit status 1, stderr starting "oflite: <kind>: " and holding every
  // fragment, nothing on stdout, no output file left behind.
  void ExpectCallError(const std::vector<std::string>& args, const std::string& kind,
                       const std::vector<std::string>& fragments) {
    const std::string out_path = File("never_written.npy");
    std::vector<std::string> full = args;
    full.push_back("--out");
    full.push_back(out_path);
    const CliResult r = Run(full);
    EXPECT_TRUE(r.exited) << r;
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_TRUE(StartsWith(r.err, "oflite: " + kind + ": ")) << r;
    for (const std::string& fragment : fragments) {
      EXPECT_TRUE(Contains(r.err, fragment)) << "stderr lacks '" << fragment << "'\n" << r;
    }
    EXPECT_EQ(r.out, "") << r;
    EXPECT_FALSE(std::filesystem::exists(out_path)) << "a failed run wrote " << out_path;
  }

  // A usage error: exit status 2 (CLI11 reports it), stderr naming each fragment.
  void ExpectUsageError(const std::vector<std::string>& args,
                        const std::vector<std::string>& fragments) {
    const CliResult r = Run(args);
    EXPECT_TRUE(r.exited) << r;
    EXPECT_EQ(r.status, 2) << r;
    for (const std::string& fragment : fragments) {
      EXPECT_TRUE(Contains(r.err, fragment)) << "stderr lacks '" << fragment << "'\n" << r;
    }
  }

 private:
  std::string dir_;
  int runs_ = 0;
};

// ---------------------------------------------------------------------------------------------
// oflite ops

// The text listing as op name -> the op's indented lines.
std::map<std::string, std::vector<std::string>> OpBlocks(const std::string& text) {
  std::map<std::string, std::vector<std::string>> blocks;
  std::string current;
  for (const std::string& line : Lines(text)) {
    if (line.empty()) {
      continue;
    }
    if (line[0] != ' ') {
      current = line;
      blocks[current];
    } else if (!current.empty()) {
      blocks[current].push_back(line);
    }
  }
  return blocks;
}

// The line "    KERNEL on DEVICE: dtypes" of a block, or "" when it has none.
std::string KernelLine(const std::vector<std::string>& block, const std::string& kernel,
                       const std::string& device) {
  for (const std::string& line : block) {
    if (StartsWith(line, "    " + kernel + " on " + device + ": ")) {
      return line;
    }
  }
  return "";
}

const char* const kFloatingDtypes = "float32, float64, float16, bfloat16";
const char* const kAllDtypes =
    "float32, float64, float16, bfloat16, int8, uint8, int32, int64, bool";

TEST_F(CliTest, OpsListsEveryOpWithItsCpuKernel) {
  const CliResult r = Run({"ops"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  EXPECT_EQ(r.err, "") << r;
  const auto blocks = OpBlocks(r.out);
  struct Expected {
    const char* op;
    const char* inputs;
    const char* kernel;
    const char* dtypes;
  };
  const Expected expected[] = {
      {"softmax", "x", "SoftmaxKernel", kFloatingDtypes},
      {"log_softmax", "x", "LogSoftmaxKernel", kFloatingDtypes},
      {"softmax_grad", "y, dy", "SoftmaxGradKernel", kFloatingDtypes},
      {"log_softmax_grad", "y, dy", "LogSoftmaxGradKernel", kFloatingDtypes},
      {"transpose", "x", "TransposeKernel", kAllDtypes},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.op);
    auto it = blocks.find(e.op);
    ASSERT_NE(it, blocks.end()) << "op missing from the listing\n" << r;
    const std::vector<std::string>& block = it->second;
    EXPECT_NE(std::find(block.begin(), block.end(), std::string("  inputs:  ") + e.inputs),
              block.end())
        << r;
    const std::string cpu = KernelLine(block, e.kernel, "cpu");
    EXPECT_EQ(cpu, std::string("    ") + e.kernel + " on cpu: " + e.dtypes) << r;
  }
}

TEST_F(CliTest, OpsShowsAttributes) {
  const CliResult r = Run({"ops"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  const auto blocks = OpBlocks(r.out);
  ASSERT_EQ(blocks.count("transpose"), 1u) << r;
  const auto& transpose = blocks.at("transpose");
  EXPECT_NE(std::find_if(transpose.begin(), transpose.end(),
                         [](const std::string& l) {
                           return StartsWith(l, "  attrs:") &&
                                  Contains(l, "perm:list_int64=<required>");
                         }),
            transpose.end())
      << r;
  ASSERT_EQ(blocks.count("softmax"), 1u) << r;
  const auto& softmax = blocks.at("softmax");
  EXPECT_NE(std::find(softmax.begin(), softmax.end(), "  outputs: y"), softmax.end()) << r;
}

TEST_F(CliTest, OpsJsonParsesBackIntoOpDefList) {
  const CliResult r = Run({"ops", "--json"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  EXPECT_EQ(r.err, "") << r;
  for (const char* name : {"\"softmax\"", "\"log_softmax\"", "\"softmax_grad\"",
                           "\"log_softmax_grad\"", "\"transpose\"", "\"kernel\""}) {
    EXPECT_TRUE(Contains(r.out, name)) << name << "\n" << r;
  }

  proto::OpDefList list;
  const auto status = google::protobuf::util::JsonStringToMessage(r.out, &list);
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << r;
  std::map<std::string, const proto::OpDef*> ops;
  for (const proto::OpDef& op : list.op()) {
    ops[op.name()] = &op;
  }
  for (const char* name :
       {"softmax", "log_softmax", "softmax_grad", "log_softmax_grad", "transpose"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(ops.count(name), 1u);
    const proto::OpDef& op = *ops.at(name);
    // Every op has a cpu kernel serving float32.
    bool cpu_float32 = false;
    for (const proto::KernelDef& kernel : op.kernel()) {
      if (kernel.device() != "cpu") {
        continue;
      }
      for (int dtype : kernel.data_type()) {
        cpu_float32 = cpu_float32 || static_cast<DataType>(dtype) == DataType::kFloat32;
      }
    }
    EXPECT_TRUE(cpu_float32) << op.DebugString();
  }

  const proto::OpDef& transpose = *ops.at("transpose");
  ASSERT_EQ(transpose.attr_size(), 1) << transpose.DebugString();
  EXPECT_EQ(transpose.attr(0).name(), "perm");
  EXPECT_EQ(transpose.attr(0).type(), "list_int64");
  EXPECT_TRUE(transpose.attr(0).required());
  ASSERT_EQ(transpose.input_size(), 1);
  EXPECT_EQ(transpose.input(0).name(), "x");

  const proto::OpDef& grad = *ops.at("softmax_grad");
  ASSERT_EQ(grad.input_size(), 2);
  EXPECT_EQ(grad.input(0).name(), "y");
  EXPECT_EQ(grad.input(1).name(), "dy");
  ASSERT_EQ(grad.output_size(), 1);
  EXPECT_EQ(grad.output(0).name(), "dx");

  // The transpose cpu kernel serves every dtype, integers included.
  std::set<DataType> transpose_cpu;
  for (const proto::KernelDef& kernel : transpose.kernel()) {
    if (kernel.device() != "cpu") {
      continue;
    }
    EXPECT_EQ(kernel.name(), "TransposeKernel");
    for (int dtype : kernel.data_type()) {
      transpose_cpu.insert(static_cast<DataType>(dtype));
    }
  }
  EXPECT_EQ(transpose_cpu.size(), 9u);
  EXPECT_EQ(transpose_cpu.count(DataType::kInt64), 1u);
  EXPECT_EQ(transpose_cpu.count(DataType::kBool), 1u);
}

// ---------------------------------------------------------------------------------------------
// oflite run: results

TEST_F(CliTest, SoftmaxOverDimZero) {
  const Shape shape = {3, 5};
  const std::vector<double> x = RoundTo(RandomValues(15, 101), DataType::kFloat32);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat32);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "softmax", "--in", in, "--arg", "dim=0", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  EXPECT_EQ(y.shape(), shape);
  EXPECT_EQ(y.dtype(), DataType::kFloat32);
  ExpectAllClose(ToDoubles(y), ReferenceSoftmax(x, shape, 0, false), 1e-5,
                 "softmax dim=0 seed 101");
}

TEST_F(CliTest, SoftmaxDefaultsToTheLastDim) {
  const Shape shape = {4, 6};
  const std::vector<double> x = RoundTo(RandomValues(24, 102), DataType::kFloat32);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat32);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "softmax", "--in", in, "--out", out}, out);
  ASSERT_TRUE(y.defined());
  EXPECT_EQ(y.shape(), shape);
  ExpectAllClose(ToDoubles(y), ReferenceSoftmax(x, shape, 1, false), 1e-5,
                 "softmax default dim seed 102");
  // Each row (the last axis) sums to 1.
  const std::vector<double> values = ToDoubles(y);
  for (int r = 0; r < 4; ++r) {
    double sum = 0;
    for (int c = 0; c < 6; ++c) {
      sum += values[static_cast<size_t>(r * 6 + c)];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << r;
  }
}

TEST_F(CliTest, SoftmaxNegativeDim) {
  const Shape shape = {2, 3, 4};
  const std::vector<double> x = RoundTo(RandomValues(24, 103), DataType::kFloat32);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat32);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "softmax", "--in", in, "--arg", "dim=-2", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  ExpectAllClose(ToDoubles(y), ReferenceSoftmax(x, shape, 1, false), 1e-5,
                 "softmax dim=-2 seed 103");
}

TEST_F(CliTest, LogSoftmaxOverMiddleDim) {
  const Shape shape = {2, 3, 4};
  const std::vector<double> x = RoundTo(RandomValues(24, 104), DataType::kFloat32);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat32);
  const std::string out = File("y.npy");
  const Tensor y =
      RunAndLoad({"run", "log_softmax", "--in", in, "--arg", "dim=1", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  EXPECT_EQ(y.shape(), shape);
  EXPECT_EQ(y.dtype(), DataType::kFloat32);
  ExpectAllClose(ToDoubles(y), ReferenceSoftmax(x, shape, 1, true), 1e-5,
                 "log_softmax dim=1 seed 104");
}

TEST_F(CliTest, LogSoftmaxDefaultDim) {
  const Shape shape = {3, 7};
  const std::vector<double> x = RoundTo(RandomValues(21, 105), DataType::kFloat32);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat32);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "log_softmax", "--in", in, "--out", out}, out);
  ASSERT_TRUE(y.defined());
  ExpectAllClose(ToDoubles(y), ReferenceSoftmax(x, shape, 1, true), 1e-5,
                 "log_softmax default dim seed 105");
}

TEST_F(CliTest, TransposeThreeDims) {
  const Shape shape = {2, 3, 4};
  std::vector<double> x(24);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<double>(i) * 1.5 - 7.0;
  }
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat32);
  const std::string out = File("y.npy");
  const Tensor y =
      RunAndLoad({"run", "transpose", "--in", in, "--arg", "perm=2,0,1", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  // y.shape[i] = x.shape[perm[i]] = (4, 2, 3), and y[a][b][c] = x[b][c][a].
  ASSERT_EQ(y.shape(), Shape({4, 2, 3}));
  EXPECT_EQ(y.dtype(), DataType::kFloat32);
  const std::vector<double> values = ToDoubles(y);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 2; ++b) {
      for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(values[static_cast<size_t>(a * 6 + b * 3 + c)],
                  x[static_cast<size_t>(b * 12 + c * 4 + a)])
            << "y[" << a << "][" << b << "][" << c << "]";
      }
    }
  }
}

TEST_F(CliTest, TransposeAcceptsNegativeAxes) {
  const Shape shape = {2, 3, 4};
  std::vector<double> x(24);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<double>(i);
  }
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat32);
  const std::string out = File("y.npy");
  // -1, 0, 1 is 2, 0, 1.
  const Tensor y =
      RunAndLoad({"run", "transpose", "--in", in, "--arg", "perm=-1,0,1", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  ASSERT_EQ(y.shape(), Shape({4, 2, 3}));
  const std::vector<double> values = ToDoubles(y);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 2; ++b) {
      for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(values[static_cast<size_t>(a * 6 + b * 3 + c)],
                  x[static_cast<size_t>(b * 12 + c * 4 + a)]);
      }
    }
  }
}

TEST_F(CliTest, TransposeInt64Matrix) {
  const std::string path = File("x.npy");
  // 3 x 2 values beyond double precision, so any trip through floating point shows.
  const int64_t big = (int64_t{1} << 60) + 1;
  const std::vector<int64_t> x = {big, -big, 3, big + 2, -5, 6};
  ASSERT_TRUE(npy::Save(path, Unwrap(Tensor::FromVector<int64_t>(x, {3, 2}))).ok());
  const std::string out = File("y.npy");
  const Tensor y =
      RunAndLoad({"run", "transpose", "--in", path, "--arg", "perm=1,0", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  ASSERT_EQ(y.shape(), Shape({2, 3}));
  EXPECT_EQ(y.dtype(), DataType::kInt64);
  EXPECT_EQ(Unwrap(y.ToVector<int64_t>()), (std::vector<int64_t>{big, 3, -5, -big, big + 2, 6}));
}

TEST_F(CliTest, PermuteIsTransposeUnderItsPyTorchName) {
  const Shape shape = {2, 3};
  const std::vector<double> x = {1, 2, 3, 4, 5, 6};
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat64);
  const std::string out = File("y.npy");
  const Tensor y =
      RunAndLoad({"run", "permute", "--in", in, "--arg", "dims=1,0", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  ASSERT_EQ(y.shape(), Shape({3, 2}));
  EXPECT_EQ(ToDoubles(y), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST_F(CliTest, SoftmaxGradTakesTwoInputs) {
  const Shape shape = {3, 8};
  const std::vector<double> y =
      RoundTo(ReferenceSoftmax(RandomValues(24, 106), shape, 1, false), DataType::kFloat32);
  const std::vector<double> dy = RoundTo(RandomValues(24, 107), DataType::kFloat32);
  const std::string y_path = WriteInput("y.npy", y, shape, DataType::kFloat32);
  const std::string dy_path = WriteInput("dy.npy", dy, shape, DataType::kFloat32);
  const std::string out = File("dx.npy");
  const Tensor dx =
      RunAndLoad({"run", "softmax_grad", "--in", y_path, "--in", dy_path, "--out", out}, out);
  ASSERT_TRUE(dx.defined());
  EXPECT_EQ(dx.shape(), shape);
  EXPECT_EQ(dx.dtype(), DataType::kFloat32);
  ExpectAllClose(ToDoubles(dx), ReferenceSoftmaxGrad(y, dy, shape, 1, false), 1e-5,
                 "softmax_grad seeds 106/107");
}

TEST_F(CliTest, SoftmaxGradOverDimZero) {
  const Shape shape = {5, 3};
  const std::vector<double> y =
      RoundTo(ReferenceSoftmax(RandomValues(15, 108), shape, 0, false), DataType::kFloat32);
  const std::vector<double> dy = RoundTo(RandomValues(15, 109), DataType::kFloat32);
  const std::string y_path = WriteInput("y.npy", y, shape, DataType::kFloat32);
  const std::string dy_path = WriteInput("dy.npy", dy, shape, DataType::kFloat32);
  const std::string out = File("dx.npy");
  const Tensor dx = RunAndLoad(
      {"run", "softmax_grad", "--in", y_path, "--in", dy_path, "--arg", "dim=0", "--out", out},
      out);
  ASSERT_TRUE(dx.defined());
  ExpectAllClose(ToDoubles(dx), ReferenceSoftmaxGrad(y, dy, shape, 0, false), 1e-5,
                 "softmax_grad dim=0 seeds 108/109");
}

TEST_F(CliTest, LogSoftmaxGrad) {
  const Shape shape = {4, 5};
  const std::vector<double> y =
      RoundTo(ReferenceSoftmax(RandomValues(20, 110), shape, 1, true), DataType::kFloat64);
  const std::vector<double> dy = RandomValues(20, 111);
  const std::string y_path = WriteInput("y.npy", y, shape, DataType::kFloat64);
  const std::string dy_path = WriteInput("dy.npy", dy, shape, DataType::kFloat64);
  const std::string out = File("dx.npy");
  const Tensor dx =
      RunAndLoad({"run", "log_softmax_grad", "--in", y_path, "--in", dy_path, "--out", out}, out);
  ASSERT_TRUE(dx.defined());
  EXPECT_EQ(dx.dtype(), DataType::kFloat64);
  ExpectAllClose(ToDoubles(dx), ReferenceSoftmaxGrad(y, dy, shape, 1, true), 1e-12,
                 "log_softmax_grad seeds 110/111");
}

TEST_F(CliTest, SoftmaxFloat64) {
  const Shape shape = {3, 9};
  const std::vector<double> x = RandomValues(27, 112);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat64);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "softmax", "--in", in, "--arg", "dim=1", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  EXPECT_EQ(y.dtype(), DataType::kFloat64);
  EXPECT_EQ(y.shape(), shape);
  ExpectAllClose(ToDoubles(y), ReferenceSoftmax(x, shape, 1, false), 1e-12,
                 "softmax float64 seed 112");
}

TEST_F(CliTest, SoftmaxFloat16) {
  const Shape shape = {4, 10};
  const std::vector<double> x = RoundTo(RandomValues(40, 113), DataType::kFloat16);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat16);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "softmax", "--in", in, "--arg", "dim=0", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  EXPECT_EQ(y.dtype(), DataType::kFloat16);
  EXPECT_EQ(y.shape(), shape);
  ExpectAllClose(ToDoubles(y), ReferenceSoftmax(x, shape, 0, false), 1e-3,
                 "softmax float16 seed 113");
}

TEST_F(CliTest, LogSoftmaxFloat16) {
  const Shape shape = {2, 33};
  const std::vector<double> x = RoundTo(RandomValues(66, 114), DataType::kFloat16);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat16);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "log_softmax", "--in", in, "--out", out}, out);
  ASSERT_TRUE(y.defined());
  EXPECT_EQ(y.dtype(), DataType::kFloat16);
  ExpectAllClose(ToDoubles(y), ReferenceSoftmax(x, shape, 1, true), 1e-3,
                 "log_softmax float16 seed 114");
}

TEST_F(CliTest, SoftmaxOfRankZeroIsOne) {
  const std::string in = WriteInput("x.npy", {-3.5}, Shape(), DataType::kFloat32);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "softmax", "--in", in, "--out", out}, out);
  ASSERT_TRUE(y.defined());
  EXPECT_EQ(y.shape(), Shape());
  EXPECT_EQ(ToDoubles(y), std::vector<double>{1.0});
}

TEST_F(CliTest, SoftmaxOfEmptyTensorIsEmpty) {
  const std::string in = WriteInput("x.npy", {}, {0, 4}, DataType::kFloat32);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "softmax", "--in", in, "--arg", "dim=0", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  EXPECT_EQ(y.shape(), Shape({0, 4}));
  EXPECT_EQ(y.elem_cnt(), 0);
}

TEST_F(CliTest, ExplicitCpuDevice) {
  const Shape shape = {2, 3};
  const std::vector<double> x = RoundTo(RandomValues(6, 115), DataType::kFloat32);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat32);
  const std::string out = File("y.npy");
  const Tensor y = RunAndLoad({"run", "softmax", "--in", in, "--device", "cpu", "--out", out}, out);
  ASSERT_TRUE(y.defined());
  ExpectAllClose(ToDoubles(y), ReferenceSoftmax(x, shape, 1, false), 1e-5, "cpu seed 115");
}

TEST_F(CliTest, OutputIsANumpyFile) {
  const std::string in = WriteInput("x.npy", {0, 0}, {1, 2}, DataType::kFloat32);
  const std::string out = File("y.npy");
  ASSERT_TRUE(RunAndLoad({"run", "softmax", "--in", in, "--out", out}, out).defined());
  const std::string bytes = ReadText(out);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header = static_cast<unsigned char>(bytes[8]) |
                        (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  EXPECT_EQ((10 + header) % 64, 0u);
  ASSERT_EQ(bytes.size(), 10 + header + 8);
  const float half = 0.5f;
  EXPECT_EQ(bytes.substr(10 + header), std::string(reinterpret_cast<const char*>(&half), 4) +
                                           std::string(reinterpret_cast<const char*>(&half), 4));
}

// ---------------------------------------------------------------------------------------------
// oflite run: errors

TEST_F(CliTest, MissingInputFile) {
  const std::string missing = File("missing.npy");
  ExpectCallError({"run", "softmax", "--in", missing}, "ValueError", {missing, "cannot open"});
}

TEST_F(CliTest, InputIsADirectory) {
  const std::string dir = File("");
  ExpectCallError({"run", "softmax", "--in", dir}, "ValueError", {dir});
}

TEST_F(CliTest, UnsupportedDtypeFile) {
  const std::string path = File("u2.npy");
  {
    std::string header = "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }";
    while ((10 + header.size() + 1) % 64 != 0) {
      header += ' ';
    }
    header += '\n';
    std::string bytes("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header + std::string(4, '\x01');
    std::ofstream(path, std::ios::binary) << bytes;
  }
  ExpectCallError({"run", "softmax", "--in", path}, "NotImplemented", {path, "'<u2'"});
}

TEST_F(CliTest, NotANumpyFile) {
  const std::string path = File("text.npy");
  std::ofstream(path) << "1 2 3\n";
  ExpectCallError({"run", "softmax", "--in", path}, "ValueError", {path, "not a .npy file"});
}

TEST_F(CliTest, UnknownFunction) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmaxx", "--in", in}, "ValueError",
                  {"unknown function 'softmaxx'", "softmax", "log_softmax", "transpose"});
}

TEST_F(CliTest, UnknownArgumentName) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", in, "--arg", "axis=0"}, "ValueError",
                  {"softmax", "unknown argument 'axis'", "dim"});
}

TEST_F(CliTest, ArgumentWithoutValue) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", in, "--arg", "dim"}, "ValueError",
                  {"'dim'", "NAME=VALUE"});
}

TEST_F(CliTest, BadDimValue) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", in, "--arg", "dim=abc"}, "ValueError",
                  {"softmax", "'dim'", "abc"});
}

TEST_F(CliTest, DimWithTrailingJunk) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", in, "--arg", "dim=1x"}, "ValueError", {"'dim'", "1x"});
}

TEST_F(CliTest, DimBeyondInt64) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", in, "--arg", "dim=99999999999999999999"}, "ValueError",
                  {"'dim'", "99999999999999999999"});
}

TEST_F(CliTest, DimOutOfRange) {
  const std::string in = WriteInput("x.npy", {1, 2, 3, 4, 5, 6}, {2, 3}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", in, "--arg", "dim=2"}, "IndexError",
                  {"softmax", "dim 2", "rank 2"});
}

TEST_F(CliTest, NegativeDimOutOfRange) {
  const std::string in = WriteInput("x.npy", {1, 2, 3, 4, 5, 6}, {2, 3}, DataType::kFloat32);
  ExpectCallError({"run", "log_softmax", "--in", in, "--arg", "dim=-3"}, "IndexError",
                  {"log_softmax", "dim -3", "rank 2"});
}

TEST_F(CliTest, IntegerInputToSoftmax) {
  const std::string in = WriteInput("x.npy", {1, 2, 3}, {3}, DataType::kInt32);
  ExpectCallError({"run", "softmax", "--in", in}, "TypeError", {"softmax", "floating", "int32"});
}

TEST_F(CliTest, BoolInputToLogSoftmax) {
  const std::string in = WriteInput("x.npy", {1, 0}, {2}, DataType::kBool);
  ExpectCallError({"run", "log_softmax", "--in", in}, "TypeError", {"log_softmax", "bool"});
}

TEST_F(CliTest, TransposeRepeatedAxis) {
  const std::string in = WriteInput("x.npy", {1, 2, 3, 4}, {2, 2}, DataType::kFloat32);
  ExpectCallError({"run", "transpose", "--in", in, "--arg", "perm=0,0"}, "ValueError",
                  {"transpose", "repeats axis 0"});
}

TEST_F(CliTest, TransposeAxisOutOfRange) {
  const std::string in = WriteInput("x.npy", {1, 2, 3, 4}, {2, 2}, DataType::kFloat32);
  ExpectCallError({"run", "transpose", "--in", in, "--arg", "perm=0,2"}, "IndexError",
                  {"transpose", "2", "rank 2"});
}

TEST_F(CliTest, TransposePermOfWrongLength) {
  const std::string in = WriteInput("x.npy", {1, 2, 3, 4}, {2, 2}, DataType::kFloat32);
  ExpectCallError({"run", "transpose", "--in", in, "--arg", "perm=1,0,2"}, "ValueError",
                  {"transpose", "3 entries", "rank 2"});
}

TEST_F(CliTest, TransposePermNotAList) {
  const std::string in = WriteInput("x.npy", {1, 2, 3, 4}, {2, 2}, DataType::kFloat32);
  ExpectCallError({"run", "transpose", "--in", in, "--arg", "perm=a,b"}, "ValueError",
                  {"transpose", "'perm'", "list_int64"});
}

TEST_F(CliTest, TransposeWithoutPerm) {
  const std::string in = WriteInput("x.npy", {1, 2, 3, 4}, {2, 2}, DataType::kFloat32);
  ExpectCallError({"run", "transpose", "--in", in}, "ValueError",
                  {"transpose", "missing argument 'perm'", "--arg perm="});
}

TEST_F(CliTest, BenchWithoutRepsIsAValueError) {
  const auto r = Run({"bench", "--sweep", "softmax", "--reps", "0"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("oflite: ValueError: bench: --warmup must be >= 0 and --reps >= 1"),
            std::string::npos)
      << r.err;
}

TEST_F(CliTest, AnUnknownSweepIsAValueErrorNamingTheKnownOnes) {
  const auto r = Run({"bench", "--sweep", "softmax-long", "--device", "cpu"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("oflite: ValueError: bench: unknown sweep 'softmax-long' (known: softmax, "
                       "softmax-shapes)"),
            std::string::npos)
      << r.err;
}

TEST_F(CliTest, BadDeviceString) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", in, "--device", "gpu"}, "ValueError",
                  {"invalid device string 'gpu'"});
}

TEST_F(CliTest, BadDeviceIndex) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", in, "--device", "cuda:x"}, "ValueError",
                  {"invalid device string 'cuda:x'"});
}

TEST_F(CliTest, SecondCpuDevice) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", in, "--device", "cpu:1"}, "ValueError",
                  {"'cpu:1'", "cpu:0"});
}

TEST_F(CliTest, TooManyInputs) {
  const std::string a = WriteInput("a.npy", {1, 2}, {2}, DataType::kFloat32);
  const std::string b = WriteInput("b.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax", "--in", a, "--in", b}, "ValueError",
                  {"softmax", "takes 1 tensor(s)", "got 2"});
}

TEST_F(CliTest, TooFewInputsForGrad) {
  const std::string y = WriteInput("y.npy", {0.5, 0.5}, {2}, DataType::kFloat32);
  ExpectCallError({"run", "softmax_grad", "--in", y}, "ValueError",
                  {"softmax_grad", "takes 2 tensor(s)", "got 1"});
}

TEST_F(CliTest, GradShapeMismatch) {
  const std::string y = WriteInput("y.npy", {0.5, 0.5}, {2}, DataType::kFloat32);
  const std::string dy = WriteInput("dy.npy", {1, 2, 3}, {3}, DataType::kFloat32);
  ExpectCallError({"run", "softmax_grad", "--in", y, "--in", dy}, "ValueError",
                  {"softmax_grad", "same shape", "(2,)", "(3,)"});
}

TEST_F(CliTest, GradDtypeMismatch) {
  const std::string y = WriteInput("y.npy", {0.5, 0.5}, {2}, DataType::kFloat32);
  const std::string dy = WriteInput("dy.npy", {1, 2}, {2}, DataType::kFloat64);
  ExpectCallError({"run", "log_softmax_grad", "--in", y, "--in", dy}, "TypeError",
                  {"log_softmax_grad", "same dtype", "float32", "float64"});
}

TEST_F(CliTest, UnwritableOutput) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  const std::string out = File("no_such_dir/y.npy");
  const CliResult r = Run({"run", "softmax", "--in", in, "--out", out});
  EXPECT_TRUE(r.exited) << r;
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_TRUE(StartsWith(r.err, "oflite: ValueError: ")) << r;
  EXPECT_TRUE(Contains(r.err, out)) << r;
}

// A write that fails exits 1 naming the file, never 0 with a lost output.
TEST_F(CliTest, AFullDeviceAsOutputExitsOne) {
  if (access("/dev/full", W_OK) != 0) {
    GTEST_SKIP() << "no writable /dev/full";
  }
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  const CliResult r = Run({"run", "softmax", "--in", in, "--out", "/dev/full"});
  EXPECT_TRUE(r.exited && r.status == 1) << r;
  EXPECT_TRUE(StartsWith(r.err, "oflite: RuntimeError: cannot write /dev/full")) << r;
  const CliResult json = Run({"optest", "--op", "relu", "--device", "cpu", "--cases", "1",
                              "--dtype", "float32", "--json", "/dev/full"});
  EXPECT_TRUE(json.exited && json.status == 1) << json;
  EXPECT_TRUE(Contains(json.err, "--json: cannot write /dev/full")) << json;
}

// A file-size limit (as a full disk) stops the write part way: the earlier output stays whole.
TEST_F(CliTest, AFailedWriteKeepsTheEarlierOutput) {
  const std::vector<double> values(4096, 1.0);
  const std::string in = WriteInput("x.npy", values, {4096}, DataType::kFloat32);
  const std::string out = File("y.npy");
  RunAndLoad({"run", "softmax", "--in", in, "--out", out}, out);
  const std::string earlier = ReadText(out);
  struct rlimit old_limit;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  struct rlimit small = old_limit;
  small.rlim_cur = 8192;  // the output is 16 KB; stdout and stderr stay far below
  const sighandler_t old_handler = signal(SIGXFSZ, SIG_IGN);  // inherited: EFBIG, not a kill
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const CliResult r = Run({"run", "log_softmax", "--in", in, "--out", out});
  setrlimit(RLIMIT_FSIZE, &old_limit);
  signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(r.exited && r.status == 1) << r;
  EXPECT_TRUE(Contains(r.err, "cannot write " + out)) << r;
  EXPECT_EQ(ReadText(out), earlier);
  size_t temporaries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(File(""))) {
    temporaries += Contains(entry.path().filename().string(), ".y.npy.") ? 1 : 0;
  }
  EXPECT_EQ(temporaries, 0u);
}

// The check lives in the op, so the CLI's call by op name meets it too.
TEST_F(CliTest, IntegerScalarPowToANegativeExponentIsAValueError) {
  const std::string in = WriteInput("x.npy", {2, 3}, {2}, DataType::kInt32);
  ExpectCallError({"run", "scalar_pow", "--in", in, "--arg", "int_operand=-1"}, "ValueError",
                  {"pow", "negative integer powers"});
}

// /dev/stdout is the process's own descriptor: `>> log` appends, nothing replaces the log.
TEST_F(CliTest, OutputToStdoutAppendsUnderARedirection) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  const std::string log = File("log");
  { std::ofstream(log) << "earlier line\n"; }
  const std::string command = "'" + std::string(OFLITE_CLI_PATH) + "' run softmax --in '" + in +
                              "' --out /dev/stdout >> '" + log + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const std::string text = ReadText(log);
  EXPECT_EQ(text.rfind("earlier line\n\x93NUMPY", 0), 0u) << text.substr(0, 40);
}

TEST_F(CliTest, InputFromAPipe) {
  const std::string in = WriteInput("x.npy", {1, 2, 3}, {3}, DataType::kFloat64);
  const std::string out = File("y.npy");
  const std::string command = "cat '" + in + "' | '" + OFLITE_CLI_PATH +
                              "' run softmax --in /dev/stdin --out '" + out + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  ExpectAllClose(ToDoubles(Unwrap(npy::Load(out))), ReferenceSoftmax({1, 2, 3}, Shape{3}, 0, false),
                 1e-12, "softmax from a pipe");
}

// ---------------------------------------------------------------------------------------------
// Usage errors: exit status 2.

TEST_F(CliTest, MissingOutOption) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectUsageError({"run", "softmax", "--in", in}, {"--out"});
}

TEST_F(CliTest, MissingInOption) {
  ExpectUsageError({"run", "softmax", "--out", File("y.npy")}, {"--in"});
}

TEST_F(CliTest, MissingFunction) { ExpectUsageError({"run"}, {"function"}); }

TEST_F(CliTest, NoSubcommand) { ExpectUsageError({}, {}); }

// CLI11 answers "A subcommand is required" here, without naming the word it did not know.
TEST_F(CliTest, UnknownSubcommand) { ExpectUsageError({"frobnicate"}, {"subcommand"}); }

TEST_F(CliTest, UnknownOption) {
  const std::string in = WriteInput("x.npy", {1, 2}, {2}, DataType::kFloat32);
  ExpectUsageError({"run", "softmax", "--in", in, "--out", File("y.npy"), "--bogus"}, {"--bogus"});
}

TEST_F(CliTest, HelpExitsZero) {
  const CliResult r = Run({"--help"});
  EXPECT_TRUE(r.exited && r.status == 0) << r;
  for (const char* sub : {"ops", "run", "demo"}) {
    EXPECT_TRUE(Contains(r.out, sub)) << r;
  }
}

// ---------------------------------------------------------------------------------------------
// oflite demo

// The lines of one demo section: from the line starting with `title` to the next blank line.
std::vector<std::string> DemoSection(const std::string& out, const std::string& title) {
  std::vector<std::string> section;
  bool inside = false;
  for (const std::string& line : Lines(out)) {
    if (!inside) {
      inside = StartsWith(line, title);
      continue;
    }
    if (line.empty()) {
      break;
    }
    section.push_back(line);
  }
  return section;
}

std::vector<std::string> DispatchLines(const std::vector<std::string>& section) {
  std::vector<std::string> dispatches;
  for (const std::string& line : section) {
    if (StartsWith(line, "  dispatch ")) {
      dispatches.push_back(line);
    }
  }
  return dispatches;
}

// The numbers of the "    [a, b, ...]" rows of a section, row-major; the row count in `rows`.
std::vector<double> MatrixValues(const std::vector<std::string>& section, int* rows) {
  std::vector<double> values;
  *rows = 0;
  for (const std::string& line : section) {
    if (!StartsWith(line, "    [")) {
      continue;
    }
    ++*rows;
    std::string inner = line.substr(5, line.rfind(']') - 5);
    std::replace(inner.begin(), inner.end(), ',', ' ');
    std::istringstream stream(inner);
    for (double v; stream >> v;) {
      values.push_back(v);
    }
  }
  return values;
}

TEST_F(CliTest, DemoShowsDispatchesAndCorrectValues) {
  const CliResult r = Run({"demo"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  const bool gpu = ep::DeviceCount(DeviceType::kCUDA) > 0;

  // The input matrix, as printed, is the reference's input.
  const std::vector<std::string> lines = Lines(r.out);
  std::vector<std::string> x_section;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (StartsWith(lines[i], "x ")) {
      for (size_t j = i + 1; j < lines.size() && StartsWith(lines[j], "    ["); ++j) {
        x_section.push_back(lines[j]);
      }
      break;
    }
  }
  int x_rows = 0;
  const std::vector<double> x = MatrixValues(x_section, &x_rows);
  ASSERT_GT(x_rows, 1) << r;
  ASSERT_EQ(x.size() % static_cast<size_t>(x_rows), 0u) << r;
  const Shape shape = {x_rows, static_cast<int64_t>(x.size()) / x_rows};

  struct Section {
    const char* title;
    int64_t dim;
    bool log;
    const char* kernel;
    const char* primitive;
    size_t dispatches;  // a non-last dim is moved last by a transpose, then back
  };
  const Section sections[] = {
      {"softmax(x, dim=0)", 0, false, "SoftmaxKernel", "cpu.softmax<float32>", 3},
      {"softmax(x, dim=-1)", 1, false, "SoftmaxKernel", "cpu.softmax<float32>", 1},
      {"log_softmax(x, dim=-1)", 1, true, "LogSoftmaxKernel", "cpu.log_softmax<float32>", 1},
  };
  for (const Section& s : sections) {
    SCOPED_TRACE(s.title);
    const std::vector<std::string> section = DemoSection(r.out, s.title);
    ASSERT_FALSE(section.empty()) << r;
    const std::vector<std::string> dispatches = DispatchLines(section);
    ASSERT_EQ(dispatches.size(), s.dispatches) << r;
    const std::string& main = dispatches[s.dispatches / 2];
    EXPECT_TRUE(Contains(main, std::string("kernel ") + s.kernel)) << main;
    if (!gpu) {
      EXPECT_TRUE(Contains(main, " on cpu: ")) << main;
      EXPECT_TRUE(Contains(main, std::string("primitive ") + s.primitive)) << main;
    }
    if (s.dispatches == 3) {
      for (const std::string& edge : {dispatches.front(), dispatches.back()}) {
        EXPECT_TRUE(StartsWith(edge, "  dispatch transpose on ")) << edge;
        EXPECT_TRUE(Contains(edge, "kernel TransposeKernel")) << edge;
        if (!gpu) {
          EXPECT_TRUE(Contains(edge, "primitive cpu.permute<float32>")) << edge;
        }
      }
    }
    int rows = 0;
    const std::vector<double> values = MatrixValues(section, &rows);
    EXPECT_EQ(rows, x_rows);
    // Printed with 5 decimals: half a unit in the last place plus float32 error.
    ExpectAllClose(values, ReferenceSoftmax(x, shape, s.dim, s.log), 1e-5, s.title);
  }
}

// ---------------------------------------------------------------------------------------------
// matmul: the function-table entry and the bench's M,N,K shapes and TFLOP/s

TEST_F(CliTest, RunMatMulWithTransposeAndAlpha) {
  const std::vector<double> a = {1, 2, 3, 4, 5, 6};                     // (2, 3)
  const std::vector<double> b = {1, 0, 2, -1, 3, 1, 0, 2, 1, 1, 1, 1};  // (4, 3), used as b^T
  const std::string a_path = WriteInput("a.npy", a, {2, 3}, DataType::kFloat32);
  const std::string b_path = WriteInput("b.npy", b, {4, 3}, DataType::kFloat32);
  const std::string out = File("c.npy");
  const Tensor c = RunAndLoad({"run", "matmul", "--in", a_path, "--in", b_path, "--arg",
                               "transpose_b=true", "--arg", "alpha=0.5", "--out", out},
                              out);
  ASSERT_EQ(c.shape(), Shape({2, 4}));
  std::vector<double> expected(8, 0.0);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int p = 0; p < 3; ++p) {
        expected[i * 4 + j] += 0.5 * a[i * 3 + p] * b[j * 3 + p];
      }
    }
  }
  ExpectAllClose(ToDoubles(c), expected, 1e-6, "matmul");
}

TEST_F(CliTest, BenchMatMulReportsTflops) {
  const CliResult r =
      Run({"bench", "matmul", "--shape", "32,16,8", "--device", "cpu", "--reps", "2", "--warmup",
           "0", "--json", "--arg", "transpose_a=true", "--arg", "allow_tf32=true"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  EXPECT_TRUE(Contains(r.out, "\"function\": \"matmul\", \"shape\": [32, 16, 8]")) << r;
  EXPECT_TRUE(Contains(r.out, "\"input_shapes\": [[8, 32], [8, 16]]")) << r;  // a stored (K,M)
  EXPECT_TRUE(Contains(r.out, "\"tflops\": ")) << r;
  EXPECT_TRUE(Contains(r.out, "cpu.batch_matmul<float32>")) << r;

  const CliResult text = Run({"bench", "matmul", "--shape", "32,16,8", "--device", "cpu", "--reps",
                              "1", "--warmup", "0", "--dtype", "float64"});
  ASSERT_TRUE(text.exited && text.status == 0) << text;
  EXPECT_TRUE(Contains(text.out, "matmul (32, 8) (8, 16) float64 on cpu: ")) << text;
  EXPECT_TRUE(Contains(text.out, " TFLOP/s")) << text;
}

TEST_F(CliTest, BenchOfOtherFunctionsHasNoTflops) {
  const CliResult r = Run({"bench", "add", "--shape", "8,8", "--device", "cpu", "--reps", "1",
                           "--warmup", "0", "--json"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  EXPECT_FALSE(Contains(r.out, "tflops")) << r;
  const CliResult text =
      Run({"bench", "add", "--shape", "8,8", "--device", "cpu", "--reps", "1", "--warmup", "0"});
  EXPECT_FALSE(Contains(text.out, "TFLOP/s")) << text;
}

// `bench copy` copies the bytes of --shape in --dtype: 8 x 8 float16 elements are 128 bytes,
// read and written (256).
TEST_F(CliTest, BenchCopyMovesTheDtypesBytes) {
  const CliResult r = Run({"bench", "copy", "--shape", "8,8", "--dtype", "float16", "--device",
                           "cpu", "--reps", "1", "--warmup", "0", "--json"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  EXPECT_TRUE(Contains(r.out, "\"shape\": [8, 8], \"dtype\": \"float16\"")) << r;
  EXPECT_TRUE(Contains(r.out, "\"bytes\": 256,")) << r;
}

// A rung of the SGEMM ladder runs only as float32 matmul without transposes on CUDA, and only
// in a CUDA build; every other request is refused, naming the impl.
TEST_F(CliTest, BenchSgemmRungRefusesWhatItCannotTime) {
  const CliResult cpu = Run({"bench", "matmul", "--shape", "8,8,8", "--device", "cpu", "--arg",
                             "impl=sgemm_v3", "--reps", "1", "--warmup", "0"});
  EXPECT_EQ(cpu.status, 1) << cpu;
  EXPECT_TRUE(Contains(cpu.err,
                       "oflite: ValueError: bench: impl=sgemm_v3 times float32 matmul "
                       "without transposes on cuda, got matmul float32 on cpu") ||
              Contains(cpu.err,
                       "oflite: NotImplemented: bench: impl=sgemm_v3 is a rung of the "
                       "CUDA SGEMM ladder: this build has no CUDA"))
      << cpu;
  const CliResult unknown = Run({"bench", "matmul", "--shape", "8,8,8", "--device", "cpu", "--arg",
                                 "impl=sgemm_v99", "--reps", "1", "--warmup", "0"});
  EXPECT_EQ(unknown.status, 1) << unknown;
  EXPECT_TRUE(Contains(unknown.err, "unknown impl 'sgemm_v99' (expected cublas, sgemm_v0, ") ||
              Contains(unknown.err, "impl=sgemm_v99 is a rung of the CUDA SGEMM ladder"))
      << unknown;
  const CliResult cublas = Run({"bench", "matmul", "--shape", "8,8,8", "--device", "cpu", "--arg",
                                "impl=cublas", "--reps", "1", "--warmup", "0"});
  EXPECT_EQ(cublas.status, 0) << cublas;  // the runtime's own product, whatever the device
}

TEST_F(CliTest, BenchMatMulErrors) {
  const CliResult shape = Run({"bench", "matmul", "--shape", "4,4", "--device", "cpu"});
  EXPECT_EQ(shape.status, 1) << shape;
  EXPECT_TRUE(StartsWith(shape.err, "oflite: ValueError: bench matmul: --shape is M,N,K")) << shape;
  const CliResult tf32 =
      Run({"bench", "matmul", "--shape", "4,4,4", "--device", "cpu", "--arg", "allow_tf32=maybe"});
  EXPECT_EQ(tf32.status, 1) << tf32;
  EXPECT_TRUE(StartsWith(tf32.err, "oflite: ValueError: bench: --arg allow_tf32: ")) << tf32;
}

// ---------------------------------------------------------------------------------------------
// oflite run --nproc: global tensors across ranks (processes through oflite launch, or with
// --threads threads of one process)

// `args` as they are, then with --threads.
std::vector<std::vector<std::string>> AsProcessesAndThreads(std::vector<std::string> args) {
  std::vector<std::vector<std::string>> both{args};
  args.push_back("--threads");
  both.push_back(args);
  return both;
}

// The product of a (m, k) and b (k, n), row-major, in double.
std::vector<double> Product(const std::vector<double>& a, const std::vector<double>& b, int64_t m,
                            int64_t k, int64_t n) {
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t p = 0; p < k; ++p) {
        c[static_cast<size_t>(i * n + j)] +=
            a[static_cast<size_t>(i * k + p)] * b[static_cast<size_t>(p * n + j)];
      }
    }
  }
  return c;
}

TEST_F(CliTest, RunOnRanksPicksTheSignatureOfTheInputsAndGathersTheResult) {
  const std::vector<double> a = RoundTo(RandomValues(7 * 5, 301), DataType::kFloat32);
  const std::vector<double> b = RoundTo(RandomValues(5 * 4, 302), DataType::kFloat32);
  const std::string a_in = WriteInput("a.npy", a, {7, 5}, DataType::kFloat32);
  const std::string b_in = WriteInput("b.npy", b, {5, 4}, DataType::kFloat32);
  const std::string out = File("c.npy");
  for (const auto& args :
       AsProcessesAndThreads({"run", "matmul", "--in", a_in, "--in", b_in, "--out", out, "--nproc",
                              "2", "--sbp", "a=S(0)", "--verbose"})) {
    std::filesystem::remove(out);
    const CliResult r = Run(args);
    ASSERT_TRUE(r.exited && r.status == 0) << r;
    // 7 rows on 2 ranks: 4 and 3; the rows stay split through the product, then gather.
    EXPECT_TRUE(Contains(r.out, "matmul: a:S(0) b:B out:S(0)")) << r;
    EXPECT_TRUE(Contains(r.out, "S(0) -> B all-gather")) << r;
    const Tensor c = Unwrap(npy::Load(out));
    EXPECT_EQ(c.shape(), (Shape{7, 4}));
    ExpectAllClose(ToDoubles(c), Product(a, b, 7, 5, 4), 1e-5, "matmul a:S(0) on 2 ranks");
  }
}

TEST_F(CliTest, RunOnRanksBoxesAnInputSplitAlongTheSoftmaxAxis) {
  const Shape shape = {4, 9};
  const std::vector<double> x = RoundTo(RandomValues(36, 303), DataType::kFloat32);
  const std::string in = WriteInput("x.npy", x, shape, DataType::kFloat32);
  const std::string out = File("y.npy");
  for (const auto& args :
       AsProcessesAndThreads({"run", "softmax", "--in", in, "--arg", "dim=1", "--out", out,
                              "--nproc", "3", "--sbp", "x=S(1)", "--verbose"})) {
    std::filesystem::remove(out);
    const CliResult r = Run(args);
    ASSERT_TRUE(r.exited && r.status == 0) << r;
    EXPECT_TRUE(Contains(r.out, "S(1) -> S(0) all-to-all")) << r;  // softmax cannot split its axis
    ExpectAllClose(ToDoubles(Unwrap(npy::Load(out))), ReferenceSoftmax(x, shape, 1, false), 1e-5,
                   "softmax dim=1 of x:S(1) on 3 ranks");
  }
}

TEST_F(CliTest, RunOnRanksAddsPartialSums) {
  const std::vector<double> x = RoundTo(RandomValues(10, 304), DataType::kFloat32);
  const std::vector<double> y = RoundTo(RandomValues(10, 305), DataType::kFloat32);
  const std::string x_in = WriteInput("x.npy", x, {2, 5}, DataType::kFloat32);
  const std::string y_in = WriteInput("y.npy", y, {2, 5}, DataType::kFloat32);
  const std::string out = File("z.npy");
  std::vector<double> sum;
  for (size_t i = 0; i < x.size(); ++i) {
    sum.push_back(x[i] + y[i]);
  }
  for (const auto& args :
       AsProcessesAndThreads({"run", "add", "--in", x_in, "--in", y_in, "--out", out, "--nproc",
                              "2", "--sbp", "x=P", "--sbp", "y=P", "--verbose"})) {
    std::filesystem::remove(out);
    const CliResult r = Run(args);
    ASSERT_TRUE(r.exited && r.status == 0) << r;
    EXPECT_TRUE(Contains(r.out, "add: x:P y:P z:P")) << r;  // P + P stays P until the gather
    EXPECT_TRUE(Contains(r.out, "P -> B all-reduce")) << r;
    ExpectAllClose(ToDoubles(Unwrap(npy::Load(out))), sum, 1e-6, "x:P + y:P on 2 ranks");
  }
}

// The gradients take their dim (default -1) on ranks as they do alone: the same file comes out.
TEST_F(CliTest, RunOnRanksTakesTheGradientsDim) {
  const std::string y_in =
      WriteInput("y.npy", RandomValues(12, 307, 0.0, 1.0), {3, 4}, DataType::kFloat32);
  const std::string dy_in = WriteInput("dy.npy", RandomValues(12, 308), {3, 4}, DataType::kFloat32);
  for (const std::string& function :
       {std::string("softmax_grad"), std::string("log_softmax_grad")}) {
    for (const std::vector<std::string>& dim :
         {std::vector<std::string>{}, std::vector<std::string>{"--arg", "dim=0"}}) {
      std::vector<std::string> alone = {"run",  function, "--in",  y_in,
                                        "--in", dy_in,    "--out", File("alone.npy")};
      alone.insert(alone.end(), dim.begin(), dim.end());
      const CliResult local = Run(alone);
      ASSERT_TRUE(local.exited && local.status == 0) << local;
      const std::vector<double> expected = ToDoubles(Unwrap(npy::Load(File("alone.npy"))));
      std::vector<std::string> ranks = alone;
      ranks[7] = File("ranks.npy");
      ranks.insert(ranks.end(), {"--nproc", "2", "--sbp", "y=S(0)"});
      for (const auto& args : AsProcessesAndThreads(ranks)) {
        std::filesystem::remove(File("ranks.npy"));
        const CliResult r = Run(args);
        ASSERT_TRUE(r.exited && r.status == 0) << r;
        ExpectAllClose(ToDoubles(Unwrap(npy::Load(File("ranks.npy")))), expected, 1e-6,
                       function + " on 2 ranks");
      }
    }
  }
}

TEST_F(CliTest, RunOnRanksRefusesABadSbpOnEveryRank) {
  const std::string in = WriteInput("x.npy", RandomValues(6, 306), {2, 3}, DataType::kFloat32);
  const std::string out = File("never.npy");
  const CliResult text =
      Run({"run", "softmax", "--in", in, "--out", out, "--nproc", "2", "--sbp", "x=Q"});
  EXPECT_EQ(text.status, 1) << text;
  EXPECT_TRUE(Contains(text.err, "[0] oflite: ValueError: --sbp: 'Q' is not an SBP")) << text;
  EXPECT_TRUE(Contains(text.err, "[1] oflite: ValueError: --sbp: 'Q' is not an SBP")) << text;
  const CliResult axis =
      Run({"run", "softmax", "--in", in, "--out", out, "--nproc", "2", "--sbp", "x=S(2)"});
  EXPECT_EQ(axis.status, 1) << axis;
  EXPECT_TRUE(Contains(axis.err, "[0] oflite: ")) << axis;
  EXPECT_TRUE(Contains(axis.err, "[1] oflite: ")) << axis;
  EXPECT_TRUE(Contains(axis.err, "axis 2")) << axis;
  const CliResult name =
      Run({"run", "softmax", "--in", in, "--out", out, "--nproc", "2", "--sbp", "y=B"});
  EXPECT_EQ(name.status, 1) << name;
  EXPECT_TRUE(Contains(name.err, "softmax has no tensor 'y' (tensors: x)")) << name;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(CliTest, OptestOnRanksProvesSignaturesWithOnePieceARank) {
  const CliResult r = Run({"optest", "--nproc", "2", "--device", "cpu", "--op", "matmul", "--op",
                           "transpose", "--dtype", "float32", "--cases", "4"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  EXPECT_TRUE(Contains(r.out, "[0] PASS matmul cpu float32: 4 cases")) << r;
  EXPECT_TRUE(Contains(r.out, "[0] 2 passed, 0 failed")) << r;
  EXPECT_FALSE(Contains(r.out, "[1] ")) << r;  // rank 0 alone reports
}

TEST_F(CliTest, OnThreadRanksRank0ReportsAndErrorsComeFromEveryRank) {
  const CliResult r = Run({"optest", "--nproc", "3", "--threads", "--device", "cpu", "--op",
                           "matmul", "--op", "transpose", "--dtype", "float32", "--cases", "4"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  EXPECT_TRUE(StartsWith(r.out, "PASS matmul cpu float32: 4 cases")) << r;
  EXPECT_EQ(Count(r.out, "passed, 0 failed"), 1u) << r;  // one closing line: rank 0's
  const std::string in = WriteInput("x.npy", RandomValues(6, 307), {2, 3}, DataType::kFloat32);
  const CliResult bad = Run({"run", "softmax", "--in", in, "--out", File("never.npy"), "--nproc",
                             "2", "--threads", "--sbp", "x=Q"});
  EXPECT_EQ(bad.status, 1) << bad;
  EXPECT_TRUE(Contains(bad.err, "[0] oflite: ValueError: --sbp: 'Q' is not an SBP")) << bad;
  EXPECT_TRUE(Contains(bad.err, "[1] oflite: ValueError: --sbp: 'Q' is not an SBP")) << bad;
}

TEST_F(CliTest, ThreadsWithoutRanksOrInsideALaunchIsAValueError) {
  const std::string in = WriteInput("x.npy", RandomValues(6, 310), {2, 3}, DataType::kFloat32);
  const std::string out = File("never.npy");
  const CliResult run = Run({"run", "softmax", "--in", in, "--out", out, "--threads"});
  EXPECT_EQ(run.status, 1) << run;
  EXPECT_TRUE(Contains(run.err, "oflite: ValueError: --threads needs --nproc N > 1")) << run;
  const CliResult optest = Run({"optest", "--device", "cpu", "--op", "relu", "--threads"});
  EXPECT_EQ(optest.status, 2) << optest;
  EXPECT_TRUE(Contains(optest.err, "--threads needs --nproc N > 1 (and no --list)")) << optest;
  const CliResult bench =
      Run({"bench", "softmax", "--shape", "4,4", "--device", "cpu", "--threads"});
  EXPECT_EQ(bench.status, 1) << bench;
  EXPECT_TRUE(Contains(bench.err, "--threads needs --global and --nproc N > 1")) << bench;
  const CliResult launched = Run({"launch", "--nproc", "1", "--", OFLITE_CLI_PATH, "run", "softmax",
                                  "--in", in, "--out", out, "--nproc", "2", "--threads"});
  EXPECT_EQ(launched.status, 1) << launched;
  EXPECT_TRUE(Contains(launched.err + launched.out,
                       "--threads inside a launch (RANK is set): its ranks are processes already"))
      << launched;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// One process driving two GPUs, a thread each (needs 2 GPUs).
TEST_F(CliTest, RunOnThreadRanksDrivesTwoGpus) {
  if (ep::DeviceCount(DeviceType::kCUDA) < 2) {
    GTEST_SKIP() << "fewer than 2 GPUs visible";
  }
  const std::vector<double> a = RoundTo(RandomValues(6 * 5, 308), DataType::kFloat32);
  const std::vector<double> b = RoundTo(RandomValues(5 * 8, 309), DataType::kFloat32);
  const std::string a_in = WriteInput("a.npy", a, {6, 5}, DataType::kFloat32);
  const std::string b_in = WriteInput("b.npy", b, {5, 8}, DataType::kFloat32);
  const std::string out = File("c.npy");
  const CliResult r = Run({"run", "matmul", "--in", a_in, "--in", b_in, "--out", out, "--device",
                           "cuda", "--nproc", "2", "--threads", "--sbp", "b=S(1)", "--verbose"});
  ASSERT_TRUE(r.exited && r.status == 0) << r;
  EXPECT_TRUE(Contains(r.out, "matmul: a:B b:S(1) out:S(1)")) << r;
  ExpectAllClose(ToDoubles(Unwrap(npy::Load(out))), Product(a, b, 6, 5, 8), 1e-4,
                 "matmul b:S(1) on 2 GPUs of one process");
}

}  // namespace
}  // namespace oflite
