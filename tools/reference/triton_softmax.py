"""Same-run references for `oflite bench softmax` / `log_softmax`: a plain Triton kernel and torch.

Runs on the GPU machine (torch and triton are installed there, not here). The Triton kernel
takes one program per row, the whole row in one block (BLOCK = the next power of two); every
num_warps that leaves each thread 4 to 64 of the block's values is timed (at least one), and
compare_softmax.py takes the best. Timing follows oflite bench: CUDA events, a 512 MB fill
writing rep + 1 before each rep (so L2 holds dirty lines as it does there), median of 50 reps
after 10 warm-up calls; GB/s = 2 x tensor bytes / time.

usage: python3 tools/reference/triton_softmax.py [dtype:cols ...]   (default: the whole sweep)
prints one line a timing: `triton DTYPE COLS FUNCTION num_warps=W GBPS` or
`torch DTYPE COLS FUNCTION GBPS`
"""
import sys

import torch
import triton
import triton.language as tl

from cuda_timing import flush_buffer, median_ms

ROWS = 49152
SWEEP_COLS = (32, 64, 128, 256, 512, 1000, 1024, 1025, 2048, 3000, 4096, 8192, 12345, 16384, 32768)
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
FUNCTIONS = {"softmax": torch.softmax, "log_softmax": torch.log_softmax}


@triton.jit
def softmax_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr, LOG: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf")).to(tl.float32)
    d = x - tl.max(x, 0)
    e = tl.exp(d)
    if LOG:
        out = d - tl.log(tl.sum(e, 0))
    else:
        out = e / tl.sum(e, 0)
    tl.store(y_ptr + row * n_cols + offs, out.to(y_ptr.dtype.element_ty), mask=mask)


def warp_counts(block):
    counts = [w for w in (1, 2, 4, 8, 16, 32) if 4 <= block // (32 * w) <= 64]
    return counts or [max(1, min(32, block // 128))]


def main(specs):
    flush = flush_buffer()
    for spec in specs:
        name, cols = spec.split(":")
        cols = int(cols)
        x = torch.rand(ROWS, cols, device="cuda").mul_(8).sub_(4).to(DTYPES[name])  # as oflite's
        y = torch.empty_like(x)
        gb = 2 * x.numel() * x.element_size() / 1e6
        block = triton.next_power_of_2(cols)
        for fname, torch_fn in FUNCTIONS.items():
            log = fname == "log_softmax"
            for w in warp_counts(block):
                ms = median_ms(
                    lambda: softmax_rows[(ROWS,)](x, y, cols, BLOCK=block, LOG=log, num_warps=w),
                    flush)
                print(f"triton {name} {cols} {fname} num_warps={w} {gb / ms:.0f}", flush=True)
            ms = median_ms(lambda: torch_fn(x, -1), flush)
            print(f"torch {name} {cols} {fname} {gb / ms:.0f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or [f"{d}:{c}" for d in DTYPES for c in SWEEP_COLS])
