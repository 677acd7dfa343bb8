#include "tools/oflite/bench_global.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "oneflow_lite/dist/process_group.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/global_dispatch.h"
#include "oneflow_lite/framework/global_tensor.h"
#include "oneflow_lite/functional/functional.h"
#include "oneflow_lite/functional/global.h"
#include "tools/oflite/ranks.h"

namespace oflite {
namespace cli {

namespace {

// Median milliseconds of `reps` runs of `step`, each finished on the device (and on every rank:
// the barrier keeps one rank's step from overlapping the next of another).
Maybe<double> MedianMs(const BenchOptions& options, dist::Communicator* cpu, ep::Stream* stream,
                       const std::function<Maybe<void>()>& step) {
  std::vector<double> ms;
  for (int i = 0; i < options.warmup + options.reps; ++i) {
    OFLITE_JUST(cpu->Barrier());
    const auto start = std::chrono::steady_clock::now();
    OFLITE_JUST(step());
    OFLITE_JUST(stream->Sync());
    const auto end = std::chrono::steady_clock::now();
    if (i >= options.warmup) {
      ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// NCCL's bus bandwidth factors (nccl-tests' PERFORMANCE.md): how much of `bytes` each rank's
// links carry for the collective.
double BusFactor(const std::string& collective, int n) {
  const double ranks = n;
  return collective == "all-reduce" ? 2 * (ranks - 1) / ranks : (ranks - 1) / ranks;
}

void Print(const char* what, double ms, double bytes, double bus_factor) {
  const double algbw = bytes / (ms * 1e6);
  std::printf("%-32s %10.3f ms  algbw %8.1f GB/s  busbw %8.1f GB/s\n", what, ms, algbw,
              algbw * bus_factor);
}

}  // namespace

Maybe<void> BenchGlobal(const BenchOptions& options) {
  Device device;
  OFLITE_ASSIGN_OR_RETURN(device, Device::Parse(options.device.empty() ? "cuda" : options.device));
  DataType dtype;
  OFLITE_ASSIGN_OR_RETURN(dtype, ParseDataType(options.dtype));
  AttrValue shape_value;
  OFLITE_ASSIGN_OR_RETURN(
      shape_value,
      ParseAttrValue(AttrType::kShape, options.shape.empty() ? "8192,8192" : options.shape));
  const Shape shape = *shape_value.TryGet<Shape>();
  OFLITE_CHECK_OR_RETURN(shape.rank() == 2, ValueError)
      << "bench --global: --shape is R,C, got " << shape;
  OFLITE_CHECK_OR_RETURN(options.warmup >= 0 && options.reps >= 1, ValueError)
      << "bench --global: --warmup must be >= 0 and --reps >= 1, got " << options.warmup << " and "
      << options.reps;
  // The device's communicator first: on CUDA its creation fails every rank alike when one
  // has no GPU of its LOCAL_RANK.
  OFLITE_JUST(JoinRanks(options.nproc, device.type()));
  dist::Communicator* cpu = nullptr;
  OFLITE_ASSIGN_OR_RETURN(cpu, dist::GetCommunicator(DeviceType::kCPU));
  const Device local =
      device.type() == DeviceType::kCUDA ? Device::Cuda(dist::LocalRank()) : device;
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(local));
  std::vector<int> ranks;
  for (int r = 0; r < dist::WorldSize(); ++r) {
    ranks.push_back(r);
  }
  const Placement placement(local.type(), ranks);
  const bool report = dist::Rank() == 0;
  if (report) {
    std::printf("global bench: %d ranks, %s, %s (%s)\n", dist::WorldSize(),
                shape.ToString().c_str(), DataTypeName(dtype), local.ToString().c_str());
  }
  Tensor whole;
  OFLITE_ASSIGN_OR_RETURN(whole, Tensor::Full(shape, 1.0, dtype, local));
  const double bytes = static_cast<double>(whole.nbytes());
  struct Boxing {
    Sbp from, to;
    const char* collective;
  };
  const std::vector<Boxing> boxings = {{SplitSbp(0), BroadcastSbp(), "all-gather"},
                                       {PartialSumSbp(), BroadcastSbp(), "all-reduce"},
                                       {PartialSumSbp(), SplitSbp(0), "reduce-scatter"},
                                       {SplitSbp(0), SplitSbp(1), "all-to-all"}};
  // The communicator's collectives alone, on buffers made once: what boxing adds is the rest.
  dist::Communicator* engine = nullptr;
  OFLITE_ASSIGN_OR_RETURN(engine, dist::GetCommunicator(local.type()));
  const int world = dist::WorldSize();
  const int64_t total = whole.elem_cnt();
  const int64_t shard = total / world;
  Tensor out_whole, in_shard, out_shard;
  OFLITE_ASSIGN_OR_RETURN(out_whole, Tensor::Empty(shape, dtype, local));
  OFLITE_ASSIGN_OR_RETURN(in_shard, Tensor::Full(Shape{shard}, 1.0, dtype, local));
  OFLITE_ASSIGN_OR_RETURN(out_shard, Tensor::Empty(Shape{shard}, dtype, local));
  const std::vector<int64_t> shards(static_cast<size_t>(world), shard);
  const std::vector<int64_t> blocks(static_cast<size_t>(world), shard / world);
  ep::Stream* stream = ep_device->stream();
  auto raw = [&](const std::string& collective) -> Maybe<void> {
    if (collective == "all-gather") {
      return engine->AllGather(in_shard.data(), out_whole.mut_data(), shards, dtype, stream);
    }
    if (collective == "all-reduce") {
      return engine->AllReduceSum(whole.data(), out_whole.mut_data(), total, dtype, stream);
    }
    if (collective == "reduce-scatter") {
      return engine->ReduceScatterSum(whole.data(), out_shard.mut_data(), shards, dtype, stream);
    }
    return engine->AllToAll(in_shard.data(), blocks, out_shard.mut_data(), blocks, dtype, stream);
  };
  for (const Boxing& b : boxings) {
    GlobalTensor from;
    OFLITE_ASSIGN_OR_RETURN(from, GlobalTensor::FromWhole(whole, placement, {b.from}));
    double ms = 0;
    OFLITE_ASSIGN_OR_RETURN(ms, MedianMs(options, cpu, ep_device->stream(), [&]() -> Maybe<void> {
                              GlobalTensor to;
                              OFLITE_ASSIGN_OR_RETURN(to, from.ToGlobal(placement, {b.to}));
                              return Ok();
                            }));
    if (report) {
      const std::string what =
          SbpToString(b.from) + " -> " + SbpToString(b.to) + " " + b.collective;
      // All-to-all moves one shard a rank (nccl-tests' size); the others the whole tensor.
      const bool all_to_all = std::string(b.collective) == "all-to-all";
      Print(what.c_str(), ms, all_to_all ? bytes / dist::WorldSize() : bytes,
            BusFactor(b.collective, dist::WorldSize()));
    }
    double raw_ms = 0;
    OFLITE_ASSIGN_OR_RETURN(raw_ms,
                            MedianMs(options, cpu, stream, [&] { return raw(b.collective); }));
    if (report) {
      const bool all_to_all = std::string(b.collective) == "all-to-all";
      Print("  the collective alone", raw_ms, all_to_all ? bytes / dist::WorldSize() : bytes,
            BusFactor(b.collective, dist::WorldSize()));
    }
  }
  // R x R matmuls: data-parallel and tensor-parallel, with the one-device product beside them.
  const int64_t n = shape[0];
  Tensor x, w;
  OFLITE_ASSIGN_OR_RETURN(x, Tensor::Full(Shape{n, n}, 0.01, dtype, local));
  OFLITE_ASSIGN_OR_RETURN(w, Tensor::Full(Shape{n, n}, 0.01, dtype, local));
  // The tensor-parallel product twice: the product then its S(1) -> B, and the call that names
  // the output's SBP (made in row chunks that travel while the next is computed, where the
  // communicator can; its line says which route it took).
  struct Parallel {
    const char* name;
    Sbp x_sbp, w_sbp;
    bool out_sbp_named;
  };
  for (const Parallel& p :
       {Parallel{"matmul x S(0) w B", SplitSbp(0), BroadcastSbp(), false},
        Parallel{"matmul x B w S(1), out -> B", BroadcastSbp(), SplitSbp(1), false},
        Parallel{"matmul x B w S(1) out B", BroadcastSbp(), SplitSbp(1), true}}) {
    GlobalTensor gx, gw;
    OFLITE_ASSIGN_OR_RETURN(gx, GlobalTensor::FromWhole(x, placement, {p.x_sbp}));
    OFLITE_ASSIGN_OR_RETURN(gw, GlobalTensor::FromWhole(w, placement, {p.w_sbp}));
    const auto step = [&]() -> Maybe<void> {
      GlobalTensor y;
      if (p.out_sbp_named) {
        OFLITE_ASSIGN_OR_RETURN(y, functional::MatMul(gx, gw, {BroadcastSbp()}));
      } else {
        OFLITE_ASSIGN_OR_RETURN(y, functional::MatMul(gx, gw));
      }
      if (!p.out_sbp_named && p.w_sbp.is_split()) {
        OFLITE_ASSIGN_OR_RETURN(y, y.ToGlobal(placement, {BroadcastSbp()}));
      }
      return Ok();
    };
    std::string route;
    if (p.out_sbp_named) {
      GlobalTrace trace;
      OFLITE_JUST(step());
      route = trace.records().size() == 1 ? ", chunks" : ", 2 steps";
    }
    double ms = 0;
    OFLITE_ASSIGN_OR_RETURN(ms, MedianMs(options, cpu, ep_device->stream(), step));
    if (report) {
      std::printf("%-36s %10.3f ms  %8.1f TFLOP/s\n", (p.name + route).c_str(), ms,
                  2.0 * n * n * n / (ms * 1e9));
    }
  }
  double one = 0;
  OFLITE_ASSIGN_OR_RETURN(one, MedianMs(options, cpu, ep_device->stream(), [&]() -> Maybe<void> {
                            Tensor y;
                            OFLITE_ASSIGN_OR_RETURN(y, functional::MatMul(x, w));
                            return Ok();
                          }));
  if (report) {
    std::printf("%-36s %10.3f ms  %8.1f TFLOP/s\n", "matmul on this rank's device alone", one,
                2.0 * n * n * n / (one * 1e9));
  }
  dist::Shutdown();
  return Ok();
}

}  // namespace cli
}  // namespace oflite
