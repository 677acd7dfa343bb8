// Device: parsing the strings users write, and the text form.
#include "oneflow_lite/common/device.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

TEST(DeviceTest, DefaultIsCpu) {
  const Device device;
  EXPECT_EQ(device.type(), DeviceType::kCPU);
  EXPECT_EQ(device.index(), 0);
  EXPECT_EQ(device, Device::Cpu());
}

TEST(DeviceTest, ParseValidStrings) {
  const Device cpu = Unwrap(Device::Parse("cpu"));
  EXPECT_EQ(cpu.type(), DeviceType::kCPU);
  EXPECT_EQ(cpu.index(), 0);

  const Device cpu0 = Unwrap(Device::Parse("cpu:0"));
  EXPECT_EQ(cpu0, Device::Cpu());

  const Device cuda = Unwrap(Device::Parse("cuda"));
  EXPECT_EQ(cuda.type(), DeviceType::kCUDA);
  EXPECT_EQ(cuda.index(), 0);
  EXPECT_EQ(cuda, Device::Cuda());

  const Device cuda1 = Unwrap(Device::Parse("cuda:1"));
  EXPECT_EQ(cuda1.type(), DeviceType::kCUDA);
  EXPECT_EQ(cuda1.index(), 1);
  EXPECT_EQ(cuda1, Device::Cuda(1));

  EXPECT_EQ(Unwrap(Device::Parse("cuda:12")).index(), 12);
}

TEST(DeviceTest, ParseRejectsUnknownType) {
  ExpectError(Device::Parse("gpu"), ErrorKind::kValueError, {"'gpu'"});
  ExpectError(Device::Parse("gpu:0"), ErrorKind::kValueError, {"'gpu:0'"});
  ExpectError(Device::Parse("CUDA"), ErrorKind::kValueError, {"'CUDA'"});
  ExpectError(Device::Parse(""), ErrorKind::kValueError, {"''"});
}

TEST(DeviceTest, ParseRejectsBadIndex) {
  ExpectError(Device::Parse("cuda:"), ErrorKind::kValueError, {"'cuda:'"});
  ExpectError(Device::Parse("cuda:x"), ErrorKind::kValueError, {"'cuda:x'"});
  ExpectError(Device::Parse("cuda:-1"), ErrorKind::kValueError, {"'cuda:-1'"});
  ExpectError(Device::Parse("cuda:1:2"), ErrorKind::kValueError, {"'cuda:1:2'"});
  ExpectError(Device::Parse("cuda: 1"), ErrorKind::kValueError, {"'cuda: 1'"});
  ExpectError(Device::Parse("cuda:99999999999999999999"), ErrorKind::kValueError,
              {"'cuda:99999999999999999999'"});
}

TEST(DeviceTest, ParseRejectsCpuIndexOtherThanZero) {
  ExpectError(Device::Parse("cpu:1"), ErrorKind::kValueError, {"'cpu:1'", "cpu:0"});
}

TEST(DeviceTest, ToString) {
  EXPECT_EQ(Device::Cpu().ToString(), "cpu");
  EXPECT_EQ(Device::Cuda().ToString(), "cuda:0");
  EXPECT_EQ(Device::Cuda(3).ToString(), "cuda:3");
  EXPECT_EQ(Device(DeviceType::kCUDA, 7).ToString(), "cuda:7");
  std::ostringstream out;
  out << Device::Cuda(2);
  EXPECT_EQ(out.str(), "cuda:2");
  EXPECT_STREQ(DeviceTypeName(DeviceType::kCPU), "cpu");
  EXPECT_STREQ(DeviceTypeName(DeviceType::kCUDA), "cuda");
}

TEST(DeviceTest, ParseOfToStringRoundTrips) {
  for (const Device& device : {Device::Cpu(), Device::Cuda(0), Device::Cuda(5)}) {
    EXPECT_EQ(Unwrap(Device::Parse(device.ToString())), device) << device.ToString();
  }
}

TEST(DeviceTest, Equality) {
  EXPECT_EQ(Device::Cuda(1), Device(DeviceType::kCUDA, 1));
  EXPECT_NE(Device::Cuda(0), Device::Cuda(1));
  EXPECT_NE(Device::Cpu(), Device::Cuda(0));
}

}  // namespace
}  // namespace oflite
