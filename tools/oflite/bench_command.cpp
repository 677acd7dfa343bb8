// `oflite bench`: times a functional call on a device the way docs/BENCHMARKS.md measures the
// alternatives: CUDA events around the call after warm-up, L2 flushed (a 512 MB fill) before each
// rep, the median of the reps; effective bandwidth counts each input read once and the output
// written once (the sum of the inputs' bytes plus the output's, whatever their shapes and dtypes).
// `--sweep softmax` runs the rows=49152 sweep; its table gives each shape's GB/s as a
// share of a 2 GiB copy and, beside it, the GB/s of a copy of the tensor's own bytes.
//
// Inputs are random tensors of --shape and --dtype. One input may take another shape with
// `--arg <tensor>_shape=D0,D1,...`, <tensor> being the function's name for it (`oflite bench add
// --shape 8192,8192 --arg y_shape=8192,1` adds a column to every row); these arguments are the
// bench's, the rest go to the function (`oflite bench cast --arg dtype=float16`).
//
// `oflite bench matmul --shape M,N,K` multiplies a of (M,K) by b of (K,N) (stored (K,M) and
// (N,K) with --arg transpose_a=true / transpose_b=true; a_shape/b_shape still override, for
// batched products) and reports TFLOP/s, 2 * (output elements) * K over the median time,
// besides GB/s. `--arg allow_tf32=true` is the bench's too: it sets ep::SetAllowTf32 for the
// run (float32 products may use TF32 tensor cores), and so is `--arg impl=sgemm_v3`: a rung of
// the hand-written SGEMM ladder (ep/cuda/sgemm) timed instead of the runtime's float32 product.
//
// `oflite bench --overhead [--device D] [--calls N] [--json]` times the host cost of one call
// instead (bench_overhead.cpp).
//
// `oflite bench fused_matmul_bias_act --shape M,N,K --arg activation=gelu` takes matmul's a and
// b and a bias of (N), and reports TFLOP/s the same way (the bias and the activation's work not
// counted).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ep/softmax_impl.h"
#include "oneflow_lite/common/join.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/ep/event.h"
#include "oneflow_lite/ep/matmul_settings.h"
#include "oneflow_lite/ep/num_threads.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/primitive/fill.h"
#include "oneflow_lite/primitive/memcpy.h"
#include "tools/oflite/bench_global.h"
#include "tools/oflite/bench_overhead.h"
#include "tools/oflite/bench_sgemm.h"
#include "tools/oflite/commands.h"
#include "tools/oflite/function_table.h"
#include "tools/oflite/ranks.h"

namespace oflite {
namespace cli {

namespace {

// The functions benched as matrix products: --shape M,N,K, TFLOP/s reported.
bool IsMatMulBench(const std::string& name) {
  return name == "matmul" || name == "fused_matmul_bias_act";
}

constexpr size_t kFlushBytes = size_t{512} << 20;  // several times any current L2
constexpr int64_t kSweepRows = 49152;
constexpr int64_t kSweepCols[] = {32,   64,   128,  256,  512,   1000,  1024, 1025,
                                  2048, 3000, 4096, 8192, 12345, 16384, 32768};

struct BenchResult {
  std::string function;
  Shape shape;
  std::vector<Shape> input_shapes;  // where they differ from shape (broadcasting benches)
  DataType dtype = DataType::kFloat32;
  Device device;
  double median_ms = 0;
  double bytes = 0;
  double flops = 0;  // floating-point operations per call, for matrix products; 0 otherwise
  std::string impl;
  double gbps() const { return bytes / (median_ms * 1e-3) / 1e9; }
  double tflops() const { return flops / (median_ms * 1e-3) / 1e12; }
};

struct Timing {
  ep::Device* device;
  Tensor flush;  // written before each rep so inputs come from memory, not L2
  std::unique_ptr<primitive::Fill> fill;
};

Maybe<Timing> MakeTiming(const Device& device) {
  Timing timing;
  OFLITE_ASSIGN_OR_RETURN(timing.device, ep::GetDevice(device));
  if (device.type() != DeviceType::kCPU) {
    OFLITE_ASSIGN_OR_RETURN(
        timing.flush,
        Tensor::Empty(Shape{static_cast<int64_t>(kFlushBytes / 4)}, DataType::kFloat32, device));
    timing.fill =
        primitive::NewPrimitive<primitive::FillFactory>(device.type(), DataType::kFloat32);
    OFLITE_CHECK_OR_RETURN(timing.fill != nullptr, NotImplemented)
        << "bench: no fill primitive on " << device << " to flush the cache";
  }
  return timing;
}

// Untimed CPU calls go on until this much time has passed as well: in a fresh process the
// first tens of milliseconds of a parallel call run slower (threads and clocks still waking).
constexpr std::chrono::milliseconds kMinCpuWarmup{200};

// Median milliseconds of `call` over reps, after warmup, flushing before each rep.
template <typename Call>
Maybe<double> TimeMedian(Timing* timing, const Device& device, int warmup, int reps, Call call) {
  OFLITE_CHECK_OR_RETURN(reps >= 1, ValueError) << "bench: needs at least one rep";
  const auto warm_until = std::chrono::steady_clock::now() + kMinCpuWarmup;
  for (int i = 0; i < warmup || (warmup > 0 && device.type() == DeviceType::kCPU &&
                                 std::chrono::steady_clock::now() < warm_until);
       ++i) {
    OFLITE_JUST(call());
  }
  std::unique_ptr<ep::Event> start, end;
  OFLITE_ASSIGN_OR_RETURN(start, ep::NewEvent(device));
  OFLITE_ASSIGN_OR_RETURN(end, ep::NewEvent(device));
  ep::Stream* stream = timing->device->default_stream();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    if (timing->fill != nullptr) {
      OFLITE_JUST(timing->fill->Launch(stream, timing->flush.mut_data(), i + 1.0,
                                       static_cast<size_t>(timing->flush.elem_cnt())));
    }
    OFLITE_JUST(start->Record(stream));
    OFLITE_JUST(call());
    OFLITE_JUST(end->Record(stream));
    OFLITE_JUST(end->Synchronize());
    float ms = 0;
    OFLITE_ASSIGN_OR_RETURN(ms, end->ElapsedMsSince(*start));
    times.push_back(ms);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

// Uniform values in [-4, 4) (never zeros): a 4M-element random block copied over the tensor.
Maybe<Tensor> RandomTensor(const Shape& shape, DataType dtype, const Device& device,
                           uint64_t seed) {
  Tensor t;
  OFLITE_ASSIGN_OR_RETURN(t, Tensor::Empty(shape, dtype, device));
  const size_t esize = DataTypeSize(dtype);
  const size_t total = static_cast<size_t>(t.elem_cnt());
  const size_t block = std::min<size_t>(total, size_t{1} << 22);
  std::vector<char> host(block * esize);
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> dist(-4.0, 4.0);
  VisitDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto* p = reinterpret_cast<T*>(host.data());
    for (size_t i = 0; i < block; ++i) {
      p[i] = static_cast<T>(dist(engine));
    }
  });
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(device));
  auto h2d = primitive::NewPrimitive<primitive::MemcpyFactory>(
      device.type(), primitive::MemcpyKind::kHostToDevice);
  auto d2d = primitive::NewPrimitive<primitive::MemcpyFactory>(
      device.type(), primitive::MemcpyKind::kDeviceToDevice);
  OFLITE_CHECK_OR_RETURN(h2d != nullptr && d2d != nullptr, NotImplemented)
      << "bench: no memcpy on " << device;
  char* dst = static_cast<char*>(t.mut_data());
  ep::Stream* stream = ep_device->default_stream();
  OFLITE_JUST(h2d->Launch(stream, dst, host.data(), host.size()));
  for (size_t filled = block; filled < total;) {  // double the filled prefix each step
    const size_t n = std::min(filled, total - filled);
    OFLITE_JUST(d2d->Launch(stream, dst + filled * esize, dst, n * esize));
    filled += n;
  }
  OFLITE_JUST(stream->Sync());
  return t;
}

std::string LastImpl(const DispatchTrace& trace) {
  std::string impl;
  for (const DispatchRecord& r : trace.records()) {
    if (r.op_type != "transpose" && !r.primitives.empty()) {
      impl = r.primitives[0];
    }
  }
  return impl;
}

// Inputs of input_shapes (one per tensor parameter of f), all of dtype.
// rung: an SGEMM ladder rung's call (bench_sgemm.h) to time instead of f's, or empty.
Maybe<BenchResult> BenchFunction(const FunctionEntry& f, const AttrMap& args, const Shape& shape,
                                 const std::vector<Shape>& input_shapes, DataType dtype,
                                 const Device& device, int warmup, int reps, Timing* timing,
                                 const BenchCall& rung) {
  std::vector<Tensor> inputs;
  double input_bytes = 0;
  for (size_t i = 0; i < f.tensors.size(); ++i) {
    Tensor t;
    OFLITE_ASSIGN_OR_RETURN(t, RandomTensor(input_shapes[i], dtype, device, 1000 + i));
    inputs.push_back(t);
    input_bytes += static_cast<double>(t.nbytes());
  }
  BenchResult result;
  result.function = f.name;
  result.shape = shape;
  result.dtype = dtype;
  result.device = device;
  if (std::any_of(input_shapes.begin(), input_shapes.end(),
                  [&](const Shape& s) { return s != shape; })) {
    result.input_shapes = input_shapes;
  }
  double output_bytes = 0;
  double output_elements = 0;
  DispatchTrace trace;
  OFLITE_ASSIGN_OR_RETURN(
      result.median_ms, TimeMedian(timing, device, warmup, reps, [&]() -> Maybe<void> {
        Tensor out;
        OFLITE_ASSIGN_OR_RETURN(out, rung ? rung(inputs) : f.call(inputs, args));
        output_bytes = static_cast<double>(out.nbytes());
        output_elements = static_cast<double>(out.elem_cnt());
        return Ok();
      }));
  // Each input read once, the output written once: inputs of different shapes (a broadcast
  // operand) or dtypes (a cast's output) count at their own size.
  result.bytes = input_bytes + output_bytes;
  if (IsMatMulBench(f.name)) {  // a multiply and an add per output element and step of K
    bool transpose_a = false;
    OFLITE_ASSIGN_OR_RETURN(transpose_a, args.Get<bool>("transpose_a"));
    const Shape& a = input_shapes[0];
    const int64_t k = a.rank() >= 2 && transpose_a ? a[a.rank() - 2] : a[a.rank() - 1];
    result.flops = 2.0 * output_elements * static_cast<double>(k);
  }
  result.impl = rung ? "" : LastImpl(trace);
  return result;
}

// Splits the bench's own `<tensor>_shape=...` arguments from the function's: shapes gets one
// shape per tensor parameter (--shape unless overridden), function_args the rest.
Maybe<void> SplitInputShapes(const FunctionEntry& f, const Shape& shape,
                             const std::vector<std::string>& args, std::vector<Shape>* shapes,
                             std::vector<std::string>* function_args,
                             std::vector<bool>* overridden) {
  shapes->assign(f.tensors.size(), shape);
  overridden->assign(f.tensors.size(), false);
  for (const std::string& pair : args) {
    const size_t eq = pair.find('=');
    const std::string name = pair.substr(0, eq);
    const bool is_shape = eq != std::string::npos && name.size() > 6 &&
                          name.compare(name.size() - 6, 6, "_shape") == 0 &&
                          FindAttrDef(f.args, name) == nullptr;
    if (!is_shape) {
      function_args->push_back(pair);
      continue;
    }
    const std::string tensor = name.substr(0, name.size() - 6);
    const auto it = std::find(f.tensors.begin(), f.tensors.end(), tensor);
    OFLITE_CHECK_OR_RETURN(it != f.tensors.end(), ValueError)
        << "bench: --arg " << name << ": " << f.name << " has no tensor '" << tensor
        << "' (tensors: " << Join(f.tensors) << ")";
    AttrValue value;
    OFLITE_ASSIGN_OR_RETURN(value, ParseAttrValue(AttrType::kShape, pair.substr(eq + 1)));
    const Shape s = *value.TryGet<Shape>();
    OFLITE_JUST(s.Validate());
    (*shapes)[static_cast<size_t>(it - f.tensors.begin())] = s;
    (*overridden)[static_cast<size_t>(it - f.tensors.begin())] = true;
  }
  return Ok();
}

// Takes the bench's own `name=VALUE` out of the function's arguments (unless the function has
// an argument of that name): the last value given, or nullopt.
std::optional<std::string> TakeBenchArg(const FunctionEntry& f, const std::string& name,
                                        std::vector<std::string>* function_args) {
  std::optional<std::string> value;
  if (FindAttrDef(f.args, name) != nullptr) {
    return value;
  }
  const std::string prefix = name + "=";
  for (auto it = function_args->begin(); it != function_args->end();) {
    if (it->rfind(prefix, 0) != 0) {
      ++it;
      continue;
    }
    value = it->substr(prefix.size());
    it = function_args->erase(it);
  }
  return value;
}

// The bench's `allow_tf32=BOOL`; false when not given.
Maybe<bool> TakeAllowTf32(const FunctionEntry& f, std::vector<std::string>* function_args) {
  const std::optional<std::string> text = TakeBenchArg(f, "allow_tf32", function_args);
  if (!text.has_value()) {
    return false;
  }
  auto value = ParseAttrValue(AttrType::kBool, *text);
  OFLITE_CHECK_OR_RETURN(value.ok(), ValueError)
      << "bench: --arg allow_tf32: " << (value.ok() ? "" : value.error().message());
  return *value.value().TryGet<bool>();
}

// matmul's inputs for --shape M,N,K: a (M,K) and b (K,N), stored transposed when asked; the
// fused op's bias is (N).
Maybe<void> MatMulInputShapes(const std::string& function, const Shape& shape, const AttrMap& args,
                              const std::vector<bool>& overridden, std::vector<Shape>* shapes) {
  OFLITE_CHECK_OR_RETURN(shape.rank() == 3, ValueError)
      << "bench " << function << ": --shape is M,N,K (a is M x K, b is K x N), got " << shape;
  bool transpose_a = false, transpose_b = false;
  OFLITE_ASSIGN_OR_RETURN(transpose_a, args.Get<bool>("transpose_a"));
  OFLITE_ASSIGN_OR_RETURN(transpose_b, args.Get<bool>("transpose_b"));
  const int64_t m = shape[0], n = shape[1], k = shape[2];
  if (!overridden[0]) {
    (*shapes)[0] = transpose_a ? Shape{k, m} : Shape{m, k};
  }
  if (!overridden[1]) {
    (*shapes)[1] = transpose_b ? Shape{n, k} : Shape{k, n};
  }
  if (shapes->size() > 2 && !overridden[2]) {
    (*shapes)[2] = Shape{n};
  }
  return Ok();
}

// Device-to-device copy of `bytes`: the bandwidth floor every memory-bound op is judged by.
Maybe<BenchResult> BenchCopy(const Device& device, size_t bytes, int warmup, int reps,
                             Timing* timing) {
  Tensor src, dst;
  const Shape shape{static_cast<int64_t>(bytes)};
  OFLITE_ASSIGN_OR_RETURN(src, Tensor::Full(shape, 1, DataType::kUInt8, device));
  OFLITE_ASSIGN_OR_RETURN(dst, Tensor::Empty(shape, DataType::kUInt8, device));
  auto d2d = primitive::NewPrimitive<primitive::MemcpyFactory>(
      device.type(), primitive::MemcpyKind::kDeviceToDevice);
  OFLITE_CHECK_OR_RETURN(d2d != nullptr, NotImplemented) << "bench: no memcpy on " << device;
  ep::Stream* stream = timing->device->default_stream();
  BenchResult result;
  result.function = "copy";
  result.shape = Shape{static_cast<int64_t>(bytes / 4)};  // float32 words, unless the caller says
  result.device = device;
  OFLITE_ASSIGN_OR_RETURN(result.median_ms, TimeMedian(timing, device, warmup, reps, [&] {
                            return d2d->Launch(stream, dst.mut_data(), src.data(), src.nbytes());
                          }));
  result.bytes = 2.0 * static_cast<double>(src.nbytes());
  result.impl = d2d->name();
  return result;
}

std::string ToJson(const BenchResult& r) {
  std::ostringstream out;
  out << "{\"function\": \"" << r.function << "\", \"shape\": [";
  for (int64_t i = 0; i < r.shape.rank(); ++i) {
    out << (i ? ", " : "") << r.shape[i];
  }
  out << "]";
  if (!r.input_shapes.empty()) {
    out << ", \"input_shapes\": [";
    for (size_t i = 0; i < r.input_shapes.size(); ++i) {
      out << (i ? ", " : "") << "[";
      for (int64_t d = 0; d < r.input_shapes[i].rank(); ++d) {
        out << (d ? ", " : "") << r.input_shapes[i][d];
      }
      out << "]";
    }
    out << "]";
  }
  out << ", \"dtype\": \"" << r.dtype << "\", \"device\": \"" << r.device
      << "\", \"median_ms\": " << r.median_ms << ", \"bytes\": " << static_cast<int64_t>(r.bytes)
      << ", \"gbps\": " << r.gbps();
  if (r.flops > 0) {
    out << ", \"tflops\": " << r.tflops();
  }
  out << ", \"impl\": \"" << r.impl << "\"";
  if (r.device.type() == DeviceType::kCPU) {
    out << ", \"threads\": " << GetNumThreads();
  }
  out << "}";
  return out.str();
}

Maybe<Device> BenchDevice(const std::string& text) {
  if (!text.empty()) {
    return Device::Parse(text);
  }
  return ep::DeviceCount(DeviceType::kCUDA) > 0 ? Device::Cuda(0) : Device::Cpu();
}

// One shape of the softmax sweep: both functions, and a copy of the tensor's own bytes under the
// same flush (short kernels pay for the dirty lines the flush leaves in L2, so this, not the
// 2 GiB copy, is what a tensor's size allows).
struct SweepRow {
  BenchResult softmax;
  BenchResult log_softmax;
  double same_size_copy_gbps = 0;
};

Maybe<BenchResult> BenchSweepFunction(const char* name, const Shape& shape, DataType dtype,
                                      const Device& device, const BenchOptions& options,
                                      Timing* timing) {
  const FunctionEntry* f = nullptr;
  OFLITE_ASSIGN_OR_RETURN(f, FindFunction(name));
  AttrMap args;
  OFLITE_ASSIGN_OR_RETURN(args, ParseArgs(*f, {}));
  BenchResult r;
  OFLITE_ASSIGN_OR_RETURN(r, BenchFunction(*f, args, shape, {shape}, dtype, device, options.warmup,
                                           options.reps, timing, BenchCall()));
  std::cerr << name << " " << shape << " " << dtype << ": " << r.gbps() << " GB/s  " << r.impl
            << "\n";
  return r;
}

// The second sweep: shapes people run (vocabulary rows, a non-last dim, a few very long rows),
// each beside a copy of its bytes under the same flush. "x copy" is the call's time over the
// copy's, "line" the most it may be; a call over a non-last dim moves its bytes three times
// (transpose, softmax, transpose back), so its line is set against three copies.
struct ShapeCase {
  const char* function;
  Shape shape;
  int64_t dim;
  DataType dtype;
};
constexpr int64_t kFewRows = 132;  // an H200's SMs
const ShapeCase kSoftmaxShapes[] = {
    {"softmax", Shape{4096, 128256}, -1, DataType::kBFloat16},
    {"log_softmax", Shape{2048, 151936}, -1, DataType::kFloat32},
    {"softmax", Shape{1024, 32000}, -1, DataType::kFloat16},
    {"log_softmax", Shape{4096, 50257}, -1, DataType::kBFloat16},
    {"softmax", Shape{1024, 262143}, -1, DataType::kFloat16},
    {"softmax", Shape{16, 256, 4096}, 1, DataType::kFloat32},
    {"softmax", Shape{128, 64, 1024}, 0, DataType::kFloat16},
    {"softmax", Shape{32, 128, 128, 64}, 1, DataType::kBFloat16},
    {"softmax", Shape{2, 1048576}, -1, DataType::kFloat32},
    {"softmax", Shape{8, 524288}, -1, DataType::kFloat32},
    {"log_softmax", Shape{4, 1048579}, -1, DataType::kBFloat16},
    {"softmax", Shape{1, 4194307}, -1, DataType::kFloat32},
};

Maybe<void> SweepSoftmaxShapes(const BenchOptions& options, const Device& device, Timing* timing) {
  if (!options.json) {
    std::printf("%-12s %-22s %4s %9s %10s %10s %8s %6s %4s  %s\n", "function", "shape", "dim",
                "dtype", "ms", "copy ms", "x copy", "line", "met", "impl");
  }
  for (const ShapeCase& c : kSoftmaxShapes) {
    const FunctionEntry* f = nullptr;
    OFLITE_ASSIGN_OR_RETURN(f, FindFunction(c.function));
    AttrMap args;
    OFLITE_ASSIGN_OR_RETURN(args, ParseArgs(*f, {"dim=" + std::to_string(c.dim)}));
    BenchResult r;
    OFLITE_ASSIGN_OR_RETURN(r, BenchFunction(*f, args, c.shape, {c.shape}, c.dtype, device,
                                             options.warmup, options.reps, timing, BenchCall()));
    const size_t bytes = static_cast<size_t>(c.shape.elem_cnt()) * DataTypeSize(c.dtype);
    BenchResult copy;
    OFLITE_ASSIGN_OR_RETURN(copy, BenchCopy(device, bytes, options.warmup, options.reps, timing));
    const bool moved = c.dim != -1 && c.dim != c.shape.rank() - 1;
    // The issue-28 lines: 90% of a copy for rows of vocabulary length, twice a copy for fewer
    // rows than SMs, 1.3 x three copies over a non-last dim.
    const int64_t rows = c.shape.elem_cnt() / c.shape[c.shape.rank() - 1];
    const double line = moved ? 3 * 1.3 : rows < kFewRows ? 2.0 : 1 / 0.9;
    const double ratio = r.median_ms / copy.median_ms;
    if (options.json) {
      std::cout << "{\"sweep\": \"softmax-shapes\", \"function\": \"" << c.function
                << "\", \"shape\": [" << Join(c.shape.dims(), ", ") << "], \"dim\": " << c.dim
                << ", \"dtype\": \"" << DataTypeName(c.dtype) << "\", \"ms\": " << r.median_ms
                << ", \"copy_ms\": " << copy.median_ms << ", \"line\": " << line << ", \"impl\": \""
                << r.impl << "\"}\n";
      continue;
    }
    std::printf("%-12s %-22s %4lld %9s %10.4f %10.4f %8.2f %6.2f %4s  %s\n", c.function,
                c.shape.ToString().c_str(), static_cast<long long>(c.dim), DataTypeName(c.dtype),
                r.median_ms, copy.median_ms, ratio, line, ratio <= line ? "yes" : "no",
                r.impl.c_str());
  }
  return Ok();
}

Maybe<void> Sweep(const BenchOptions& options) {
  OFLITE_CHECK_OR_RETURN(options.sweep == "softmax" || options.sweep == "softmax-shapes",
                         ValueError)
      << "bench: unknown sweep '" << options.sweep << "' (known: softmax, softmax-shapes)";
  if (options.sweep == "softmax-shapes") {
    Device device;
    OFLITE_ASSIGN_OR_RETURN(device, BenchDevice(options.device));
    Timing timing;
    OFLITE_ASSIGN_OR_RETURN(timing, MakeTiming(device));
    return SweepSoftmaxShapes(options, device, &timing);
  }
  Device device;
  OFLITE_ASSIGN_OR_RETURN(device, BenchDevice(options.device));
  Timing timing;
  OFLITE_ASSIGN_OR_RETURN(timing, MakeTiming(device));
  BenchResult copy;
  OFLITE_ASSIGN_OR_RETURN(
      copy, BenchCopy(device, size_t{1} << 31, options.warmup, options.reps, &timing));
  std::cerr << "copy 2 GiB: " << copy.gbps() << " GB/s\n";
  auto print_json = [&](const BenchResult& r) {
    if (options.json) {
      std::cout << ToJson(r) << "\n";
    }
  };
  print_json(copy);
  std::map<size_t, double> same_size_copy;  // tensor bytes -> GB/s, timed once per size
  std::vector<SweepRow> rows;
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}) {
    for (int64_t cols : kSweepCols) {
      const Shape shape{kSweepRows, cols};
      const size_t bytes = static_cast<size_t>(shape.elem_cnt()) * DataTypeSize(dtype);
      if (same_size_copy.count(bytes) == 0) {
        BenchResult c;
        OFLITE_ASSIGN_OR_RETURN(c, BenchCopy(device, bytes, options.warmup, options.reps, &timing));
        same_size_copy[bytes] = c.gbps();
        print_json(c);
      }
      SweepRow row;
      row.same_size_copy_gbps = same_size_copy.at(bytes);
      OFLITE_ASSIGN_OR_RETURN(
          row.softmax, BenchSweepFunction("softmax", shape, dtype, device, options, &timing));
      OFLITE_ASSIGN_OR_RETURN(row.log_softmax, BenchSweepFunction("log_softmax", shape, dtype,
                                                                  device, options, &timing));
      print_json(row.softmax);
      print_json(row.log_softmax);
      rows.push_back(row);
    }
  }
  std::printf("\nrows=%lld, copy bandwidth %.0f GB/s (%s)\n", static_cast<long long>(kSweepRows),
              copy.gbps(), device.ToString().c_str());
  std::printf("%6s %9s %12s %6s %12s %6s %10s  %s\n", "cols", "dtype", "softmax", "%copy",
              "log_softmax", "%copy", "same-copy", "softmax impl");
  for (const SweepRow& r : rows) {
    const BenchResult& s = r.softmax;
    const BenchResult& l = r.log_softmax;
    std::printf("%6lld %9s %12.0f %5.0f%% %12.0f %5.0f%% %10.0f  %s\n",
                static_cast<long long>(s.shape[1]), DataTypeName(s.dtype), s.gbps(),
                100 * s.gbps() / copy.gbps(), l.gbps(), 100 * l.gbps() / copy.gbps(),
                r.same_size_copy_gbps, s.impl.c_str());
  }
  return Ok();
}

Maybe<ep::SoftmaxImpl> ParseSoftmaxImpl(const std::string& text) {
  if (text == "auto") {
    return ep::SoftmaxImpl::kAuto;
  }
  if (text == "warp") {
    return ep::SoftmaxImpl::kWarp;
  }
  if (text == "register") {
    return ep::SoftmaxImpl::kBlockRegister;
  }
  if (text == "smem") {
    return ep::SoftmaxImpl::kBlockSmem;
  }
  if (text == "uncached") {
    return ep::SoftmaxImpl::kBlockUncached;
  }
  if (text == "split") {
    return ep::SoftmaxImpl::kSplitRows;
  }
  if (text == "cluster") {
    return ep::SoftmaxImpl::kCluster;
  }
  if (text == "cluster-smem") {
    return ep::SoftmaxImpl::kClusterSmem;
  }
  return OFLITE_ERROR(ValueError)
         << "bench: unknown --impl '" << text
         << "' (expected auto, warp, register, smem, uncached, split, cluster or cluster-smem)";
}

Maybe<void> Bench(const BenchOptions& options) {
  ep::SoftmaxImpl impl;
  OFLITE_ASSIGN_OR_RETURN(impl, ParseSoftmaxImpl(options.impl));
  const ep::ScopedSoftmaxImpl forced(impl);
  OFLITE_CHECK_OR_RETURN(options.warmup >= 0 && options.reps >= 1, ValueError)
      << "bench: --warmup must be >= 0 and --reps >= 1, got " << options.warmup << " and "
      << options.reps;
  if (!options.sweep.empty()) {
    return Sweep(options);
  }
  if (options.global) {
    return BenchGlobal(options);
  }
  if (options.overhead) {
    Device device;
    OFLITE_ASSIGN_OR_RETURN(device, BenchDevice(options.device));
    return BenchOverhead(device, options.calls, options.json);
  }
  OFLITE_CHECK_OR_RETURN(!options.function.empty(), ValueError)
      << "bench: give a FUNCTION (or --sweep softmax)";
  OFLITE_CHECK_OR_RETURN(!options.shape.empty(), ValueError) << "bench: give --shape R,C[,...]";
  Device device;
  OFLITE_ASSIGN_OR_RETURN(device, BenchDevice(options.device));
  DataType dtype;
  OFLITE_ASSIGN_OR_RETURN(dtype, ParseDataType(options.dtype));
  AttrValue shape_value;
  OFLITE_ASSIGN_OR_RETURN(shape_value, ParseAttrValue(AttrType::kShape, options.shape));
  const Shape shape = *shape_value.TryGet<Shape>();
  OFLITE_JUST(shape.Validate());
  Timing timing;
  OFLITE_ASSIGN_OR_RETURN(timing, MakeTiming(device));
  BenchResult r;
  if (options.function == "copy") {  // the bytes of --shape in --dtype
    OFLITE_ASSIGN_OR_RETURN(
        r, BenchCopy(device, static_cast<size_t>(shape.elem_cnt()) * DataTypeSize(dtype),
                     options.warmup, options.reps, &timing));
    r.shape = shape;
    r.dtype = dtype;
  } else {
    const FunctionEntry* f = nullptr;
    OFLITE_ASSIGN_OR_RETURN(f, FindFunction(options.function));
    std::vector<Shape> input_shapes;
    std::vector<std::string> function_args;
    std::vector<bool> overridden;
    OFLITE_JUST(
        SplitInputShapes(*f, shape, options.args, &input_shapes, &function_args, &overridden));
    bool allow_tf32 = false;
    OFLITE_ASSIGN_OR_RETURN(allow_tf32, TakeAllowTf32(*f, &function_args));
    const ep::ScopedAllowTf32 tf32(allow_tf32);
    // `impl=sgemm_v0..v8|sgemm_best`: a rung of the SGEMM ladder instead of the runtime's
    // float32 product ("cublas", the default)
    const std::string impl = TakeBenchArg(*f, "impl", &function_args).value_or("cublas");
    AttrMap args;
    OFLITE_ASSIGN_OR_RETURN(args, ParseArgs(*f, function_args));
    if (IsMatMulBench(f->name)) {
      OFLITE_JUST(MatMulInputShapes(f->name, shape, args, overridden, &input_shapes));
    }
    BenchCall rung;
    if (impl != "cublas") {
      bool transposed = false;
      if (f->name == "matmul") {
        bool transpose_a = false, transpose_b = false;
        OFLITE_ASSIGN_OR_RETURN(transpose_a, args.Get<bool>("transpose_a"));
        OFLITE_ASSIGN_OR_RETURN(transpose_b, args.Get<bool>("transpose_b"));
        transposed = transpose_a || transpose_b;
      }
      OFLITE_ASSIGN_OR_RETURN(rung, SgemmRungCall(impl, f->name, transposed, dtype, device));
    }
    OFLITE_ASSIGN_OR_RETURN(r, BenchFunction(*f, args, shape, input_shapes, dtype, device,
                                             options.warmup, options.reps, &timing, rung));
    if (rung) {
      r.impl = impl;
    }
  }
  if (options.json) {
    std::cout << ToJson(r) << "\n";
  } else {
    std::string shapes = r.shape.ToString();
    if (!r.input_shapes.empty()) {
      shapes.clear();
      for (size_t i = 0; i < r.input_shapes.size(); ++i) {
        shapes += (i ? " " : "") + r.input_shapes[i].ToString();
      }
    }
    std::string rate;
    if (r.flops > 0) {
      char buffer[64];
      std::snprintf(buffer, sizeof(buffer), ", %.3g TFLOP/s", r.tflops());
      rate = buffer;
    }
    std::printf("%s %s %s on %s: %.4f ms, %.0f GB/s%s  %s\n", r.function.c_str(), shapes.c_str(),
                DataTypeName(r.dtype), r.device.ToString().c_str(), r.median_ms, r.gbps(),
                rate.c_str(), r.impl.c_str());
  }
  return Ok();
}

}  // namespace

int BenchCommand(const BenchOptions& options) {
  const Maybe<void> threads = CheckThreadsOption(
      options.threads, options.global && options.nproc > 1, "--global and --nproc N > 1");
  if (!threads.ok()) {
    return ReportError(threads.error());
  }
  if (options.global && options.nproc > 1 && !IsRank()) {
    return LaunchSelf(options.nproc, options.threads, [&] { return BenchCommand(options); });
  }
  const Maybe<void> result = Bench(options);
  return result.ok() ? 0 : ReportError(result.error());
}

}  // namespace cli
}  // namespace oflite
