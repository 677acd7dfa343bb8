#include "tools/oflite/bench_sgemm.h"

#include <climits>

#include "oneflow_lite/ep/device.h"

#ifdef OFLITE_WITH_CUDA
#include "ep/cuda/sgemm/sgemm.h"
#endif

namespace oflite {
namespace cli {

#ifdef OFLITE_WITH_CUDA

namespace {

std::string RungNames() {
  std::string names;
  for (const ep::sgemm::SgemmRung& rung : ep::sgemm::Rungs()) {
    names += (names.empty() ? "" : ", ") + rung.name;
  }
  return names;
}

Maybe<Tensor> LaunchRung(const ep::sgemm::SgemmRung& rung, const Device& device,
                         const std::vector<Tensor>& in) {
  const Tensor &a = in[0], &b = in[1];
  OFLITE_CHECK_OR_RETURN(
      a.shape().rank() == 2 && b.shape().rank() == 2 && a.shape()[1] == b.shape()[0], ValueError)
      << "bench: " << rung.name << " multiplies an (m, k) by a (k, n) matrix, got "
      << a.shape().ToString() << " and " << b.shape().ToString();
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  OFLITE_CHECK_OR_RETURN(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX, ValueError)
      << "bench: " << rung.name << " takes m, n, k up to " << INT_MAX;
  Tensor c;
  OFLITE_ASSIGN_OR_RETURN(c, Tensor::Empty(Shape{m, n}, DataType::kFloat32, device));
  ep::Device* dev = nullptr;
  OFLITE_ASSIGN_OR_RETURN(dev, ep::GetDevice(device));
  void* stream = nullptr;
  OFLITE_ASSIGN_OR_RETURN(stream, dev->default_stream()->NativeHandle());
  const cudaError_t status =
      rung.launch(static_cast<cudaStream_t>(stream), static_cast<int>(m), static_cast<int>(n),
                  static_cast<int>(k), 1.0f, static_cast<const float*>(a.data()),
                  static_cast<const float*>(b.data()), 0.0f, static_cast<float*>(c.mut_data()));
  OFLITE_CHECK_OR_RETURN(status == cudaSuccess, DeviceError)
      << "bench: " << rung.name << " launch failed: " << cudaGetErrorString(status);
  return c;
}

}  // namespace

Maybe<BenchCall> SgemmRungCall(const std::string& impl, const std::string& function,
                               bool transposed, DataType dtype, const Device& device) {
  const ep::sgemm::SgemmRung* rung = ep::sgemm::FindRung(impl);
  OFLITE_CHECK_OR_RETURN(rung != nullptr, ValueError)
      << "bench: unknown impl '" << impl << "' (expected cublas, " << RungNames() << ")";
  OFLITE_CHECK_OR_RETURN(function == "matmul" && !transposed && dtype == DataType::kFloat32 &&
                             device.type() == DeviceType::kCUDA,
                         ValueError)
      << "bench: impl=" << impl << " times float32 matmul without transposes on cuda, got "
      << function << (transposed ? " (transposed)" : "") << " " << DataTypeName(dtype) << " on "
      << device;
  return BenchCall(
      [rung, device](const std::vector<Tensor>& in) { return LaunchRung(*rung, device, in); });
}

#else

Maybe<BenchCall> SgemmRungCall(const std::string& impl, const std::string&, bool, DataType,
                               const Device&) {
  return OFLITE_ERROR(NotImplemented)
         << "bench: impl=" << impl << " is a rung of the CUDA SGEMM ladder: this build has no CUDA";
}

#endif

}  // namespace cli
}  // namespace oflite
