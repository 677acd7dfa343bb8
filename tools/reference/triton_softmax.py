"""Same-run reference for `oflite bench softmax`: a plain Triton softmax and torch.softmax.

Runs on the GPU machine (torch and triton are installed there, not here). The Triton kernel
takes one program per row, the whole row in one block (BLOCK = the next power of two); each
num_warps in 4, 8, 16, 32 is timed. Timing follows oflite bench: CUDA events, L2 flushed
before each rep, median of 20 reps after 3 warm-up runs; GB/s = 2 x tensor bytes / time.

usage: python3 tools/reference/triton_softmax.py float32:8192 float16:1024 ...
"""
import sys

import torch
import triton
import triton.language as tl

ROWS = 49152


@triton.jit
def softmax_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, 0))
    tl.store(y_ptr + row * n_cols + offs, (e / tl.sum(e, 0)).to(y_ptr.dtype.element_ty), mask=mask)


def median_ms(fn, reps=20, warmup=3):
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")  # past the 50 MB L2
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def main(specs):
    dtypes = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
    for spec in specs:
        name, cols = spec.split(":")
        cols = int(cols)
        x = torch.randn(ROWS, cols, device="cuda", dtype=dtypes[name])
        y = torch.empty_like(x)
        gb = 2 * x.numel() * x.element_size() / 1e6
        block = triton.next_power_of_2(cols)
        for warps in (4, 8, 16, 32):
            ms = median_ms(lambda: softmax_rows[(ROWS,)](x, y, cols, BLOCK=block, num_warps=warps))
            print(f"triton {name} {cols} num_warps={warps}: {gb / ms:.0f} GB/s", flush=True)
        print(f"torch {name} {cols}: {gb / median_ms(lambda: torch.softmax(x, -1)):.0f} GB/s")


if __name__ == "__main__":
    main(sys.argv[1:])
