#!/usr/bin/env python3
"""Host cost of one call from Python, oneflow_lite beside torch in the same process.

The overhead benchmark's calls (add of 1 element, softmax of (8, 128), a 64x64 matmul) on the
CPU and, where a GPU is visible, on CUDA. Each figure is the best of 7 rounds of the median
per-call time; a round times `n` back-to-back calls. On CUDA only the host's time is counted:
the device is synchronized after each round, outside the timed loop, and rounds are short
enough that the launch queue never fills. Inputs are each library's own tensors.

    PYTHONPATH=build/python python3 tools/reference/python_call_overhead.py [--json OUT]
"""
import argparse
import json
import statistics
import time

import numpy as np

import oneflow_lite as ofl

try:
    import torch
except ImportError:  # the table then has oflite's column only
    torch = None


def host_us(call, sync, n=200, rounds=7):
    for _ in range(n):
        call()
    sync()
    best = float("inf")
    for _ in range(rounds):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(n):
                call()
            times.append((time.perf_counter() - start) / n)
            sync()
        best = min(best, statistics.median(times))
    return best * 1e6


def cases(device):
    rng = np.random.default_rng(0)
    one = np.ones(1, np.float32)
    x = rng.random((8, 128), dtype=np.float32)
    m = rng.random((64, 64), dtype=np.float32)
    add, matmul = ofl.ops.add, ofl.ops.matmul
    o1, ox, om = (ofl.tensor(a, device=device) for a in (one, x, m))
    rows = [("add, 1 element", lambda: add(o1, o1)),
            ("softmax, (8, 128)", lambda: ofl.softmax(ox, -1)),
            ("matmul, 64 x 64", lambda: matmul(om, om))]
    if torch is None:
        return [(name, f, None) for name, f in rows]
    t1, tx, tm = (torch.from_numpy(a).to(device) for a in (one, x, m))
    theirs = [lambda: torch.add(t1, t1), lambda: torch.softmax(tx, -1),
              lambda: torch.matmul(tm, tm)]
    return [(name, f, g) for (name, f), g in zip(rows, theirs)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    devices = ["cpu"] + (["cuda"] if ofl.cuda_device_count() > 0 else [])
    results = []
    for device in devices:
        if device == "cuda":
            def sync():
                ofl.synchronize("cuda")
                if torch is not None:
                    torch.cuda.synchronize()
        else:
            def sync():
                pass
        for name, ours, theirs in cases(device):
            row = {"device": device, "call": name, "oflite_us": host_us(ours, sync),
                   "torch_us": host_us(theirs, sync) if theirs else None}
            results.append(row)
            torch_text = "%.2f" % row["torch_us"] if theirs else "-"
            print("%-5s %-18s oflite %6.2f us   torch %6s us" %
                  (device, name, row["oflite_us"], torch_text), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__ if torch else None, "results": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
