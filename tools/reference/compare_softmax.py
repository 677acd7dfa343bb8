"""Ours against what a user could pick instead, all measured in one run on one GPU.

usage: python3 tools/reference/compare_softmax.py REFERENCES SWEEP_JSON [SWEEP_JSON ...]

REFERENCES: the lines triton_softmax.py and cudnn_softmax print (`triton|torch|cudnn DTYPE COLS
FUNCTION [num_warps=W] GBPS`); each SWEEP_JSON: what `oflite bench --sweep softmax --json`
printed. Ours is the median over the sweeps, Triton the best of its num_warps. Prints a markdown
table, a row per dtype, cols and function, and how many rows ours is at or above the best.
"""
import json
import statistics
import sys
from collections import defaultdict


def read_references(path):
    best = defaultdict(dict)  # (dtype, cols, function) -> {name: (gbps, detail)}
    for line in open(path):
        f = line.split()
        if len(f) < 5 or f[0] not in ("triton", "torch", "cudnn"):
            continue
        key = (f[1], int(f[2]), f[3])
        detail = f[4] if len(f) == 6 else ""
        gbps = float(f[-1])
        if gbps > best[key].get(f[0], (0, ""))[0]:
            best[key][f[0]] = (gbps, detail)
    return best


def read_ours(paths):
    runs = defaultdict(list)  # (dtype, cols, function) -> GB/s of each sweep
    for path in paths:
        for line in open(path):
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r["function"] in ("softmax", "log_softmax"):
                runs[(r["dtype"], r["shape"][1], r["function"])].append(r["gbps"])
    return {key: statistics.median(v) for key, v in runs.items()}


def main(ref_path, sweep_paths):
    refs, ours = read_references(ref_path), read_ours(sweep_paths)
    print("| dtype | cols | function | ours | torch | cuDNN | Triton (num_warps) | ours / best |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    at_or_above = 0
    for key in sorted(ours, key=lambda k: (["float32", "float16", "bfloat16"].index(k[0]), k[1],
                                           k[2] != "softmax")):
        alts = refs.get(key, {})
        if not alts:
            continue
        cell = lambda name: f"{alts[name][0]:.0f}" if name in alts else "-"
        triton = (f"{alts['triton'][0]:.0f} ({alts['triton'][1].split('=')[1]})"
                  if "triton" in alts else "-")
        best = max(g for g, _ in alts.values())
        at_or_above += ours[key] >= best
        print(f"| {key[0]} | {key[1]} | {key[2]} | {ours[key]:.0f} | {cell('torch')} | "
              f"{cell('cudnn')} | {triton} | {100 * ours[key] / best:.1f}% |")
    compared = sum(1 for key in ours if refs.get(key))
    print(f"\nours at or above the best same-run alternative: {at_or_above} / {compared}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
