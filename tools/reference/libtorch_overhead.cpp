// The calls `oflite bench --overhead` times, through libtorch's C++ API: host microseconds per
// call, --calls calls per run with the device synchronized only around the loop, median of 3 runs.
// Built and run by overhead.sh on a machine whose python3 has torch.
//
// usage: libtorch_overhead cpu|cuda [calls]
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

void Sync(const torch::Device& device) {
  if (device.is_cuda()) {
    torch::cuda::synchronize();
  }
}

double MicrosecondsPerCall(const std::function<torch::Tensor()>& call, const torch::Device& device,
                           long calls) {
  Sync(device);
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; ++i) {
    call();
  }
  Sync(device);
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / static_cast<double>(calls);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string where = argc > 1 ? argv[1] : "cpu";
  const long calls = argc > 2 ? std::atol(argv[2]) : 20000;
  const torch::Device device(where == "cuda" ? torch::kCUDA : torch::kCPU);
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  const torch::Tensor one = torch::full({1}, 1.5, options);
  const torch::Tensor x = torch::full({8, 128}, 0.25, options);
  const torch::Tensor m = torch::full({64, 64}, 0.5, options);
  const std::vector<std::pair<const char*, std::function<torch::Tensor()>>> cases = {
      {"add (1) + (1)", [&] { return torch::add(one, one); }},
      {"softmax (8,128) dim -1", [&] { return torch::softmax(x, -1); }},
      {"softmax (8,128) dim 0", [&] { return torch::softmax(x, 0); }},
      {"matmul (64,64) x (64,64)", [&] { return torch::matmul(m, m); }},
  };
  torch::NoGradGuard no_grad;
  std::printf("libtorch %s: host time per call on %s (%ld calls per run, median of 3 runs)\n",
              TORCH_VERSION, where.c_str(), calls);
  for (const auto& [name, call] : cases) {
    MicrosecondsPerCall(call, device, std::min(calls, 1000L));  // warm-up
    std::vector<double> runs;
    for (int r = 0; r < 3; ++r) {
      runs.push_back(MicrosecondsPerCall(call, device, calls));
    }
    std::vector<double> sorted = runs;
    std::sort(sorted.begin(), sorted.end());
    std::printf("  %-26s %8.2f us   (runs %.2f %.2f %.2f)\n", name, sorted[1], runs[0], runs[1],
                runs[2]);
  }
  return 0;
}
