#!/usr/bin/env python3
"""Times the CPU calls `oflite bench --device cpu` times, through ONNX Runtime and (where it is
installed) torch, one JSON object per result in the bench's own format, so that both run in one job.
With --oflite, those oflite binaries run too, in turns with the libraries: every round times each
call once through each of them, and each result is the median over the rounds (a shared host's
speed drifts over a minute more than the gaps being measured).

Usage: cpu_reference.py [--oflite BINARY ...] [--rounds N] [--threads N] [--reps R] [--warmup W]
                        [--ir-version V] [--models DIR [--save-models]]
Needs: pip install onnxruntime onnx (numpy comes with them); torch is optional.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import numpy as np

args_save = False  # --save-models

# (function, shape as `oflite bench --shape` takes it)
CALLS = [
    ("softmax", (4096, 1024)),
    ("softmax", (1024, 32000)),
    ("log_softmax", (4096, 1024)),
    ("log_softmax", (1024, 32000)),
    ("add", (1 << 24,)),
    ("matmul", (1024, 1024, 1024)),
]


def inputs_of(function, shape, rng):
    if function == "matmul":
        m, n, k = shape
        return [rng.standard_normal((m, k), dtype=np.float32),
                rng.standard_normal((k, n), dtype=np.float32)]
    count = 2 if function == "add" else 1
    return [rng.standard_normal(shape, dtype=np.float32) for _ in range(count)]


def median_ms(call, warmup, reps):
    for _ in range(warmup):
        call()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def onnx_model(function, arrays, ir_version):
    """The one-node model of a call, serialized."""
    from onnx import TensorProto, helper
    names = ["x", "y"][:len(arrays)]
    op = {"softmax": "Softmax", "log_softmax": "LogSoftmax", "add": "Add", "matmul": "MatMul"}
    attrs = {"axis": -1} if function in ("softmax", "log_softmax") else {}
    node = helper.make_node(op[function], names, ["z"], **attrs)
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in zip(names, arrays)]
    out = helper.make_tensor_value_info("z", TensorProto.FLOAT, None)
    model = helper.make_model(helper.make_graph([node], function, ins, [out]),
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = min(model.ir_version, ir_version)
    return model.SerializeToString()


def onnx_session(function, arrays, threads, ir_version, models):
    """models: a folder of <function>-<shape>.onnx files written by --save-models on a machine
    that has the onnx package, for one that has only onnxruntime."""
    import onnxruntime as ort
    path = f"{models}/{function}-{'x'.join(map(str, arrays[0].shape))}.onnx" if models else None
    if path and not args_save:
        with open(path, "rb") as f:
            model = f.read()
    else:
        model = onnx_model(function, arrays, ir_version)
        if path:
            with open(path, "wb") as f:
                f.write(model)
    names = ["x", "y"][:len(arrays)]
    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    session = ort.InferenceSession(model, options,
                                   providers=["CPUExecutionProvider"])
    feed = dict(zip(names, arrays))
    return lambda: session.run(None, feed), "onnxruntime " + ort.__version__


def torch_call(function, arrays, threads):
    import torch
    if threads:
        torch.set_num_threads(threads)
    ts = [torch.from_numpy(a) for a in arrays]
    fns = {"softmax": lambda: torch.softmax(ts[0], -1),
           "log_softmax": lambda: torch.log_softmax(ts[0], -1),
           "add": lambda: torch.add(ts[0], ts[1]),
           "matmul": lambda: torch.matmul(ts[0], ts[1])}
    return fns[function], "torch " + torch.__version__


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=0, help="0: the library's default")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--ir-version", type=int, default=10)
    parser.add_argument("--models", help="folder of prebuilt .onnx models (read, or written "
                        "with --save-models)")
    parser.add_argument("--save-models", action="store_true")
    parser.add_argument("--oflite", nargs="*", default=[], help="oflite binaries to time in turns")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    global args_save
    args_save = args.save_models
    rng = np.random.default_rng(0)
    timers = []  # (function, shape, library, timer): a timer returns one median in ms
    for function, shape in CALLS:
        arrays = inputs_of(function, shape, rng)
        calls = [onnx_session(function, arrays, args.threads, args.ir_version, args.models)]
        try:
            import torch  # noqa: F401
            calls.append(torch_call(function, arrays, args.threads))
        except ImportError:
            pass
        for call, library in calls:
            timers.append((function, shape, library,
                           lambda call=call: median_ms(call, args.warmup, args.reps)))
        for binary in args.oflite:
            timers.append((function, shape, binary, oflite_timer(binary, function, shape, args)))
    results = {}
    for _ in range(args.rounds):
        for function, shape, library, call in timers:
            results.setdefault((function, shape, library), []).append(call())
    for (function, shape, library), times in results.items():
        print(json.dumps({"function": function, "shape": list(shape), "dtype": "float32",
                          "device": "cpu", "library": library,
                          "median_ms": round(statistics.median(times), 4),
                          "rounds": [round(t, 4) for t in times]}), flush=True)


def oflite_timer(binary, function, shape, args):
    """A timer of one `oflite bench` run: its median ms over the same reps as the libraries."""
    env = dict(os.environ)
    if args.threads:
        env["OFLITE_NUM_THREADS"] = str(args.threads)
    command = [binary, "bench", function, "--shape", ",".join(map(str, shape)), "--device", "cpu",
               "--warmup", str(args.warmup), "--reps", str(args.reps), "--json"]
    return lambda: json.loads(subprocess.run(command, env=env, check=True, capture_output=True,
                                             text=True).stdout.splitlines()[-1])["median_ms"]


if __name__ == "__main__":
    main()
