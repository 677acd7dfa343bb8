// The registry listing: every op, kernel and primitive the library ships is registered, and
// the op catalog generated from the registries lists them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/primitive/primitive.h"
#include "oneflow_lite/proto/op_catalog.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

// interpreter_test.cpp, linked into this same binary, registers ops and kernels of its own whose
// names start with "test_"; the listing ignores those and nothing else.
bool IsTestOp(const std::string& name) { return name.rfind("test_", 0) == 0; }

const std::vector<std::string> kElementwiseBinaryOps = {
    "add",       "div",     "eq",       "ge",  "gelu_grad", "gt",  "le",        "leaky_relu_grad",
    "lt",        "maximum", "minimum",  "mul", "ne",        "pow", "relu_grad", "sigmoid_grad",
    "silu_grad", "sub",     "tanh_grad"};
const std::vector<std::string> kElementwiseUnaryOps = {"abs",     "exp",  "gelu", "leaky_relu",
                                                       "log",     "neg",  "relu", "rsqrt",
                                                       "sigmoid", "silu", "sqrt", "tanh"};

// The tensor-scalar forms of the binary ops that are not gradients.
const std::vector<std::string> kScalarBinaryOps = {
    "scalar_add", "scalar_div", "scalar_eq",      "scalar_ge",      "scalar_gt",
    "scalar_le",  "scalar_lt",  "scalar_maximum", "scalar_minimum", "scalar_mul",
    "scalar_ne",  "scalar_pow", "scalar_sub"};

// Every op the library registers, sorted.
const std::vector<std::string> kShippedOps = [] {
  std::vector<std::string> ops = {
      "batch_matmul", "cast",    "fused_matmul_bias_act", "log_softmax", "log_softmax_grad",
      "matmul",       "softmax", "softmax_grad",          "transpose"};
  ops.insert(ops.end(), kElementwiseBinaryOps.begin(), kElementwiseBinaryOps.end());
  ops.insert(ops.end(), kElementwiseUnaryOps.begin(), kElementwiseUnaryOps.end());
  ops.insert(ops.end(), kScalarBinaryOps.begin(), kScalarBinaryOps.end());
  std::sort(ops.begin(), ops.end());
  return ops;
}();

const std::map<std::string, std::string>& KernelNames() {
  static const std::map<std::string, std::string> names = [] {
    std::map<std::string, std::string> m = {{"softmax", "SoftmaxKernel"},
                                            {"log_softmax", "LogSoftmaxKernel"},
                                            {"softmax_grad", "SoftmaxGradKernel"},
                                            {"log_softmax_grad", "LogSoftmaxGradKernel"},
                                            {"transpose", "TransposeKernel"},
                                            {"cast", "CastKernel"},
                                            {"matmul", "MatmulKernel"},
                                            {"batch_matmul", "BatchMatmulKernel"},
                                            {"fused_matmul_bias_act", "FusedMatmulBiasActKernel"}};
    for (const std::string& op : kElementwiseBinaryOps) {
      m[op] = "BroadcastElementwiseBinaryKernel";
    }
    for (const std::string& op : kElementwiseUnaryOps) {
      m[op] = "ElementwiseUnaryKernel";
    }
    for (const std::string& op : kScalarBinaryOps) {
      m[op] = "ScalarBinaryKernel";
    }
    return m;
  }();
  return names;
}

const std::vector<DataType> kFloating = {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16,
                                         DataType::kBFloat16};
const std::vector<DataType> kAll = {DataType::kFloat32,  DataType::kFloat64, DataType::kFloat16,
                                    DataType::kBFloat16, DataType::kInt8,    DataType::kUInt8,
                                    DataType::kInt32,    DataType::kInt64,   DataType::kBool};

std::set<DataType> AsSet(const std::vector<DataType>& dtypes) {
  return std::set<DataType>(dtypes.begin(), dtypes.end());
}

// What the CPU serves per op, as PyTorch has it: transpose and cast take every dtype, softmax
// and the matrix products (matmul, batch_matmul, fused_matmul_bias_act) the floating ones; bool
// lacks sub, pow, neg, abs and relu; div, the gradients and the transcendental unary ops are
// floating only (the functional calls promote integers).
std::set<DataType> ExpectedCpuDtypes(std::string op) {
  if (op.rfind("scalar_", 0) == 0) {
    op = op.substr(7);  // the tensor-scalar form serves what the op does
  }
  const std::set<std::string> all = {"transpose", "cast", "add", "mul", "maximum", "minimum",
                                     "eq",        "ne",   "lt",  "le",  "gt",      "ge"};
  const std::set<std::string> not_bool = {"sub", "pow", "neg", "abs", "relu"};
  if (all.count(op)) {
    return AsSet(kAll);
  }
  if (not_bool.count(op)) {
    std::set<DataType> s = AsSet(kAll);
    s.erase(DataType::kBool);
    return s;
  }
  return AsSet(kFloating);
}

// Dtypes any kernel of op_type serves on the CPU.
std::set<DataType> CpuDtypes(const std::string& op_type) {
  const OpSchema* schema = Unwrap(OpRegistry::Global().Find(op_type));
  std::set<DataType> served;
  for (const KernelRegistration& kernel : KernelRegistry::Global().KernelsOf(op_type)) {
    for (DataType d : KernelRegistry::Global().ServedDataTypes(kernel, DeviceType::kCPU, *schema)) {
      served.insert(d);
    }
  }
  return served;
}

TEST(RegistryTest, OpTypesAreExactlyTheShippedOps) {
  std::vector<std::string> ops = OpRegistry::Global().OpTypes();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  ops.erase(std::remove_if(ops.begin(), ops.end(), IsTestOp), ops.end());
  EXPECT_EQ(ops, kShippedOps);
}

TEST(RegistryTest, EachOpIsFoundWithItsSchema) {
  struct Args {
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
  };
  std::map<std::string, Args> expected = {
      {"softmax", {{"x"}, {"y"}}},
      {"log_softmax", {{"x"}, {"y"}}},
      {"softmax_grad", {{"y", "dy"}, {"dx"}}},
      {"log_softmax_grad", {{"y", "dy"}, {"dx"}}},
      {"transpose", {{"x"}, {"y"}}},
      {"cast", {{"x"}, {"y"}}},
      {"matmul", {{"a", "b"}, {"out"}}},
      {"batch_matmul", {{"a", "b"}, {"out"}}},
      {"fused_matmul_bias_act", {{"a", "b", "bias"}, {"out"}}},
  };
  for (const std::string& op : kElementwiseUnaryOps) {
    expected[op] = {{"x"}, {"y"}};
  }
  for (const std::string& op : kElementwiseBinaryOps) {
    expected[op] = {{"x", "y"}, {"z"}};
  }
  for (const std::string& op : kScalarBinaryOps) {
    expected[op] = {{"x"}, {"y"}};
  }
  for (const char* op : {"relu_grad", "sigmoid_grad", "tanh_grad"}) {
    expected[op] = {{"dy", "y"}, {"dx"}};  // from the forward output
  }
  for (const char* op : {"gelu_grad", "silu_grad", "leaky_relu_grad"}) {
    expected[op] = {{"dy", "x"}, {"dx"}};  // from the forward input
  }
  for (const std::string& op : kShippedOps) {
    const OpSchema* schema = Unwrap(OpRegistry::Global().Find(op));
    ASSERT_NE(schema, nullptr);
    EXPECT_EQ(schema->name(), op);
    EXPECT_EQ(schema->inputs(), expected.at(op).inputs) << op;
    EXPECT_EQ(schema->outputs(), expected.at(op).outputs) << op;
  }
  const OpSchema* transpose = Unwrap(OpRegistry::Global().Find("transpose"));
  ASSERT_EQ(transpose->attrs().size(), 1u);
  EXPECT_EQ(transpose->attrs()[0].name, "perm");
  EXPECT_EQ(transpose->attrs()[0].type, AttrType::kListInt64);
  EXPECT_FALSE(transpose->attrs()[0].default_value.has_value());
  for (const char* op : {"softmax", "log_softmax", "softmax_grad", "log_softmax_grad"}) {
    EXPECT_TRUE(Unwrap(OpRegistry::Global().Find(op))->attrs().empty()) << op;
  }
}

TEST(RegistryTest, MatrixProductsHaveTheirAttrsAndServeTheFloatingDtypesOnCpu) {
  for (const char* op : {"matmul", "batch_matmul"}) {
    const OpSchema* schema = Unwrap(OpRegistry::Global().Find(op));
    ASSERT_EQ(schema->attrs().size(), 3u) << op;
    EXPECT_EQ(schema->attrs()[0].name, "transpose_a");
    EXPECT_EQ(schema->attrs()[0].type, AttrType::kBool);
    EXPECT_EQ(schema->attrs()[1].name, "transpose_b");
    EXPECT_EQ(schema->attrs()[1].type, AttrType::kBool);
    EXPECT_EQ(schema->attrs()[2].name, "alpha");
    EXPECT_EQ(schema->attrs()[2].type, AttrType::kDouble);
    const AttrMap defaults = Unwrap(schema->CompleteAttrs(AttrMap()));
    EXPECT_FALSE(Unwrap(defaults.Get<bool>("transpose_a"))) << op;
    EXPECT_FALSE(Unwrap(defaults.Get<bool>("transpose_b"))) << op;
    EXPECT_EQ(Unwrap(defaults.Get<double>("alpha")), 1.0) << op;
    EXPECT_EQ(CpuDtypes(op), AsSet(kFloating)) << op;
  }
}

TEST(RegistryTest, FusedMatmulBiasActHasItsAttrsAndServesTheFloatingDtypesOnCpu) {
  const OpSchema* schema = Unwrap(OpRegistry::Global().Find("fused_matmul_bias_act"));
  ASSERT_EQ(schema->attrs().size(), 4u);
  EXPECT_EQ(schema->attrs()[0].name, "transpose_a");
  EXPECT_EQ(schema->attrs()[0].type, AttrType::kBool);
  EXPECT_EQ(schema->attrs()[1].name, "transpose_b");
  EXPECT_EQ(schema->attrs()[1].type, AttrType::kBool);
  EXPECT_EQ(schema->attrs()[2].name, "activation");
  EXPECT_EQ(schema->attrs()[2].type, AttrType::kString);
  EXPECT_EQ(schema->attrs()[3].name, "leaky_alpha");
  EXPECT_EQ(schema->attrs()[3].type, AttrType::kDouble);
  const AttrMap defaults = Unwrap(schema->CompleteAttrs(AttrMap()));
  EXPECT_FALSE(Unwrap(defaults.Get<bool>("transpose_a")));
  EXPECT_FALSE(Unwrap(defaults.Get<bool>("transpose_b")));
  EXPECT_EQ(Unwrap(defaults.Get<std::string>("activation")), "none");
  EXPECT_EQ(Unwrap(defaults.Get<double>("leaky_alpha")), 0.01);
  EXPECT_EQ(CpuDtypes("fused_matmul_bias_act"), AsSet(kFloating));
}

TEST(RegistryTest, FindUnknownOpListsRegisteredOps) {
  std::vector<std::string> fragments = {"unknown op 'nope'"};
  fragments.insert(fragments.end(), kShippedOps.begin(), kShippedOps.end());
  ExpectError(OpRegistry::Global().Find("nope"), ErrorKind::kValueError, fragments);
  ExpectError(OpRegistry::Global().Find("Softmax"), ErrorKind::kValueError, {"'Softmax'"});
  ExpectError(OpRegistry::Global().Find(""), ErrorKind::kValueError, {"''"});
}

TEST(RegistryTest, EachOpHasItsKernel) {
  for (const std::string& op : kShippedOps) {
    const std::vector<KernelRegistration>& kernels = KernelRegistry::Global().KernelsOf(op);
    const auto it = std::find_if(kernels.begin(), kernels.end(), [&](const KernelRegistration& k) {
      return k.name == KernelNames().at(op);
    });
    ASSERT_NE(it, kernels.end()) << op << " has no " << KernelNames().at(op);
    EXPECT_EQ(it->op_type, op);
    EXPECT_NE(it->create(), nullptr) << op;
    EXPECT_TRUE(static_cast<bool>(it->is_matched)) << op;
  }
  EXPECT_TRUE(KernelRegistry::Global().KernelsOf("nope").empty());
}

TEST(RegistryTest, SoftmaxFamilyServesTheFloatingDtypesOnCpu) {
  for (const char* op : {"softmax", "log_softmax", "softmax_grad", "log_softmax_grad"}) {
    EXPECT_EQ(CpuDtypes(op), AsSet(kFloating)) << op;
  }
}

TEST(RegistryTest, TransposeServesEveryDtypeOnCpu) {
  EXPECT_EQ(CpuDtypes("transpose"), AsSet(kAll));
  EXPECT_EQ(AsSet(AllDataTypes()), AsSet(kAll));
}

TEST(RegistryTest, KernelFindMatchesOnDeviceAndDtype) {
  const AttrMap no_attrs;
  const KernelMatchContext cpu_half{
      DeviceType::kCPU, {DataType::kFloat16}, {DataType::kFloat16}, &no_attrs};
  const KernelRegistration* kernel = KernelRegistry::Global().Find("softmax", cpu_half);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->name, "SoftmaxKernel");
  const KernelMatchContext cpu_int{
      DeviceType::kCPU, {DataType::kInt32}, {DataType::kInt32}, &no_attrs};
  EXPECT_EQ(KernelRegistry::Global().Find("softmax", cpu_int), nullptr);
  EXPECT_NE(KernelRegistry::Global().Find("transpose", cpu_int), nullptr);
  EXPECT_EQ(KernelRegistry::Global().Find("nope", cpu_half), nullptr);
}

TEST(RegistryTest, CpuPrimitivesAreRegistered) {
  const std::vector<primitive::FactoryEntry> entries = primitive::RegisteredFactories();
  std::set<std::string> cpu;
  for (const primitive::FactoryEntry& e : entries) {
    if (e.device_type == DeviceType::kCPU) {
      cpu.insert(e.name);
    }
  }
  const std::set<std::string> expected = {
      "batch_matmul",    "broadcast_elementwise_binary", "cast",   "elementwise_unary", "fill",
      "log_softmax",     "log_softmax_backward",         "memcpy", "permute",           "softmax",
      "softmax_backward"};
  EXPECT_EQ(cpu, expected);
  // The listing is sorted by (name, device type), and no pair repeats.
  for (size_t i = 1; i < entries.size(); ++i) {
    const auto& a = entries[i - 1];
    const auto& b = entries[i];
    EXPECT_TRUE(a.name < b.name || (a.name == b.name && a.device_type < b.device_type))
        << a.name << " / " << b.name;
  }
}

TEST(RegistryTest, OpCatalogListsEveryOpWithItsKernels) {
  const proto::OpDefList catalog = OpCatalog();
  std::vector<std::string> names;
  std::map<std::string, proto::OpDef> by_name;
  for (const proto::OpDef& def : catalog.op()) {
    for (const proto::KernelDef& k : def.kernel()) {  // only the devices a kernel runs on
      EXPECT_GT(k.data_type_size(), 0) << def.name() << ": " << k.name() << " on " << k.device();
    }
    if (IsTestOp(def.name())) {
      continue;
    }
    names.push_back(def.name());
    by_name[def.name()] = def;
  }
  EXPECT_EQ(names, kShippedOps);

  for (const std::string& op : kShippedOps) {
    const proto::OpDef& def = by_name[op];
    const proto::KernelDef* cpu_kernel = nullptr;
    for (const proto::KernelDef& k : def.kernel()) {
      EXPECT_TRUE(k.device() == "cpu" || k.device() == "cuda") << op << ": " << k.device();
      if (k.device() == "cpu" && k.name() == KernelNames().at(op)) {
        EXPECT_EQ(cpu_kernel, nullptr) << op << " lists its cpu kernel twice";
        cpu_kernel = &k;
      }
    }
    ASSERT_NE(cpu_kernel, nullptr) << op << " has no cpu kernel in the catalog";
    std::set<DataType> dtypes;
    for (int d : cpu_kernel->data_type()) {
      dtypes.insert(static_cast<DataType>(d));
    }
    EXPECT_EQ(dtypes, ExpectedCpuDtypes(op)) << op;
  }

  const proto::OpDef& transpose = by_name["transpose"];
  ASSERT_EQ(transpose.input_size(), 1);
  EXPECT_EQ(transpose.input(0).name(), "x");
  ASSERT_EQ(transpose.output_size(), 1);
  EXPECT_EQ(transpose.output(0).name(), "y");
  ASSERT_EQ(transpose.attr_size(), 1);
  EXPECT_EQ(transpose.attr(0).name(), "perm");
  EXPECT_EQ(transpose.attr(0).type(), "list_int64");
  EXPECT_TRUE(transpose.attr(0).required());

  const proto::OpDef& grad = by_name["softmax_grad"];
  ASSERT_EQ(grad.input_size(), 2);
  EXPECT_EQ(grad.input(0).name(), "y");
  EXPECT_EQ(grad.input(1).name(), "dy");
  EXPECT_EQ(grad.attr_size(), 0);
}

}  // namespace
}  // namespace oflite
