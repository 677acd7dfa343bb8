// A program that embeds oneflow_lite and calls the example's swiglu op: through the typed call
// and by name, on the CPU and, when the library has CUDA and a GPU is visible, on cuda:0;
// each result is checked against the formula computed here. Exit status 0 when all match.
#include <oneflow_lite/oneflow_lite.h>

#include <cmath>
#include <iostream>

#include "swiglu.h"

namespace {

using oflite::Device;
using oflite::Maybe;
using oflite::Shape;
using oflite::Tensor;

const std::vector<float> kX = {-2.0f, -1.0f, 0.0f, 1.0f, 2.0f, 3.0f};
const std::vector<float> kGate = {1.5f, -0.5f, 4.0f, 0.0f, -3.0f, 2.0f};

Maybe<void> CheckResult(const std::string& what, const Tensor& y) {
  std::vector<float> values;
  OFLITE_ASSIGN_OR_RETURN(values, y.ToVector<float>());
  std::cout << "  " << what << " on " << y.device() << ":";
  for (size_t i = 0; i < values.size(); ++i) {
    const double expected = kX[i] * kGate[i] / (1.0 + std::exp(-double{kGate[i]}));
    OFLITE_CHECK_OR_RETURN(std::abs(values[i] - expected) <= 1e-5 * (1.0 + std::abs(expected)),
                           RuntimeError)
        << what << ": element " << i << " is " << values[i] << ", expected " << expected;
    std::cout << " " << values[i];
  }
  std::cout << "\n";
  return oflite::Ok();
}

Maybe<void> RunOn(const Device& device) {
  Tensor x;
  Tensor gate;
  OFLITE_ASSIGN_OR_RETURN(x, Tensor::FromVector(kX, Shape{2, 3}, device));
  OFLITE_ASSIGN_OR_RETURN(gate, Tensor::FromVector(kGate, Shape{2, 3}, device));

  oflite::DispatchTrace trace;  // records which kernel served each call
  Tensor y;
  OFLITE_ASSIGN_OR_RETURN(y, example::Swiglu(x, gate));
  OFLITE_JUST(CheckResult("example::Swiglu(x, gate)", y));
  std::vector<Tensor> outputs;
  OFLITE_ASSIGN_OR_RETURN(outputs, oflite::functional::Call("example.swiglu", {x, gate}));
  OFLITE_JUST(CheckResult("functional::Call(\"example.swiglu\", {x, gate})", outputs.at(0)));
  std::cout << "  served by " << trace.records().at(0).kernel << " ("
            << trace.records().at(0).primitives.at(0) << ")\n";
  return oflite::Ok();
}

// Errors are values: a bad call comes back as an Error with a kind and a message.
void ShowAnError() {
  const Maybe<Tensor> x = Tensor::FromVector(kX, Shape{2, 3});
  const Maybe<Tensor> gate = Tensor::FromVector(kGate, Shape{3, 2});
  const Maybe<Tensor> y = example::Swiglu(x.value(), gate.value());
  std::cout << "  a mismatched call gives " << oflite::ErrorKindName(y.error().kind()) << ": "
            << y.error().message() << "\n";
}

}  // namespace

int main() {
  std::cout << "oneflow_lite " << oflite::Version() << " (compiled against "
            << OFLITE_VERSION_STRING << ")\n";
  std::vector<Device> devices = {Device::Cpu()};
  if (oflite::ep::DeviceCount(oflite::DeviceType::kCUDA) > 0) {
    devices.push_back(Device::Cuda(0));
  }
  for (const Device& device : devices) {
    const Maybe<void> result = RunOn(device);
    if (!result.ok()) {
      std::cerr << result.error().ToString() << "\n";
      return 1;
    }
  }
  ShowAnError();
  std::cout << "swiglu: all results match\n";
  return 0;
}
