// The eager interpreter: Dispatch's checks against the op's schema, kernel selection, defaults,
// and the dispatch trace. Test-only ops are registered here, named "test_*" (registry_test.cpp
// leaves those out of the exact op listing).
#include "oneflow_lite/framework/interpreter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/functional/functional.h"
#include "ops/softmax_reference.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

// test_scale: y = alpha * x + n, float32 on the CPU only.
OFLITE_REGISTER_OP("test_scale")
    .Input("x")
    .Output("y")
    .Attr<float>("alpha", 2.0f)
    .Attr<int64_t>("n")
    .SetInferFn(InferSameAsInput("x", "y"));

class TestScaleKernel final : public OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return ctx.device_type == DeviceType::kCPU && ctx.input_dtypes[0] == DataType::kFloat32;
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    float alpha = 0;
    OFLITE_ASSIGN_OR_RETURN(alpha, ctx->attrs().Get<float>("alpha"));
    int64_t n = 0;
    OFLITE_ASSIGN_OR_RETURN(n, ctx->attrs().Get<int64_t>("n"));
    OFLITE_CHECK_OR_RETURN(n >= 0, ValueError) << "test_scale: n must be >= 0, got " << n;
    const Tensor& x = ctx->Input("x");
    const Tensor& y = ctx->Output("y");
    const auto* in = static_cast<const float*>(x.data());
    auto* out = static_cast<float*>(y.mut_data());
    for (int64_t i = 0; i < x.elem_cnt(); ++i) {
      out[i] = alpha * in[i] + static_cast<float>(n);
    }
    ctx->NotePrimitive("test.scale");
    return Ok();
  }
};
OFLITE_REGISTER_KERNEL("test_scale", TestScaleKernel);

// test_pair: two outputs, (x, -x), to check DispatchOne's one-output rule.
OFLITE_REGISTER_OP("test_pair")
    .Input("x")
    .Output("a")
    .Output("b")
    .SetInferFn([](InferContext* ctx) -> Maybe<void> {
      *ctx->MutOutput("a") = ctx->Input("x");
      *ctx->MutOutput("b") = ctx->Input("x");
      return Ok();
    });

class TestPairKernel final : public OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return ctx.device_type == DeviceType::kCPU && ctx.input_dtypes[0] == DataType::kFloat32;
  }

  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input("x");
    const auto* in = static_cast<const float*>(x.data());
    auto* a = static_cast<float*>(ctx->Output("a").mut_data());
    auto* b = static_cast<float*>(ctx->Output("b").mut_data());
    for (int64_t i = 0; i < x.elem_cnt(); ++i) {
      a[i] = in[i];
      b[i] = -in[i];
    }
    return Ok();
  }
};
OFLITE_REGISTER_KERNEL("test_pair", TestPairKernel);

Tensor Floats(const std::vector<float>& values) {
  return Unwrap(Tensor::FromVector(values, Shape({static_cast<int64_t>(values.size())})));
}

// A float32 tensor on cuda:0 over host memory the test owns. Dispatch must refuse it before
// anything reads the memory, so no GPU is needed.
struct FakeCudaTensor {
  std::vector<float> host = std::vector<float>(4, 0.0f);
  Tensor tensor = Unwrap(Tensor::FromStorage(
      std::make_shared<Storage>(nullptr, host.data(), host.size() * sizeof(float), Device::Cuda(0)),
      Shape({4}), DataType::kFloat32));
};

TEST(InterpreterTest, DispatchRunsTheKernelWithDefaultAttrs) {
  const Tensor x = Floats({1, -2, 3.5f, 0});
  const Tensor y = Unwrap(DispatchOne("test_scale", {x}, {{"n", 1}}));
  EXPECT_EQ(y.shape(), x.shape());
  EXPECT_EQ(y.dtype(), DataType::kFloat32);
  EXPECT_EQ(y.device(), Device::Cpu());
  // alpha defaults to 2: y = 2x + 1.
  EXPECT_EQ(Unwrap(y.ToVector<float>()), (std::vector<float>{3, -3, 8, 1}));
  // The input is left alone.
  EXPECT_EQ(Unwrap(x.ToVector<float>()), (std::vector<float>{1, -2, 3.5f, 0}));
}

TEST(InterpreterTest, GivenAttrOverridesTheDefault) {
  const Tensor x = Floats({1, -2, 4});
  const Tensor y = Unwrap(DispatchOne("test_scale", {x}, {{"alpha", 0.5f}, {"n", 3}}));
  EXPECT_EQ(Unwrap(y.ToVector<float>()), (std::vector<float>{3.5f, 2, 5}));
}

// Outputs the caller made are written in place of fresh ones; every element, since the ones
// given hold values the kernel must overwrite.
TEST(InterpreterTest, DispatchIntoWritesTheCallersOutputs) {
  const Tensor x = Floats({1, -2, 4});
  const Tensor y = Floats({-9, -9, -9});
  const void* data = y.data();
  ASSERT_TRUE(DispatchInto("test_scale", {x}, {y}, {{"n", 3}}).ok());
  EXPECT_EQ(y.data(), data);
  EXPECT_EQ(Unwrap(y.ToVector<float>()), (std::vector<float>{5, -1, 11}));
}

TEST(InterpreterTest, DispatchIntoRefusesOutputsThatDoNotFit) {
  const Tensor x = Floats({1, -2, 4});
  ExpectError(DispatchInto("test_scale", {x}, {}, {{"n", 3}}), ErrorKind::kValueError,
              {"test_scale: has 1 outputs; got 0 to write into"});
  ExpectError(DispatchInto("test_scale", {x}, {Tensor()}, {{"n", 3}}), ErrorKind::kValueError,
              {"test_scale: output 'y' is undefined"});
  ExpectError(DispatchInto("test_scale", {x}, {Floats({1, 2})}, {{"n", 3}}), ErrorKind::kValueError,
              {"output 'y' must have shape (3,), got (2,)"});
  ExpectError(DispatchInto("test_scale", {x},
                           {Unwrap(Tensor::Full(Shape{3}, 0, DataType::kFloat64))}, {{"n", 3}}),
              ErrorKind::kTypeError, {"output 'y' must be float32, got float64"});
  ExpectError(DispatchInto("test_scale", {x}, {x}, {{"n", 3}}), ErrorKind::kNotImplemented,
              {"output 'y' overlaps an input"});
  ExpectError(DispatchInto("test_scale", {x}, {Floats({0, 0, 0})}), ErrorKind::kValueError,
              {"'n'", "missing"});
  const FakeCudaTensor on_cuda;  // refused before anything reads it
  ExpectError(DispatchInto("test_scale", {Floats({1, 2, 3, 4})}, {on_cuda.tensor}, {{"n", 3}}),
              ErrorKind::kValueError, {"output 'y' must be on cpu, got cuda:0"});
  const Tensor y = Floats({0, 0, 0});
  ExpectError(DispatchInto("test_pair", {x}, {y, y}), ErrorKind::kValueError,
              {"test_pair: output 'b' overlaps output 'a'"});
  const Tensor b = Floats({0, 0, 0});
  ASSERT_TRUE(DispatchInto("test_pair", {x}, {y, b}).ok());
  EXPECT_EQ(Unwrap(b.ToVector<float>()), (std::vector<float>{-1, 2, -4}));
}

TEST(InterpreterTest, UnknownOpIsValueError) {
  ExpectError(DispatchOne("x", {Floats({1})}), ErrorKind::kValueError,
              {"unknown op 'x'", "softmax", "transpose"});
  ExpectError(Dispatch("nope", {}), ErrorKind::kValueError, {"unknown op 'nope'"});
}

TEST(InterpreterTest, MissingRequiredAttrIsValueError) {
  ExpectError(DispatchOne("test_scale", {Floats({1})}), ErrorKind::kValueError,
              {"test_scale", "'n'", "int64", "missing"});
  ExpectError(DispatchOne("test_scale", {Floats({1})}, {{"alpha", 1.0f}}), ErrorKind::kValueError,
              {"'n'", "missing"});
  ExpectError(DispatchOne("transpose", {Floats({1})}), ErrorKind::kValueError,
              {"transpose", "'perm'", "missing"});
}

TEST(InterpreterTest, AttrOfWrongTypeIsTypeError) {
  ExpectError(DispatchOne("test_scale", {Floats({1})}, {{"n", 1.5f}}), ErrorKind::kTypeError,
              {"test_scale", "'n'", "int64", "float"});
  ExpectError(DispatchOne("test_scale", {Floats({1})}, {{"n", 1}, {"alpha", 0.1000000001}}),
              ErrorKind::kTypeError, {"'alpha'", "float", "double", "does not convert exactly"});
  ExpectError(DispatchOne("test_scale", {Floats({1})}, {{"n", true}}), ErrorKind::kTypeError,
              {"'n'", "int64", "bool"});
}

TEST(InterpreterTest, UnknownAttrIsValueError) {
  ExpectError(DispatchOne("test_scale", {Floats({1})}, {{"n", 1}, {"beta", 1.0f}}),
              ErrorKind::kValueError, {"test_scale", "'beta'", "alpha", "n"});
  ExpectError(DispatchOne("softmax", {Floats({1})}, {{"dim", 0}}), ErrorKind::kValueError,
              {"softmax", "'dim'"});
}

TEST(InterpreterTest, WrongInputCountIsValueError) {
  ExpectError(DispatchOne("test_scale", {Floats({1}), Floats({2})}, {{"n", 1}}),
              ErrorKind::kValueError, {"test_scale", "1", "2"});
  ExpectError(DispatchOne("test_scale", {}, {{"n", 1}}), ErrorKind::kValueError,
              {"test_scale", "1", "0"});
  ExpectError(DispatchOne("softmax_grad", {Floats({1})}), ErrorKind::kValueError,
              {"softmax_grad", "2", "1"});
}

TEST(InterpreterTest, UndefinedInputIsValueError) {
  ExpectError(DispatchOne("test_scale", {Tensor()}, {{"n", 1}}), ErrorKind::kValueError,
              {"test_scale", "'x'", "undefined"});
}

TEST(InterpreterTest, NoKernelForDtypeIsNotImplemented) {
  const Tensor x = Unwrap(Tensor::FromVector(std::vector<double>{1, 2}, Shape({2})));
  ExpectError(DispatchOne("test_scale", {x}, {{"n", 1}}), ErrorKind::kNotImplemented,
              {"test_scale", "cpu", "float64", "cpu [float32]"});
  const Tensor ints = Unwrap(Tensor::FromVector(std::vector<int32_t>{1, 2}, Shape({2})));
  ExpectError(DispatchOne("softmax", {ints}), ErrorKind::kNotImplemented,
              {"softmax", "cpu", "int32", "float32", "float64", "float16", "bfloat16"});
}

TEST(InterpreterTest, NoKernelForDeviceIsNotImplemented) {
  FakeCudaTensor cuda;
  ExpectError(DispatchOne("test_scale", {cuda.tensor}, {{"n", 1}}), ErrorKind::kNotImplemented,
              {"test_scale", "cuda:0", "float32", "cpu [float32]"});
}

TEST(InterpreterTest, InputsOnDifferentDevicesIsValueError) {
  FakeCudaTensor cuda;
  const Tensor cpu = Floats({0.1f, 0.2f, 0.3f, 0.4f});
  ExpectError(Dispatch("softmax_grad", {cpu, cuda.tensor}), ErrorKind::kValueError,
              {"softmax_grad", "'y'", "'dy'", "cpu", "cuda:0"});
  ExpectError(Dispatch("softmax_grad", {cuda.tensor, cpu}), ErrorKind::kValueError,
              {"'y'", "'dy'", "cuda:0", "cpu"});
}

TEST(InterpreterTest, KernelErrorsPassThroughWithContext) {
  Maybe<Tensor> result = DispatchOne("test_scale", {Floats({1})}, {{"n", -4}});
  ExpectError(result, ErrorKind::kValueError, {"test_scale: n must be >= 0, got -4"});
  ASSERT_FALSE(result.ok());
  // Raised in the kernel, passed on by Dispatch and by DispatchOne.
  const std::vector<std::string>& frames = result.error().context();
  ASSERT_GE(frames.size(), 3u);
  EXPECT_NE(frames[0].find("Compute"), std::string::npos) << frames[0];
  EXPECT_NE(frames[frames.size() - 2].find("Dispatch"), std::string::npos)
      << frames[frames.size() - 2];
  EXPECT_NE(frames.back().find("DispatchOne"), std::string::npos) << frames.back();
}

TEST(InterpreterTest, MultipleOutputs) {
  const Tensor x = Floats({1, -2});
  const std::vector<Tensor> outputs = Unwrap(Dispatch("test_pair", {x}));
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(Unwrap(outputs[0].ToVector<float>()), (std::vector<float>{1, -2}));
  EXPECT_EQ(Unwrap(outputs[1].ToVector<float>()), (std::vector<float>{-1, 2}));
  ExpectError(DispatchOne("test_pair", {x}), ErrorKind::kValueError,
              {"test_pair", "2 outputs", "Dispatch"});
}

TEST(InterpreterTest, InferenceErrorsComeFromTheSchema) {
  const Tensor x = Unwrap(Tensor::Full(Shape({2, 3}), 1.0, DataType::kFloat32));
  ExpectError(DispatchOne("transpose", {x}, {{"perm", std::vector<int64_t>{0}}}),
              ErrorKind::kValueError, {"transpose", "perm", "rank 2"});
  ExpectError(DispatchOne("transpose", {x}, {{"perm", std::vector<int64_t>{0, 2}}}),
              ErrorKind::kIndexError, {"transpose", "perm[1] = 2"});
  ExpectError(DispatchOne("transpose", {x}, {{"perm", std::vector<int64_t>{1, 1}}}),
              ErrorKind::kValueError, {"transpose", "repeats", "1"});
  const Tensor other = Unwrap(Tensor::Full(Shape({3, 2}), 1.0, DataType::kFloat32));
  ExpectError(Dispatch("softmax_grad", {x, other}), ErrorKind::kValueError,
              {"softmax_grad", "(2, 3)", "(3, 2)"});
  const Tensor half = Unwrap(Tensor::Full(Shape({2, 3}), 1.0, DataType::kFloat16));
  ExpectError(Dispatch("softmax_grad", {x, half}), ErrorKind::kTypeError,
              {"softmax_grad", "float32", "float16"});
}

TEST(DispatchTraceTest, RecordsOpKernelAndPrimitive) {
  const std::vector<double> values = {0.5, -1.0, 2.0, 3.0, 0.25, -0.75};
  const Tensor x = test::MakeTensor(values, Shape({2, 3}), DataType::kFloat32);
  DispatchTrace trace;
  const Tensor y = Unwrap(functional::Softmax(x, -1));
  ASSERT_EQ(trace.records().size(), 1u);
  const DispatchRecord& record = trace.records()[0];
  EXPECT_EQ(record.op_type, "softmax");
  EXPECT_EQ(record.device, Device::Cpu());
  EXPECT_EQ(record.kernel, "SoftmaxKernel");
  EXPECT_EQ(record.primitives, (std::vector<std::string>{"cpu.softmax<float32>"}));
  test::ExpectAllClose(
      test::ToDoubles(y),
      ReferenceSoftmax(test::RoundTo(values, DataType::kFloat32), Shape({2, 3}), 1, false),
      SoftmaxTolerance(DataType::kFloat32), "softmax");
}

TEST(DispatchTraceTest, RecordsEveryDispatchInOrder) {
  const Tensor x = Unwrap(Tensor::Full(Shape({2, 3}), 1.0, DataType::kFloat16));
  DispatchTrace trace;
  // Softmax over a non-last dim moves it last, runs, and moves it back.
  Unwrap(functional::LogSoftmax(x, 0));
  ASSERT_EQ(trace.records().size(), 3u);
  const std::vector<std::string> ops = {"transpose", "log_softmax", "transpose"};
  const std::vector<std::string> kernels = {"TransposeKernel", "LogSoftmaxKernel",
                                            "TransposeKernel"};
  const std::vector<std::string> primitives = {"cpu.permute<float16>", "cpu.log_softmax<float16>",
                                               "cpu.permute<float16>"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(trace.records()[i].op_type, ops[i]) << i;
    EXPECT_EQ(trace.records()[i].kernel, kernels[i]) << i;
    EXPECT_EQ(trace.records()[i].primitives, std::vector<std::string>{primitives[i]}) << i;
  }
  // The transpose records carry their perm attribute.
  EXPECT_EQ(Unwrap(trace.records()[0].attrs.Get<std::vector<int64_t>>("perm")),
            (std::vector<int64_t>{1, 0}));
}

TEST(DispatchTraceTest, RecordsCompletedAttrs) {
  DispatchTrace trace;
  Unwrap(DispatchOne("test_scale", {Floats({1})}, {{"n", 5}}));
  ASSERT_EQ(trace.records().size(), 1u);
  const DispatchRecord& record = trace.records()[0];
  EXPECT_EQ(record.kernel, "TestScaleKernel");
  EXPECT_EQ(record.primitives, std::vector<std::string>{"test.scale"});
  EXPECT_EQ(Unwrap(record.attrs.Get<float>("alpha")), 2.0f);
  EXPECT_EQ(Unwrap(record.attrs.Get<int64_t>("n")), 5);
}

TEST(DispatchTraceTest, FailedDispatchesAreNotRecorded) {
  DispatchTrace trace;
  EXPECT_FALSE(DispatchOne("test_scale", {Floats({1})}).ok());
  EXPECT_FALSE(DispatchOne("nope", {Floats({1})}).ok());
  EXPECT_TRUE(trace.records().empty());
}

TEST(DispatchTraceTest, InnermostTraceRecordsAndScopesEnd) {
  DispatchTrace outer;
  Unwrap(DispatchOne("test_scale", {Floats({1})}, {{"n", 0}}));
  {
    DispatchTrace inner;
    Unwrap(DispatchOne("test_scale", {Floats({1})}, {{"n", 0}}));
    Unwrap(DispatchOne("test_scale", {Floats({1})}, {{"n", 0}}));
    EXPECT_EQ(inner.records().size(), 2u);
  }
  Unwrap(DispatchOne("test_scale", {Floats({1})}, {{"n", 0}}));
  EXPECT_EQ(outer.records().size(), 2u);  // the two dispatches outside the inner trace
}

TEST(DispatchTraceTest, DispatchesBeforeATraceAreNotInIt) {
  // With no live trace, dispatching works and leaves nothing behind for a later trace.
  EXPECT_TRUE(DispatchOne("test_scale", {Floats({1})}, {{"n", 0}}).ok());
  DispatchTrace fresh;
  EXPECT_TRUE(fresh.records().empty());
  EXPECT_TRUE(DispatchOne("test_scale", {Floats({1})}, {{"n", 0}}).ok());
  EXPECT_EQ(fresh.records().size(), 1u);
}

}  // namespace
}  // namespace oflite
