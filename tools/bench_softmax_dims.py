"""Softmax over every non-last dim of rank-3 and rank-4 tensors of 64 MB or more (issue 28's
non-last-dim target), with `oflite bench`: the call's time over three copies of its bytes (the
function moves the dim last, runs softmax, moves it back), and each of its two permutes alone as
a share of one copy's bandwidth.

usage: python3 tools/bench_softmax_dims.py [path/to/oflite] [out.json] [dtype,dtype,...]
"""
import json
import subprocess
import sys

SHAPES = [(512, 256, 256), (100, 1000, 400), (8, 16, 512, 512), (64, 128, 128, 64)]
DTYPES = ["float32", "float16", "bfloat16"]


def bench(oflite, *args):
    out = subprocess.run([oflite, "bench", *args, "--reps", "20", "--warmup", "3", "--json"],
                         capture_output=True, text=True, check=True).stdout.strip().splitlines()
    return json.loads(out[-1])["median_ms"]


def joined(values):
    return ",".join(str(v) for v in values)


def main(oflite, out_path, dtypes):
    rows = []
    print(f"{'shape':20} {'dtype':9} {'dim':>3} {'ms':>8} {'copy ms':>8} {'x 3 copies':>10} "
          f"{'to last':>8} {'back':>6}")
    for shape in SHAPES:
        for dtype in dtypes:
            copy = bench(oflite, "copy", "--shape", joined(shape), "--dtype", dtype)
            for dim in range(len(shape) - 1):
                to_last = [i for i in range(len(shape)) if i != dim] + [dim]
                back = [to_last.index(i) for i in range(len(shape))]
                moved = [shape[p] for p in to_last]
                ms = bench(oflite, "softmax", "--shape", joined(shape), "--dtype", dtype,
                           "--arg", f"dim={dim}")
                t1 = bench(oflite, "transpose", "--shape", joined(shape), "--dtype", dtype,
                           "--arg", "perm=" + joined(to_last))
                t2 = bench(oflite, "transpose", "--shape", joined(moved), "--dtype", dtype,
                           "--arg", "perm=" + joined(back))
                row = dict(shape=shape, dtype=dtype, dim=dim, ms=ms, copy_ms=copy,
                           x_three_copies=ms / (3 * copy), to_last=copy / t1, back=copy / t2)
                rows.append(row)
                print(f"{str(shape):20} {dtype:9} {dim:>3} {ms:8.4f} {copy:8.4f} "
                      f"{row['x_three_copies']:10.2f} {row['to_last']:8.0%} {row['back']:6.0%}",
                      flush=True)
    if out_path:
        with open(out_path, "w") as out:
            json.dump(rows, out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/oflite",
         sys.argv[2] if len(sys.argv) > 2 else "",
         sys.argv[3].split(",") if len(sys.argv) > 3 else DTYPES)
