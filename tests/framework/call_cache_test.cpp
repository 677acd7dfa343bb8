// The interpreter's call cache: a signature's kernel instance is reused by later calls with
// that signature on the thread, and never by a call that differs in dtype, device or attribute
// value (or shape); a registry change empties the cache.
#include "oneflow_lite/framework/call_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/framework/op_registry.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::Unwrap;

// test_cache_probe: y = x, on the CPU for float32 and float64, with an attribute that changes
// nothing but the signature. Each kernel instance records what its Init saw.
OFLITE_REGISTER_OP("test_cache_probe")
    .Input("x")
    .Output("y")
    .Attr<int64_t>("k", 0)
    .SetInferFn(InferSameAsInput("x", "y"));

struct InitRecord {
  DataType dtype;
  int64_t k;
};
std::vector<InitRecord>& Inits() {
  static std::vector<InitRecord> inits;
  return inits;
}

class CacheProbeKernel final : public OpKernel {
 public:
  static bool IsMatched(const KernelMatchContext& ctx) {
    return ctx.device_type == DeviceType::kCPU &&
           (ctx.input_dtypes[0] == DataType::kFloat32 || ctx.input_dtypes[0] == DataType::kFloat64);
  }
  Maybe<void> Init(const KernelMatchContext& ctx) override {
    int64_t k = 0;
    OFLITE_ASSIGN_OR_RETURN(k, ctx.attrs->Get<int64_t>("k"));
    Inits().push_back({ctx.input_dtypes[0], k});
    return Ok();
  }
  Maybe<void> Compute(KernelComputeContext* ctx) const override {
    const Tensor& x = ctx->Input("x");
    std::memcpy(ctx->Output("y").mut_data(), x.data(), x.nbytes());
    return Ok();
  }
};
OFLITE_REGISTER_KERNEL("test_cache_probe", CacheProbeKernel);

Tensor Probe(const Tensor& x, int64_t k) {
  return Unwrap(DispatchOne("test_cache_probe", {x}, {{"k", k}}));
}

TEST(CallCacheTest, AnInstanceServesOnlyItsOwnSignature) {
  std::thread([] {  // a fresh thread: a fresh cache
    const Tensor f32 = Unwrap(Tensor::Full(Shape{2, 3}, 1.5, DataType::kFloat32));
    const Tensor f64 = Unwrap(Tensor::Full(Shape{2, 3}, 1.5, DataType::kFloat64));
    const Tensor other_shape = Unwrap(Tensor::Full(Shape{3, 2}, 1.5, DataType::kFloat32));
    Inits().clear();
    Probe(f32, 1);
    Probe(f32, 1);  // the same signature: the same instance, no new Init
    ASSERT_EQ(Inits().size(), 1u);
    Probe(f64, 1);  // another dtype
    ASSERT_EQ(Inits().size(), 2u);
    EXPECT_EQ(Inits()[1].dtype, DataType::kFloat64);
    Probe(f32, 2);  // another attribute value
    ASSERT_EQ(Inits().size(), 3u);
    EXPECT_EQ(Inits()[2].k, 2);
    EXPECT_EQ(Inits()[2].dtype, DataType::kFloat32);
    Probe(other_shape, 1);  // another shape
    ASSERT_EQ(Inits().size(), 4u);
    Probe(f32, 1);
    Probe(f64, 1);
    Probe(f32, 2);
    EXPECT_EQ(Inits().size(), 4u);  // each signature kept its own instance
  })
      .join();
}

TEST(CallCacheTest, ASignatureOnAnotherDeviceDoesNotMatch) {
  const Tensor x = Unwrap(Tensor::Full(Shape{2, 3}, 1.5, DataType::kFloat32));
  const AttrMap attrs = {{"k", 1}};
  const OpSchema* schema = Unwrap(OpRegistry::Global().Find("test_cache_probe"));
  CallEntry entry;
  entry.callee = schema;
  entry.device = Device::Cpu();
  entry.inputs = {{x.shape(), x.dtype()}};
  entry.given_attrs = attrs;
  const CallSignature cpu{schema, Device::Cpu(), &x, 1, &attrs};
  EXPECT_TRUE(cpu.Matches(entry));
  const CallSignature cuda{schema, Device::Cuda(0), &x, 1, &attrs};
  EXPECT_FALSE(cuda.Matches(entry));
  EXPECT_NE(cpu.Hash(), cuda.Hash());
  const AttrMap other = {{"k", 2}};
  const CallSignature other_attrs{schema, Device::Cpu(), &x, 1, &other};
  EXPECT_FALSE(other_attrs.Matches(entry));
}

TEST(CallCacheTest, NanAttributesMatchThemselves) {
  const AttrValue nan(std::nan(""));
  EXPECT_EQ(nan, AttrValue(std::nan("")));
  EXPECT_EQ(nan.Hash(), AttrValue(std::nan("")).Hash());
  EXPECT_NE(AttrValue(0.0), AttrValue(-0.0));  // distinct bits, distinct signatures
}

TEST(CallCacheTest, ARegistryChangeEmptiesTheCache) {
  std::thread([] {
    const Tensor x = Unwrap(Tensor::Full(Shape{4}, 1.5, DataType::kFloat32));
    Inits().clear();
    Probe(x, 7);
    Probe(x, 7);
    ASSERT_EQ(Inits().size(), 1u);
    OpRegistry::Global().Register(  // a registry change
        OpSchemaBuilder("test_cache_probe_late").Input("x").Output("y").schema());
    Probe(x, 7);  // matched and initialized again against the new registry
    EXPECT_EQ(Inits().size(), 2u);
  }).join();
}

}  // namespace
}  // namespace oflite
