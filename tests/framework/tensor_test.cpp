// Tensor: creation from host data, fills, reading back, storage views, and the errors of each.
#include "oneflow_lite/framework/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "oneflow_lite/ep/device.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

TEST(TensorTest, DefaultIsUndefined) {
  const Tensor tensor;
  EXPECT_FALSE(tensor.defined());
  std::vector<float> host(1);
  ExpectError(tensor.CopyToHost(host.data(), 0), ErrorKind::kValueError, {"undefined"});
}

TEST(TensorTest, EmptyHasShapeDtypeDeviceAndContiguousStrides) {
  const Tensor t = Unwrap(Tensor::Empty(Shape({2, 3, 4}), DataType::kFloat64));
  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.shape(), Shape({2, 3, 4}));
  EXPECT_EQ(t.dtype(), DataType::kFloat64);
  EXPECT_EQ(t.device(), Device::Cpu());
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.elem_cnt(), 24);
  EXPECT_EQ(t.nbytes(), 24u * sizeof(double));
  EXPECT_EQ(t.strides(), (Strides{12, 4, 1}));
  EXPECT_EQ(t.offset(), 0);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_NE(t.data(), nullptr);
  EXPECT_EQ(t.data(), t.mut_data());
}

TEST(TensorTest, EmptyScalarAndZeroElementShapes) {
  const Tensor scalar = Unwrap(Tensor::Empty(Shape(), DataType::kInt32));
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.elem_cnt(), 1);
  EXPECT_EQ(scalar.nbytes(), sizeof(int32_t));
  EXPECT_TRUE(scalar.strides().empty());

  const Tensor empty = Unwrap(Tensor::Empty(Shape({3, 0, 2}), DataType::kFloat32));
  EXPECT_TRUE(empty.defined());
  EXPECT_EQ(empty.elem_cnt(), 0);
  EXPECT_EQ(empty.nbytes(), 0u);
  EXPECT_TRUE(Unwrap(empty.ToVector<float>()).empty());
}

TEST(TensorTest, FromVectorRoundTripsEachDtype) {
  {
    const std::vector<float> values = {1.5f, -2.25f, 3e-7f, 1e30f, -0.0f, 7.0f};
    const Tensor t = Unwrap(Tensor::FromVector(values, Shape({2, 3})));
    EXPECT_EQ(t.dtype(), DataType::kFloat32);
    EXPECT_EQ(t.shape(), Shape({2, 3}));
    EXPECT_EQ(Unwrap(t.ToVector<float>()), values);
    // The bytes land contiguously, row-major.
    std::vector<float> raw(6);
    std::memcpy(raw.data(), t.data(), t.nbytes());
    EXPECT_EQ(raw, values);
  }
  {
    const std::vector<double> values = {0.1, -1e300, 2.0, 3.0};
    const Tensor t = Unwrap(Tensor::FromVector(values, Shape({4})));
    EXPECT_EQ(t.dtype(), DataType::kFloat64);
    EXPECT_EQ(Unwrap(t.ToVector<double>()), values);
  }
  {
    const std::vector<int64_t> values = {INT64_MIN, -1, 0, INT64_MAX};
    const Tensor t = Unwrap(Tensor::FromVector(values, Shape({2, 2})));
    EXPECT_EQ(t.dtype(), DataType::kInt64);
    EXPECT_EQ(Unwrap(t.ToVector<int64_t>()), values);
  }
  {
    const std::vector<int32_t> values = {INT32_MIN, 5, INT32_MAX};
    const Tensor t = Unwrap(Tensor::FromVector(values, Shape({3})));
    EXPECT_EQ(t.dtype(), DataType::kInt32);
    EXPECT_EQ(Unwrap(t.ToVector<int32_t>()), values);
  }
  {
    const std::vector<int8_t> values = {-128, 0, 127};
    const Tensor t = Unwrap(Tensor::FromVector(values, Shape({3})));
    EXPECT_EQ(t.dtype(), DataType::kInt8);
    EXPECT_EQ(Unwrap(t.ToVector<int8_t>()), values);
  }
  {
    const std::vector<uint8_t> values = {0, 200, 255};
    const Tensor t = Unwrap(Tensor::FromVector(values, Shape({3, 1})));
    EXPECT_EQ(t.dtype(), DataType::kUInt8);
    EXPECT_EQ(Unwrap(t.ToVector<uint8_t>()), values);
  }
}

TEST(TensorTest, FromVectorBool) {
  const std::vector<bool> values = {true, false, false, true, true};
  const Tensor t = Unwrap(Tensor::FromVector(values, Shape({5})));
  EXPECT_EQ(t.dtype(), DataType::kBool);
  EXPECT_EQ(t.nbytes(), 5u);
  EXPECT_EQ(Unwrap(t.ToVector<bool>()), values);
  // One byte per element, 1 for true and 0 for false.
  const auto* bytes = static_cast<const uint8_t*>(t.data());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(bytes[i], values[i] ? 1 : 0) << i;
  }
}

TEST(TensorTest, FromVectorHalfTypesKeepBits) {
  const std::vector<uint16_t> half_bits = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00, 0x8000};
  std::vector<float16> halves;
  for (uint16_t b : half_bits) {
    halves.push_back(float16::FromBits(b));
  }
  const Tensor t = Unwrap(Tensor::FromVector(halves, Shape({2, 3})));
  EXPECT_EQ(t.dtype(), DataType::kFloat16);
  EXPECT_EQ(t.nbytes(), 12u);
  const std::vector<float16> back = Unwrap(t.ToVector<float16>());
  ASSERT_EQ(back.size(), half_bits.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].bits, half_bits[i]) << i;
  }

  std::vector<bfloat16> bf16 = {bfloat16::FromBits(0x3f80), bfloat16::FromBits(0xff80)};
  const Tensor b = Unwrap(Tensor::FromVector(bf16, Shape({2})));
  EXPECT_EQ(b.dtype(), DataType::kBFloat16);
  const std::vector<bfloat16> bf16_back = Unwrap(b.ToVector<bfloat16>());
  ASSERT_EQ(bf16_back.size(), 2u);
  EXPECT_EQ(bf16_back[0].bits, 0x3f80);
  EXPECT_EQ(bf16_back[1].bits, 0xff80);
}

TEST(TensorTest, FullFillsEveryElement) {
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({2, 3}), 2.5, DataType::kFloat32)).ToVector<float>()),
            std::vector<float>(6, 2.5f));
  EXPECT_EQ(
      Unwrap(Unwrap(Tensor::Full(Shape({4}), -1e-300, DataType::kFloat64)).ToVector<double>()),
      std::vector<double>(4, -1e-300));
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({3}), 7.0, DataType::kInt32)).ToVector<int32_t>()),
            std::vector<int32_t>(3, 7));
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({3}), -5.0, DataType::kInt64)).ToVector<int64_t>()),
            std::vector<int64_t>(3, -5));
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({2}), 200.0, DataType::kUInt8)).ToVector<uint8_t>()),
            std::vector<uint8_t>(2, 200));
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({2}), -3.0, DataType::kInt8)).ToVector<int8_t>()),
            std::vector<int8_t>(2, -3));
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({3}), 1.0, DataType::kBool)).ToVector<bool>()),
            std::vector<bool>(3, true));
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({3}), 0.0, DataType::kBool)).ToVector<bool>()),
            std::vector<bool>(3, false));

  // 1.5 is 0x3e00 in half and 0x3fc0 in bfloat16 (sign 0, exponent of 1, top fraction bit).
  const std::vector<float16> halves =
      Unwrap(Unwrap(Tensor::Full(Shape({2, 2}), 1.5, DataType::kFloat16)).ToVector<float16>());
  ASSERT_EQ(halves.size(), 4u);
  for (const float16& h : halves) {
    EXPECT_EQ(h.bits, 0x3e00);
  }
  const std::vector<bfloat16> bf16 =
      Unwrap(Unwrap(Tensor::Full(Shape({3}), 1.5, DataType::kBFloat16)).ToVector<bfloat16>());
  ASSERT_EQ(bf16.size(), 3u);
  for (const bfloat16& b : bf16) {
    EXPECT_EQ(b.bits, 0x3fc0);
  }

  // A scalar holds one element; an empty tensor none.
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape(), 4.0, DataType::kFloat32)).ToVector<float>()),
            std::vector<float>{4.0f});
  EXPECT_TRUE(Unwrap(Unwrap(Tensor::Full(Shape({0, 5}), 4.0, DataType::kFloat32)).ToVector<float>())
                  .empty());
}

TEST(TensorTest, FullAcceptsTheEdgesOfIntegerRanges) {
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({1}), -128.0, DataType::kInt8)).ToVector<int8_t>()),
            std::vector<int8_t>{-128});
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({1}), 127.0, DataType::kInt8)).ToVector<int8_t>()),
            std::vector<int8_t>{127});
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({1}), 255.0, DataType::kUInt8)).ToVector<uint8_t>()),
            std::vector<uint8_t>{255});
  EXPECT_EQ(
      Unwrap(Unwrap(Tensor::Full(Shape({1}), -2147483648.0, DataType::kInt32)).ToVector<int32_t>()),
      std::vector<int32_t>{INT32_MIN});
  EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({1}), std::ldexp(-1.0, 63), DataType::kInt64))
                       .ToVector<int64_t>()),
            std::vector<int64_t>{INT64_MIN});
}

TEST(TensorTest, FullBoolTakesAnyNonzeroAsTrue) {
  for (double value : {2.0, -0.5, 1e300}) {
    EXPECT_EQ(Unwrap(Unwrap(Tensor::Full(Shape({2}), value, DataType::kBool)).ToVector<bool>()),
              std::vector<bool>(2, true))
        << value;
  }
}

TEST(TensorTest, FullWithValueTheDtypeCannotHoldIsValueError) {
  ExpectError(Tensor::Full(Shape({2}), 128.0, DataType::kInt8), ErrorKind::kValueError,
              {"128", "int8"});
  ExpectError(Tensor::Full(Shape({2}), -129.0, DataType::kInt8), ErrorKind::kValueError,
              {"-129", "int8"});
  ExpectError(Tensor::Full(Shape({2}), 256.0, DataType::kUInt8), ErrorKind::kValueError,
              {"256", "uint8"});
  ExpectError(Tensor::Full(Shape({2}), -1.0, DataType::kUInt8), ErrorKind::kValueError,
              {"-1", "uint8"});
  ExpectError(Tensor::Full(Shape({2}), 2147483648.0, DataType::kInt32), ErrorKind::kValueError,
              {"int32"});
  ExpectError(Tensor::Full(Shape({2}), std::ldexp(1.0, 63), DataType::kInt64),
              ErrorKind::kValueError, {"int64"});
  ExpectError(Tensor::Full(Shape({2}), std::nan(""), DataType::kInt32), ErrorKind::kValueError,
              {"nan", "int32"});
  ExpectError(Tensor::Full(Shape({2}), HUGE_VAL, DataType::kInt64), ErrorKind::kValueError,
              {"inf", "int64"});
  // Floating dtypes hold NaN and infinities.
  const std::vector<float> nan =
      Unwrap(Unwrap(Tensor::Full(Shape({1}), std::nan(""), DataType::kFloat32)).ToVector<float>());
  ASSERT_EQ(nan.size(), 1u);
  EXPECT_TRUE(std::isnan(nan[0]));
  EXPECT_EQ(
      Unwrap(Unwrap(Tensor::Full(Shape({1}), HUGE_VAL, DataType::kFloat64)).ToVector<double>()),
      std::vector<double>{HUGE_VAL});
}

TEST(TensorTest, FromVectorSizeMismatchIsValueError) {
  ExpectError(Tensor::FromVector(std::vector<float>(5, 1.0f), Shape({2, 3})),
              ErrorKind::kValueError, {"5", "(2, 3)", "6"});
  ExpectError(Tensor::FromVector(std::vector<int32_t>{}, Shape()), ErrorKind::kValueError,
              {"0", "()"});
  ExpectError(Tensor::FromVector(std::vector<bool>(2, true), Shape({3})), ErrorKind::kValueError,
              {"2", "(3,)"});
}

TEST(TensorTest, FromHostByteCountMismatchIsValueError) {
  const std::vector<float> values(6, 1.0f);
  ExpectError(Tensor::FromHost(values.data(), 20, Shape({2, 3}), DataType::kFloat32),
              ErrorKind::kValueError, {"20", "24"});
}

// The byte count is checked first: a wrong shape of 4 TiB is a ValueError, not an attempt to
// allocate it.
TEST(TensorTest, FromHostChecksTheByteCountBeforeAllocating) {
  const float value = 1.0f;
  ExpectError(Tensor::FromHost(&value, 4, Shape({int64_t{1} << 40}), DataType::kFloat32),
              ErrorKind::kValueError, {"got 4 bytes", "(1099511627776,)", "4398046511104"});
}

TEST(TensorTest, ToVectorOfWrongTypeIsTypeError) {
  const Tensor t = Unwrap(Tensor::FromVector(std::vector<float>{1, 2}, Shape({2})));
  ExpectError(t.ToVector<double>(), ErrorKind::kTypeError, {"float32", "float64"});
  ExpectError(t.ToVector<int32_t>(), ErrorKind::kTypeError, {"float32", "int32"});
  const Tensor h = Unwrap(Tensor::Full(Shape({2}), 1.0, DataType::kFloat16));
  ExpectError(h.ToVector<bfloat16>(), ErrorKind::kTypeError, {"float16", "bfloat16"});
}

TEST(TensorTest, CopyToHostNeedsExactSize) {
  const Tensor t = Unwrap(Tensor::FromVector(std::vector<int32_t>{1, 2, 3}, Shape({3})));
  std::vector<int32_t> host(4, 0);
  ExpectError(t.CopyToHost(host.data(), 16), ErrorKind::kValueError, {"16", "12"});
  ASSERT_TRUE(t.CopyToHost(host.data(), 12).ok());
  EXPECT_EQ(host, (std::vector<int32_t>{1, 2, 3, 0}));
}

TEST(TensorTest, EmptyWithBadShapeIsValueError) {
  const int64_t big = int64_t{1} << 32;
  ExpectError(Tensor::Empty(Shape({big, big}), DataType::kFloat32), ErrorKind::kValueError,
              {"(4294967296, 4294967296)"});
  ExpectError(Tensor::Empty(Shape({2, -3}), DataType::kFloat32), ErrorKind::kValueError,
              {"(2, -3)", "-3"});
  ExpectError(Tensor::FromVector(std::vector<float>{}, Shape({big, big})), ErrorKind::kValueError,
              {"(4294967296, 4294967296)"});
  ExpectError(Tensor::Full(Shape({-1}), 0.0, DataType::kInt8), ErrorKind::kValueError, {"(-1,)"});
}

TEST(TensorTest, EmptyWithTooManyBytesIsOutOfMemory) {
  // 2^61 float64 elements count fine in int64 but need 2^64 bytes.
  ExpectError(Tensor::Empty(Shape({int64_t{1} << 61}), DataType::kFloat64), ErrorKind::kOutOfMemory,
              {"(2305843009213693952,)"});
}

TEST(TensorTest, EmptyWithInvalidDtypeIsValueError) {
  ExpectError(Tensor::Empty(Shape({2}), static_cast<DataType>(42)), ErrorKind::kValueError, {"42"});
}

TEST(TensorTest, CudaTensorWithoutGpuIsDeviceError) {
  if (ep::DeviceCount(DeviceType::kCUDA) > 0) {
    GTEST_SKIP() << "a GPU is visible";
  }
  ExpectError(Tensor::Empty(Shape({2}), DataType::kFloat32, Device::Cuda(0)),
              ErrorKind::kDeviceError, {"cuda:0"});
  ExpectError(Tensor::FromVector(std::vector<float>{1, 2}, Shape({2}), Device::Cuda(0)),
              ErrorKind::kDeviceError, {"cuda:0"});
  ExpectError(Tensor::Full(Shape({2}), 1.0, DataType::kFloat32, Device::Cuda(1)),
              ErrorKind::kDeviceError, {"cuda:1"});
  const Tensor cpu = Unwrap(Tensor::FromVector(std::vector<float>{1, 2}, Shape({2})));
  ExpectError(cpu.To(Device::Cuda(0)), ErrorKind::kDeviceError, {"cuda:0"});
}

TEST(TensorTest, CudaIndexBeyondVisibleDevicesIsDeviceError) {
  const int count = ep::DeviceCount(DeviceType::kCUDA);
  const Device beyond = Device::Cuda(count);
  ExpectError(Tensor::Empty(Shape({2}), DataType::kFloat32, beyond), ErrorKind::kDeviceError,
              {beyond.ToString()});
}

TEST(TensorTest, ToSameDeviceKeepsValues) {
  const Tensor t = Unwrap(Tensor::FromVector(std::vector<double>{1, 2, 3}, Shape({3})));
  const Tensor same = Unwrap(t.To(Device::Cpu()));
  EXPECT_EQ(same.device(), Device::Cpu());
  EXPECT_EQ(Unwrap(same.ToVector<double>()), (std::vector<double>{1, 2, 3}));
}

TEST(TensorTest, FromStorageViewsCallerMemory) {
  std::vector<float> host = {1, 2, 3, 4, 5, 6};
  auto storage =
      std::make_shared<Storage>(nullptr, host.data(), host.size() * sizeof(float), Device::Cpu());
  const Tensor t = Unwrap(Tensor::FromStorage(storage, Shape({3, 2}), DataType::kFloat32));
  EXPECT_EQ(t.shape(), Shape({3, 2}));
  EXPECT_EQ(t.dtype(), DataType::kFloat32);
  EXPECT_EQ(t.device(), Device::Cpu());
  EXPECT_EQ(t.strides(), (Strides{2, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.data(), static_cast<const void*>(host.data()));
  EXPECT_EQ(Unwrap(t.ToVector<float>()), host);
  host[4] = -9.0f;  // the tensor sees the caller's writes: it does not copy
  EXPECT_EQ(Unwrap(t.ToVector<float>())[4], -9.0f);

  // A smaller view of the same storage is fine too.
  const Tensor part = Unwrap(Tensor::FromStorage(storage, Shape({2}), DataType::kFloat32));
  EXPECT_EQ(Unwrap(part.ToVector<float>()), (std::vector<float>{1, 2}));
}

TEST(TensorTest, FromStorageTooSmallIsValueError) {
  std::vector<uint8_t> host(8);
  auto storage = std::make_shared<Storage>(nullptr, host.data(), host.size(), Device::Cpu());
  ExpectError(Tensor::FromStorage(storage, Shape({3}), DataType::kFloat32), ErrorKind::kValueError,
              {"(3,)", "12", "8"});
  ExpectError(Tensor::FromStorage(storage, Shape({2}), DataType::kFloat64), ErrorKind::kValueError,
              {"16", "8"});
  EXPECT_TRUE(Tensor::FromStorage(storage, Shape({2}), DataType::kFloat32).ok());
  ExpectError(Tensor::FromStorage(nullptr, Shape({1}), DataType::kFloat32), ErrorKind::kValueError,
              {"null"});
  ExpectError(Tensor::FromStorage(storage, Shape({-1}), DataType::kFloat32), ErrorKind::kValueError,
              {"(-1,)"});
}

TEST(TensorTest, CopiesShareStorage) {
  const Tensor a = Unwrap(Tensor::FromVector(std::vector<int32_t>{1, 2}, Shape({2})));
  const Tensor b = a;  // NOLINT: a copy is a second handle, not a deep copy
  EXPECT_EQ(a.data(), b.data());
  static_cast<int32_t*>(a.mut_data())[1] = 42;
  EXPECT_EQ(Unwrap(b.ToVector<int32_t>()), (std::vector<int32_t>{1, 42}));
}

TEST(TensorTest, ViewSharesStorageUnderAnotherShape) {
  const Tensor a =
      Unwrap(Tensor::FromVector(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, Shape({2, 3})));
  const Tensor v = Unwrap(a.View(Shape({3, 1, 2})));
  EXPECT_EQ(v.shape(), Shape({3, 1, 2}));
  EXPECT_EQ(v.strides(), ContiguousStrides(Shape({3, 1, 2})));
  EXPECT_EQ(v.dtype(), DataType::kInt32);
  EXPECT_EQ(v.data(), a.data());
  static_cast<int32_t*>(v.mut_data())[5] = 42;
  EXPECT_EQ(Unwrap(a.ToVector<int32_t>()), (std::vector<int32_t>{1, 2, 3, 4, 5, 42}));
  const Tensor scalar = Unwrap(Tensor::FromVector(std::vector<float>{7}, Shape({1, 1})));
  EXPECT_EQ(Unwrap(scalar.View(Shape{})).shape(), Shape{});
  ExpectError(a.View(Shape({4})), ErrorKind::kValueError, {"View", "(4,)", "4", "(2, 3)", "6"});
  ExpectError(a.View(Shape({-1, -6})), ErrorKind::kValueError, {});
  ExpectError(Tensor().View(Shape({1})), ErrorKind::kValueError, {"undefined"});
}

}  // namespace
}  // namespace oflite
