"""torch beside `oflite bench --sweep softmax-shapes` in the same job.

Reads the sweep's JSON lines (`oflite bench --sweep softmax-shapes --json > shapes.json`), times
torch.softmax / torch.log_softmax on each shape, dim and dtype the way oflite bench times (CUDA
events, a 512 MB fill writing rep + 1 before each rep, median of 50 reps after 10 warm-up calls)
and prints one table: our time, torch's, the copy of the same bytes, and our time over torch's.

usage: python3 tools/reference/torch_softmax_shapes.py shapes.json
"""
import json
import sys

import torch

from cuda_timing import flush_buffer, median_ms

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
FUNCTIONS = {"softmax": torch.softmax, "log_softmax": torch.log_softmax}


def main(path):
    flush = flush_buffer()
    print(f"{'function':12} {'shape':22} {'dim':>4} {'dtype':>9} {'ours ms':>9} {'torch ms':>9} "
          f"{'copy ms':>9} {'ours/torch':>10}  impl")
    with open(path) as lines:
        for line in lines:
            case = json.loads(line)
            if case.get("sweep") != "softmax-shapes":
                continue
            x = torch.empty(case["shape"], dtype=DTYPES[case["dtype"]], device="cuda")
            x.uniform_(-4, 4)
            fn = FUNCTIONS[case["function"]]
            torch_ms = median_ms(lambda: fn(x, case["dim"]), flush)
            shape = "(" + ", ".join(str(d) for d in case["shape"]) + ")"
            print(f"{case['function']:12} {shape:22} {case['dim']:4} {case['dtype']:>9} "
                  f"{case['ms']:9.4f} {torch_ms:9.4f} {case['copy_ms']:9.4f} "
                  f"{case['ms'] / torch_ms:10.2f}  {case['impl']}")
            del x
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1])
