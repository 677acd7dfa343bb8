// The CUDA provider skeleton: device discovery, allocation, copies, and honest errors for what
// it cannot do yet. Skips itself where no GPU is visible.
#include <gtest/gtest.h>

#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

bool HasCudaProvider() { return ep::FindDeviceProvider(DeviceType::kCUDA) != nullptr; }

class CudaProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
  }
};

TEST_F(CudaProviderTest, TensorRoundTripsThroughDeviceMemory) {
  const std::vector<double> x = RandomValues(1000, 21);
  for (DataType dtype : AllDataTypes()) {
    const Tensor host = MakeTensor(x, Shape{10, 100}, dtype);
    const Tensor device = Unwrap(host.To(Device::Cuda(0)));
    EXPECT_EQ(device.device(), Device::Cuda(0));
    EXPECT_EQ(ToDoubles(Unwrap(device.To(Device::Cpu()))), ToDoubles(host)) << DataTypeName(dtype);
    EXPECT_EQ(ToDoubles(device), ToDoubles(host)) << DataTypeName(dtype);
  }
}

TEST_F(CudaProviderTest, HugeAllocationIsOutOfMemory) {
  // 2^62 bytes exist on no GPU; the error names the request.
  ExpectError(Tensor::Empty(Shape{int64_t{1} << 60}, DataType::kFloat32, Device::Cuda(0)),
              ErrorKind::kOutOfMemory, {"cannot allocate", "4611686018427387904 bytes"});
  // and the device still works afterwards
  const Tensor ok = MakeTensor({1, 2, 3}, Shape{3}, DataType::kFloat32, Device::Cuda(0));
  EXPECT_EQ(ToDoubles(ok), (std::vector<double>{1, 2, 3}));
}

TEST_F(CudaProviderTest, MissingDeviceIndexIsDeviceError) {
  ExpectError(Tensor::Empty(Shape{2}, DataType::kFloat32, Device::Cuda(999)),
              ErrorKind::kDeviceError, {"cuda:999", "device(s) visible"});
}

TEST_F(CudaProviderTest, DtypesWithoutCudaPrimitivesAreNotImplemented) {
  const Tensor x = MakeTensor({1, 2, 3}, Shape{3}, DataType::kInt32, Device::Cuda(0));
  ExpectError(DispatchOne("softmax", {x}), ErrorKind::kNotImplemented,
              {"no kernel for device cuda:0", "int32", "cuda [float32"});
}

TEST(CudaProvider, NoVisibleGpuIsAClearDeviceError) {
  if (ep::DeviceCount(DeviceType::kCUDA) > 0) {
    GTEST_SKIP() << "a CUDA device is visible";
  }
  ExpectError(Tensor::Empty(Shape{2}, DataType::kFloat32, Device::Cuda(0)), ErrorKind::kDeviceError,
              {"cuda:0", "not available"});
}

TEST(CudaProvider, ProviderIsBuiltInExactlyWhenConfigured) {
#ifdef OFLITE_WITH_CUDA
  EXPECT_TRUE(HasCudaProvider());
#else
  EXPECT_FALSE(HasCudaProvider());
#endif
}

}  // namespace
}  // namespace test
}  // namespace oflite
