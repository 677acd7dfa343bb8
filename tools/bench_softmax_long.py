"""Softmax and log_softmax over long rows (issue 28's long-row and few-row targets) with `oflite
bench` on CUDA: each shape's time over a copy of the same bytes, the path that ran, and, given a
second build or a second setting of the environment, its time and path in the same job, shape by
shape (an A/B against a baseline). Backward functions (softmax_grad, log_softmax_grad) move three
tensors where a copy moves two: their "x copy" is over a copy of as many bytes as they move.

usage: python3 tools/bench_softmax_long.py OFLITE [--baseline OLD/oflite] [--ab-env NAME=VALUE]
           [--impl PATH] [--baseline-impl PATH] [--shapes 1024x131072:float32,...]
           [--out OUT.json] [--functions softmax,log_softmax]
       (the older positional form OFLITE [BASELINE] [OUT] [FUNCTIONS] still works; "" skips one)

--ab-env runs each call a second time with NAME=VALUE in the environment (a switch of the same
build) as the baseline. --impl and --baseline-impl force a softmax path (`oflite bench --impl`)
on either side; --baseline-impl alone makes the same build, on that path, the baseline.
--shapes times only the shapes given (ROWSxCOLS:DTYPE) instead of the long and few rows below. A baseline build elsewhere finds its own library when its folder is first
on LD_LIBRARY_PATH: this script puts it there for the baseline's runs.
"""
import argparse
import json
import os
import subprocess
import sys

MANY_ROWS = [(f"1024,{cols}", dtype) for cols in (20000, 50257, 65536, 131072, 262143)
             for dtype in ("float32", "float16", "bfloat16")]
MANY_ROWS += [("4096,128256", "bfloat16"), ("2048,151936", "float32"),
              ("4096,50257", "bfloat16"), ("64,262144", "float16")]
FEW_ROWS = [("2,1048576", "float32"), ("8,524288", "float32"), ("4,1048579", "bfloat16"),
            ("1,4194307", "float32"), ("8,524288", "bfloat16"), ("32,262144", "bfloat16"),
            ("16,262144", "float32"), ("33,131072", "float32"), ("16,1048576", "float32"),
            ("34,1048576", "float32")]


def bench(oflite, function, shape, dtype, env=None, impl=""):
    command = [oflite, "bench", function, "--shape", shape, "--dtype", dtype, "--device", "cuda",
               "--reps", "20", "--warmup", "3", "--json"]
    if impl and function != "copy":
        command += ["--impl", impl]
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout
    result = json.loads(out.strip().splitlines()[-1])
    path = result.get("impl", "").split("[")[-1].rstrip("]")
    return result["median_ms"], path, result["bytes"]


def baseline_of(oflite, baseline, ab_env, impl):
    """The baseline's binary, environment and forced path, or None."""
    if baseline:
        env = dict(os.environ)
        folder = os.path.dirname(os.path.abspath(baseline))
        env["LD_LIBRARY_PATH"] = folder + ":" + env.get("LD_LIBRARY_PATH", "")
        return baseline, env, impl
    if ab_env:
        name, _, value = ab_env.partition("=")
        return oflite, dict(os.environ, **{name: value}), impl
    if impl:
        return oflite, None, impl
    return None


def main(oflite, baseline, out_path, functions, impl, shapes):
    rows = []
    for shape, dtype in shapes:
        copy_ms, _, copy_bytes = bench(oflite, "copy", shape, dtype)
        for function in functions:
            ms, path, moved = bench(oflite, function, shape, dtype, impl=impl)
            copy = copy_ms * moved / copy_bytes  # a copy of the bytes the function moves
            row = {"function": function, "shape": shape, "dtype": dtype, "copy_ms": copy,
                   "ms": ms, "x_copy": ms / copy, "path": path}
            line = f"{function:16} {shape:12} {dtype:8} {ms:.4f} ms {ms / copy:.2f} x copy  {path}"
            if baseline:
                base_ms, base_path, _ = bench(baseline[0], function, shape, dtype, baseline[1],
                                              baseline[2])
                row.update(baseline_ms=base_ms, baseline_path=base_path)
                line += f"  | baseline {base_ms:.4f} ms {base_ms / copy:.2f} x  {base_path}"
            print(line, flush=True)
            rows.append(row)
    if out_path:
        with open(out_path, "w") as out:
            json.dump(rows, out, indent=1)


def parse(argv):
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("oflite")
    parser.add_argument("positional", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--baseline", default="")
    parser.add_argument("--ab-env", default="")
    parser.add_argument("--out", default="")
    parser.add_argument("--functions", default="softmax,log_softmax")
    parser.add_argument("--impl", default="")
    parser.add_argument("--baseline-impl", default="")
    parser.add_argument("--shapes", default="")
    args = parser.parse_args(argv)
    legacy = args.positional + [""] * 3
    args.baseline = args.baseline or legacy[0]
    args.out = args.out or legacy[1]
    args.functions = legacy[2] or args.functions
    if args.baseline and args.ab_env:
        parser.error("--baseline and --ab-env are two kinds of baseline: give one")
    return args


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    a = parse(sys.argv[1:])
    shapes = [(s.split(":")[0].replace("x", ","), s.split(":")[1]) for s in a.shapes.split(",")
              if s] or MANY_ROWS + FEW_ROWS
    main(a.oflite, baseline_of(a.oflite, a.baseline, a.ab_env, a.baseline_impl), a.out or None,
         a.functions.split(","), a.impl, shapes)
