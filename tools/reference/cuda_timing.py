"""Timing the reference scripts share, the way oflite bench times: CUDA events around each call,
a 512 MB fill writing rep + 1 before each rep (so L2 holds dirty lines as it does there), median
of the reps after warm-up calls."""
import torch


def flush_buffer():
    return torch.empty(512 << 18, dtype=torch.float32, device="cuda")  # 512 MB


def median_ms(fn, flush, reps=50, warmup=10):
    for _ in range(warmup):
        fn()
    times = []
    for rep in range(reps):
        flush.fill_(rep + 1.0)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]
