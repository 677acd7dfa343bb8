// oflite: list ops, run functional calls on .npy files, and show the demo.
#include <glog/logging.h>

#include <CLI/CLI.hpp>

#include "oneflow_lite/framework/op_library.h"
#include "tools/oflite/commands.h"

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  CLI::App app{"oneflow_lite: an embeddable operator runtime"};
  app.require_subcommand(1);
  // Op libraries load before any subcommand runs, so every command sees their ops.
  std::vector<std::string> op_libraries;
  app.add_option("--load", op_libraries,
                 "Load an op library (a plugin .so) before the command; repeatable")
      ->allow_extra_args(false);

  bool json = false;
  CLI::App* ops = app.add_subcommand("ops", "List every registered op with its kernels");
  ops->add_flag("--json", json, "Print the OpDefList as JSON");

  oflite::cli::RunOptions run_options;
  CLI::App* run = app.add_subcommand("run", "Call a functional API on .npy files");
  run->add_option("function", run_options.function, "snake_case name, e.g. softmax")->required();
  run->add_option("--in", run_options.inputs, "Input .npy file, in the call's order")->required();
  run->add_option("--arg", run_options.args, "NAME=VALUE argument (lists: 2,0,1)");
  run->add_option("--device", run_options.device, "cpu or cuda[:N]");
  run->add_option("--out", run_options.output, "Output .npy file")->required();
  run->add_flag("--bfloat16-bits", run_options.bfloat16_bits,
                "Write a bfloat16 result as its raw bits (uint16) instead of float32");

  CLI::App* demo = app.add_subcommand("demo", "Softmax and log_softmax end to end");

  oflite::cli::BenchOptions bench_options;
  CLI::App* bench = app.add_subcommand("bench", "Time a functional call (CUDA events, L2 flushed)");
  bench->add_option("function", bench_options.function, "snake_case name, or copy");
  bench->add_option("--shape", bench_options.shape, "R,C[,...]; for matmul M,N,K");
  bench->add_option("--dtype", bench_options.dtype, "float32|float16|bfloat16|float64");
  bench->add_option(
      "--arg", bench_options.args,
      "NAME=VALUE argument; <input>_shape=D0,D1 gives that input its own shape (y_shape=8192,1)");
  bench->add_option("--device", bench_options.device, "cpu or cuda[:N] (default: cuda:0 if any)");
  bench->add_option("--warmup", bench_options.warmup, "untimed calls first");
  bench->add_option("--reps", bench_options.reps, "timed calls (the median is reported)");
  bench->add_flag("--json", bench_options.json, "one JSON object per result");
  bench->add_option("--sweep", bench_options.sweep, "softmax: GPU.md's rows=49152 sweep");
  bench->add_option("--impl", bench_options.impl, "softmax path: auto|warp|register|smem|uncached");

  oflite::cli::OptestOptions optest_options;
  CLI::App* optest =
      app.add_subcommand("optest", "Prove every op against its spec (reference, shapes, SBP)");
  optest->add_option("--op", optest_options.ops, "Only this op (repeatable; default: all)");
  optest->add_option("--device", optest_options.device, "cpu or cuda (default: every visible)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  optest->add_option("--dtype", optest_options.dtypes, "Only this dtype (repeatable)");
  // The runner checks the range, with a message naming the option (CLI11's prints 1.8e308).
  optest->add_option("--cases", optest_options.cases, "Random cases per op/device/dtype (>= 1)");
  optest->add_option("--seed", optest_options.seed, "Seed every case is drawn from");
  optest->add_option("--case", optest_options.case_index, "Run only case I (reproduces a failure)")
      ->check(CLI::NonNegativeNumber);
  optest->add_option("--json", optest_options.json, "Write the report as JSON to FILE");
  optest->add_flag("--list", optest_options.list, "List ops, devices, dtypes, SBP signatures");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;  // usage errors exit 2, whatever CLI11's own code for them is
  }
  // Library calls report failures as Maybe errors; this catches what the standard library
  // itself may throw (std::bad_alloc for a host buffer, ...) so nothing ends in an abort.
  try {
    for (const std::string& path : op_libraries) {
      const oflite::Maybe<void> loaded = oflite::LoadOpLibrary(path);
      if (!loaded.ok()) {
        return oflite::cli::ReportError(loaded.error());
      }
    }
    if (*ops) {
      return oflite::cli::OpsCommand(json);
    }
    if (*run) {
      return oflite::cli::RunCommand(run_options);
    }
    if (*demo) {
      return oflite::cli::DemoCommand();
    }
    if (*bench) {
      return oflite::cli::BenchCommand(bench_options);
    }
    if (*optest) {
      return oflite::cli::OptestCommand(optest_options);
    }
  } catch (const std::exception& e) {
    return oflite::cli::ReportError(oflite::Error(oflite::ErrorKind::kRuntimeError, e.what()));
  }
  return 2;
}
