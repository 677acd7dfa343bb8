// `oflite demo`: softmax over dim 0 and the last dim, and log_softmax, on one small tensor,
// printing results and which kernel and primitive served each dispatch.
#include <functional>
#include <iomanip>
#include <iostream>

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/functional/functional.h"
#include "tools/oflite/commands.h"

namespace oflite {
namespace cli {

namespace {
void PrintMatrix(const Shape& shape, const std::vector<float>& values) {
  for (int64_t r = 0; r < shape[0]; ++r) {
    std::cout << "    [";
    for (int64_t c = 0; c < shape[1]; ++c) {
      std::cout << (c ? ", " : "") << std::fixed << std::setprecision(5) << std::setw(9)
                << values[static_cast<size_t>(r * shape[1] + c)];
    }
    std::cout << "]\n";
  }
}

using Call = std::function<Maybe<Tensor>(const Tensor&)>;

struct TracedResult {
  Maybe<Tensor> y;
  std::vector<DispatchRecord> records;
};

TracedResult RunTraced(const Call& call, const Tensor& x) {
  DispatchTrace trace;
  Maybe<Tensor> y = call(x);
  return {std::move(y), trace.records()};
}

// Runs the call on `device` and reports how it travelled. NotImplemented means the device's
// provider cannot serve it (yet); only then does the demo move the call to the CPU.
Maybe<void> Show(const std::string& title, const Call& call, const Tensor& x_cpu,
                 const Device& preferred) {
  std::cout << "\n" << title << "\n";
  Tensor x;
  OFLITE_ASSIGN_OR_RETURN(x, x_cpu.To(preferred));
  TracedResult result = RunTraced(call, x);
  if (!result.y.ok() && result.y.error().kind() == ErrorKind::kNotImplemented &&
      preferred != Device::Cpu()) {
    std::cout << "  (" << preferred << " cannot serve this call yet: " << result.y.error().message()
              << "; running it on cpu)\n";
    result = RunTraced(call, x_cpu);
  }
  OFLITE_JUST(result.y);
  for (const DispatchRecord& record : result.records) {
    std::cout << "  dispatch " << record.op_type << " on " << record.device << ": kernel "
              << record.kernel << ", primitive";
    for (const std::string& p : record.primitives) {
      std::cout << " " << p;
    }
    std::cout << "\n";
  }
  Tensor y_cpu;
  OFLITE_ASSIGN_OR_RETURN(y_cpu, result.y.value().To(Device::Cpu()));
  std::vector<float> values;
  OFLITE_ASSIGN_OR_RETURN(values, y_cpu.ToVector<float>());
  PrintMatrix(y_cpu.shape(), values);
  return Ok();
}

Maybe<void> Demo() {
  const Shape shape = {3, 4};
  const std::vector<float> data = {1, 2, 3, 4, 0.5f, -1, 2, 0, -3, 10, 1, 1};
  Tensor x;
  OFLITE_ASSIGN_OR_RETURN(x, Tensor::FromVector(data, shape));
  const Device preferred = ep::DeviceCount(DeviceType::kCUDA) > 0 ? Device::Cuda(0) : Device::Cpu();
  std::cout << "oneflow_lite demo: " << ep::DeviceCount(DeviceType::kCUDA)
            << " CUDA device(s) visible, preferring " << preferred << "\n";
  std::cout << "x " << shape << " float32\n";
  PrintMatrix(shape, data);
  OFLITE_JUST(Show(
      "softmax(x, dim=0)  [dim 0 is moved last by a transpose, then back]",
      [](const Tensor& t) { return functional::Softmax(t, 0); }, x, preferred));
  OFLITE_JUST(Show(
      "softmax(x, dim=-1)", [](const Tensor& t) { return functional::Softmax(t, -1); }, x,
      preferred));
  OFLITE_JUST(Show(
      "log_softmax(x, dim=-1)", [](const Tensor& t) { return functional::LogSoftmax(t, -1); }, x,
      preferred));
  return Ok();
}
}  // namespace

int DemoCommand() {
  const Maybe<void> result = Demo();
  return result.ok() ? 0 : ReportError(result.error());
}

}  // namespace cli
}  // namespace oflite
