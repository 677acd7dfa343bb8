#include "tools/oflite/command_line.h"

namespace oflite {
namespace cli {

namespace {

constexpr const char* kThreadsHelp =
    "Under --nproc: the ranks are threads of this process, one GPU each (cuda:RANK), instead "
    "of processes";

void AddRun(CLI::App* app, RunOptions* o) {
  CLI::App* run = app->add_subcommand("run", "Call a functional API on .npy files");
  run->add_option("function", o->function, "snake_case name, e.g. softmax")->required();
  run->add_option("--in", o->inputs, "Input .npy file, in the call's order")->required();
  run->add_option("--arg", o->args, "NAME=VALUE argument (lists: 2,0,1)");
  run->add_option("--device", o->device, "cpu or cuda[:N]");
  run->add_option("--out", o->output, "Output .npy file")->required();
  run->add_flag("--bfloat16-bits", o->bfloat16_bits,
                "Write a bfloat16 result as its raw bits (uint16) instead of float32");
  run->add_option("--nproc", o->nproc, "Run on global tensors across N ranks (processes)")
      ->check(CLI::Range(1, 64));
  run->add_option("--sbp", o->sbps, "NAME=SBP of an input under --nproc: S(axis), B or P");
  run->add_flag("--verbose", o->verbose,
                "Under --nproc: print each call's SBP signature and boxing steps");
  run->add_flag("--threads", o->threads, kThreadsHelp);
}

void AddBench(CLI::App* app, BenchOptions* o) {
  CLI::App* bench =
      app->add_subcommand("bench", "Time a functional call (CUDA events, L2 flushed)");
  bench->add_option("function", o->function, "snake_case name, or copy");
  bench->add_option("--shape", o->shape, "R,C[,...]; for matmul M,N,K");
  bench->add_option("--dtype", o->dtype, "float32|float16|bfloat16|float64");
  bench->add_option(
      "--arg", o->args,
      "NAME=VALUE argument; <input>_shape=D0,D1 gives that input its own shape (y_shape=8192,1)");
  bench->add_option("--device", o->device, "cpu or cuda[:N] (default: cuda:0 if any)");
  bench->add_option("--warmup", o->warmup,
                    "untimed calls first (on the CPU, also at least 0.2 s of them)");
  bench->add_option("--reps", o->reps, "timed calls (the median is reported)");
  bench->add_flag("--json", o->json, "one JSON object per result");
  bench->add_option("--sweep", o->sweep,
                    "softmax: the rows=49152 sweep; softmax-shapes: vocabulary rows, non-last "
                    "dims, few long rows");
  bench->add_option("--impl", o->impl,
                    "softmax path: auto|warp|register|smem|uncached|split|cluster|cluster-smem");
  bench->add_flag("--overhead", o->overhead,
                  "Host time per call of add, softmax and matmul on tiny tensors");
  bench->add_option("--calls", o->calls, "calls per --overhead run (the median of 3 runs)");
  bench->add_flag("--global", o->global,
                  "Boxing bandwidth and parallel matmuls of a global --shape R,C on --nproc ranks");
  bench->add_option("--nproc", o->nproc, "Ranks for --global")->check(CLI::Range(1, 64));
  bench->add_flag("--threads", o->threads, kThreadsHelp);
}

void AddOptest(CLI::App* app, OptestOptions* o) {
  CLI::App* optest =
      app->add_subcommand("optest", "Prove every op against its spec (reference, shapes, SBP)");
  optest->add_option("--op", o->ops, "Only this op (repeatable; default: all)");
  optest->add_option("--device", o->device, "cpu or cuda (default: every visible)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  optest->add_option("--dtype", o->dtypes, "Only this dtype (repeatable)");
  // The runner checks the range, with a message naming the option (CLI11's prints 1.8e308).
  optest->add_option("--cases", o->cases, "Random cases per op/device/dtype (1..1000000)");
  optest->add_option("--seed", o->seed, "Seed every case is drawn from");
  optest->add_option("--case", o->case_index, "Run only case I (reproduces a failure)")
      ->check(CLI::NonNegativeNumber);
  optest->add_option("--json", o->json, "Write the report as JSON to FILE");
  optest->add_flag("--list", o->list, "List ops, devices, dtypes, SBP signatures");
  optest
      ->add_option("--nproc", o->nproc,
                   "Prove SBP signatures on N ranks (processes), one piece a rank")
      ->check(CLI::Range(1, 64));
  optest->add_flag("--threads", o->threads, kThreadsHelp);
}

void AddLaunch(CLI::App* app, LaunchOptions* o) {
  CLI::App* launch = app->add_subcommand(
      "launch", "Run PROGRAM as N ranks on this host (RANK, WORLD_SIZE, a fresh rendezvous)");
  launch->add_option("--nproc", o->nproc, "Number of processes (ranks)")->required();
  launch->add_option("--timeout", o->timeout,
                     "Seconds the ranks wait for each other (sets OFLITE_DIST_TIMEOUT)");
  launch->add_option("--grace", o->grace,
                     "Seconds the others get after a rank fails (default: the timeout + 5)");
  launch->add_option("command", o->command, "-- PROGRAM ARGS...")->required();
}

}  // namespace

std::unique_ptr<CLI::App> MakeCommandLine(CommandLineOptions* options) {
  auto app = std::make_unique<CLI::App>("oneflow_lite: an embeddable operator runtime");
  app->require_subcommand(1);
  // Op libraries load before any subcommand runs, so every command sees their ops.
  app->add_option("--load", options->op_libraries,
                  "Load an op library (a plugin .so) before the command; repeatable")
      ->allow_extra_args(false);
  CLI::App* ops = app->add_subcommand("ops", "List every registered op with its kernels");
  ops->add_flag("--json", options->ops_json, "Print the OpDefList as JSON");
  AddRun(app.get(), &options->run);
  app->add_subcommand("demo", "Softmax and log_softmax end to end");
  AddBench(app.get(), &options->bench);
  AddOptest(app.get(), &options->optest);
  AddLaunch(app.get(), &options->launch);
  return app;
}

std::string ChosenSubcommand(const CLI::App& app) {
  const auto chosen = app.get_subcommands();
  return chosen.empty() ? std::string() : chosen[0]->get_name();
}

}  // namespace cli
}  // namespace oflite
