// Tensor::FromDLPack / ToDLPack: zero copies both ways, every dtype, deleters that run exactly
// once, and errors that leave the caller's DLPack tensor the caller's.
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "oneflow_lite/oneflow_lite.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

// A producer's tensor as another array library would hand it: its bytes, shape and strides, and
// how many times the consumer called its deleter.
struct Producer {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> shape, strides;
  int deleted = 0;
  DLManagedTensor managed{};

  Producer(DLDataType dtype, std::vector<int64_t> dims, size_t elem_bytes)
      : shape(std::move(dims)) {
    int64_t count = 1;
    for (int64_t d : shape) {
      count *= std::max<int64_t>(d, 0);
    }
    bytes.resize(static_cast<size_t>(count) * elem_bytes + 64);
    DLTensor& t = managed.dl_tensor;
    t.data = bytes.data();
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = static_cast<int>(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    t.strides = nullptr;
    t.byte_offset = 0;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) {
      ++static_cast<Producer*>(self->manager_ctx)->deleted;
    };
  }
  void SetStrides(std::vector<int64_t> s) {
    strides = std::move(s);
    managed.dl_tensor.strides = strides.data();
  }
};

constexpr DLDataType kFloat32{kDLFloat, 32, 1};

TEST(TensorDLPack, FromDLPackSharesTheProducersMemoryAndDeletesOnce) {
  Producer p(kFloat32, {2, 3}, 4);
  const float values[] = {1, 2, 3, 4, 5, 6};
  std::memcpy(p.bytes.data(), values, sizeof(values));
  {
    const Tensor t = Unwrap(Tensor::FromDLPack(&p.managed));
    EXPECT_EQ(t.data(), p.bytes.data());
    EXPECT_EQ(t.shape(), Shape({2, 3}));
    EXPECT_EQ(t.dtype(), DataType::kFloat32);
    const Tensor view = Unwrap(t.View(Shape{6}));
    const Tensor y = Unwrap(functional::Softmax(view, 0));
    EXPECT_EQ(Unwrap(view.ToVector<float>()), std::vector<float>(values, values + 6));
    EXPECT_EQ(p.deleted, 0);  // two tensors still hold the memory
    EXPECT_NE(y.data(), p.bytes.data());
  }
  EXPECT_EQ(p.deleted, 1);
}

TEST(TensorDLPack, ByteOffsetAndCompactStridesAreTaken) {
  Producer p(kFloat32, {2, 1, 3}, 4);
  p.managed.dl_tensor.byte_offset = 16;
  p.SetStrides({3, 7, 1});  // a dim of size 1 may have any stride
  const Tensor t = Unwrap(Tensor::FromDLPack(&p.managed));
  EXPECT_EQ(t.data(), p.bytes.data() + 16);
}

// A tensor of no elements addresses nothing: any strides are compact (NumPy gives zeros, torch
// 1 for the dims after an empty one).
TEST(TensorDLPack, EmptyTensorsAreTakenWhateverTheirStrides) {
  const std::pair<std::vector<int64_t>, std::vector<int64_t>> cases[] = {
      {{0}, {0}}, {{2, 0}, {0, 0}}, {{2, 0}, {1, 1}}, {{0, 3}, {0, 0}}, {{4, 0, 5}, {0, 0, 0}}};
  for (const auto& [shape, strides] : cases) {
    Producer p(kFloat32, shape, 4);
    p.SetStrides(strides);
    const Tensor t = Unwrap(Tensor::FromDLPack(&p.managed));
    EXPECT_EQ(t.shape(), Shape(DimVector(shape.data(), shape.data() + shape.size())));
    EXPECT_EQ(t.elem_cnt(), 0);
  }
}

TEST(TensorDLPack, EveryDtypeGoesOutAndComesBackWithoutACopy) {
  const std::pair<DataType, DLDataType> cases[] = {{DataType::kFloat32, {kDLFloat, 32, 1}},
                                                   {DataType::kFloat64, {kDLFloat, 64, 1}},
                                                   {DataType::kFloat16, {kDLFloat, 16, 1}},
                                                   {DataType::kBFloat16, {kDLBfloat, 16, 1}},
                                                   {DataType::kInt8, {kDLInt, 8, 1}},
                                                   {DataType::kUInt8, {kDLUInt, 8, 1}},
                                                   {DataType::kInt32, {kDLInt, 32, 1}},
                                                   {DataType::kInt64, {kDLInt, 64, 1}},
                                                   {DataType::kBool, {6, 8, 1}}};
  for (const auto& [dtype, dl] : cases) {
    const Tensor t = Unwrap(Tensor::Full(Shape{4, 5}, 1.0, dtype));
    DLManagedTensor* out = Unwrap(t.ToDLPack());
    EXPECT_EQ(out->dl_tensor.dtype.code, dl.code) << DataTypeName(dtype);
    EXPECT_EQ(out->dl_tensor.dtype.bits, dl.bits) << DataTypeName(dtype);
    EXPECT_EQ(out->dl_tensor.dtype.lanes, 1);
    EXPECT_EQ(out->dl_tensor.device.device_type, kDLCPU);
    ASSERT_EQ(out->dl_tensor.ndim, 2);
    EXPECT_EQ(out->dl_tensor.shape[0], 4);
    EXPECT_EQ(out->dl_tensor.strides[0], 5);
    EXPECT_EQ(out->dl_tensor.strides[1], 1);
    const Tensor back = Unwrap(Tensor::FromDLPack(out));  // takes `out`, deletes it at the end
    EXPECT_EQ(back.dtype(), dtype);
    EXPECT_EQ(back.data(), t.data());
  }
}

TEST(TensorDLPack, AnExportOutlivesItsTensor) {
  DLManagedTensor* out = nullptr;
  {
    const Tensor t = Unwrap(Tensor::FromVector(std::vector<int32_t>{7, 8, 9}, Shape{3}));
    out = Unwrap(t.ToDLPack());
  }
  const auto* data = static_cast<const int32_t*>(out->dl_tensor.data);
  EXPECT_EQ(data[0], 7);
  EXPECT_EQ(data[2], 9);
  out->deleter(out);  // frees the storage (the sanitizer build checks nothing leaks)
}

TEST(TensorDLPack, StorageDeleterRunsOnceWhenTheLastTensorLetsGo) {
  std::vector<float> memory(8, 2.0f);
  int deleted = 0;
  {
    auto storage = std::make_shared<Storage>(memory.data(), memory.size() * 4, Device::Cpu(),
                                             [&deleted] { ++deleted; });
    const Tensor a = Unwrap(Tensor::FromStorage(storage, Shape{8}, DataType::kFloat32));
    const Tensor b = Unwrap(a.View(Shape{2, 4}));
    storage.reset();
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(TensorDLPack, RefusedTensorsStayTheCallers) {
  ExpectError(Tensor::FromDLPack(nullptr), ErrorKind::kValueError, {"null"});
  {
    Producer p(kFloat32, {2, 3}, 4);
    p.SetStrides({1, 2});  // column-major
    ExpectError(Tensor::FromDLPack(&p.managed), ErrorKind::kValueError,
                {"Tensor::FromDLPack", "strides", "(2, 3)"});
    Producer complex(DLDataType{kDLComplex, 64, 1}, {4}, 8);
    ExpectError(Tensor::FromDLPack(&complex.managed), ErrorKind::kTypeError,
                {"dtype", "code 5", "64 bits"});
    Producer lanes(DLDataType{kDLFloat, 32, 4}, {4}, 16);
    ExpectError(Tensor::FromDLPack(&lanes.managed), ErrorKind::kValueError, {"4 lanes"});
    Producer rocm(kFloat32, {4}, 4);
    rocm.managed.dl_tensor.device = DLDevice{kDLROCM, 0};
    ExpectError(Tensor::FromDLPack(&rocm.managed), ErrorKind::kDeviceError, {"device type 10"});
    Producer cuda(kFloat32, {4}, 4);
    cuda.managed.dl_tensor.device = DLDevice{kDLCUDA, 1000};  // no machine has it
    ExpectError(Tensor::FromDLPack(&cuda.managed), ErrorKind::kDeviceError, {"cuda"});
    Producer negative(kFloat32, {2, -3}, 4);
    ExpectError(Tensor::FromDLPack(&negative.managed), ErrorKind::kValueError, {"negative dim -3"});
    for (const Producer* refused : {&p, &complex, &lanes, &rocm, &cuda, &negative}) {
      EXPECT_EQ(refused->deleted, 0);
    }
  }
  ExpectError(Tensor().ToDLPack(), ErrorKind::kValueError, {"undefined"});
}

}  // namespace
}  // namespace oflite
