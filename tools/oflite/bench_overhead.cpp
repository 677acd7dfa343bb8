// `oflite bench --overhead`: the host time one functional call costs on tiny tensors, where the
// kernel is negligible and the runtime around it is all there is. Each call runs --calls times in
// a loop (the device synchronized before and after, never inside), three times; the median run's
// microseconds per call are reported. tools/reference/libtorch_overhead.cpp times the same calls
// through libtorch's C++ API and tools/reference/launch_floor.cu an empty CUDA kernel's launch.
#include "tools/oflite/bench_overhead.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/functional/functional.h"

namespace oflite {
namespace cli {
namespace {

constexpr int kRuns = 3;

struct OverheadCase {
  const char* name;  // as the table in docs/BENCHMARKS.md names the call
  std::function<Maybe<Tensor>()> call;
};

Maybe<std::vector<OverheadCase>> MakeCases(const Device& device) {
  Tensor one, x, m;
  OFLITE_ASSIGN_OR_RETURN(one, Tensor::Full(Shape{1}, 1.5, DataType::kFloat32, device));
  OFLITE_ASSIGN_OR_RETURN(x, Tensor::Full(Shape{8, 128}, 0.25, DataType::kFloat32, device));
  OFLITE_ASSIGN_OR_RETURN(m, Tensor::Full(Shape{64, 64}, 0.5, DataType::kFloat32, device));
  return std::vector<OverheadCase>{
      {"add (1) + (1)", [one] { return functional::Add(one, one); }},
      {"softmax (8,128) dim -1", [x] { return functional::Softmax(x, -1); }},
      {"softmax (8,128) dim 0", [x] { return functional::Softmax(x, 0); }},
      {"matmul (64,64) x (64,64)", [m] { return functional::MatMul(m, m); }},
  };
}

// Microseconds per call of one run of `calls` calls.
Maybe<double> TimeRun(const OverheadCase& c, ep::Stream* stream, int64_t calls) {
  OFLITE_JUST(stream->Sync());
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < calls; ++i) {
    OFLITE_JUST(c.call());
  }
  OFLITE_JUST(stream->Sync());
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / static_cast<double>(calls);
}

}  // namespace

Maybe<void> BenchOverhead(const Device& device, int64_t calls, bool json) {
  OFLITE_CHECK_OR_RETURN(calls >= 1, ValueError)
      << "bench --overhead: --calls must be >= 1, got " << calls;
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(device));
  std::vector<OverheadCase> cases;
  OFLITE_ASSIGN_OR_RETURN(cases, MakeCases(device));
  if (!json) {
    std::printf("host time per call on %s (%lld calls per run, median of %d runs)\n",
                device.ToString().c_str(), static_cast<long long>(calls), kRuns);
  }
  for (const OverheadCase& c : cases) {
    OFLITE_JUST(TimeRun(c, ep_device->default_stream(), std::min<int64_t>(calls, 1000)));  // warm
    std::vector<double> runs;
    for (int r = 0; r < kRuns; ++r) {
      double us = 0;
      OFLITE_ASSIGN_OR_RETURN(us, TimeRun(c, ep_device->default_stream(), calls));
      runs.push_back(us);
    }
    std::vector<double> sorted = runs;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[kRuns / 2];
    if (json) {
      std::printf(
          "{\"bench\": \"overhead\", \"call\": \"%s\", \"device\": \"%s\", \"calls\": %lld, "
          "\"us_per_call\": %.3f, \"runs_us\": [%.3f, %.3f, %.3f]}\n",
          c.name, device.ToString().c_str(), static_cast<long long>(calls), median, runs[0],
          runs[1], runs[2]);
    } else {
      std::printf("  %-26s %8.2f us   (runs %.2f %.2f %.2f)\n", c.name, median, runs[0], runs[1],
                  runs[2]);
    }
  }
  return Ok();
}

}  // namespace cli
}  // namespace oflite
