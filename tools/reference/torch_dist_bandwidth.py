#!/usr/bin/env python3
"""torch.distributed (NCCL) doing the collectives of oflite's boxing, for `oflite bench --global`.

    torchrun --nproc_per_node 2 tools/reference/torch_dist_bandwidth.py [--shape 8192,8192]
        [--dtype float32] [--reps 20] [--warmup 5]

On a tensor of --shape (the global one): all_gather_into_tensor of its row shards (S(0) -> B),
all_reduce of the whole (P -> B), reduce_scatter_tensor of the whole (P -> S(0)) and
all_to_all_single of a row shard (S(0) -> S(1) without the local transposes); then the same
four as DTensor's redistribute does them (torch.distributed.tensor, its layout copies included). Each is the median
of --reps runs, every run between a barrier and a device synchronize, as oflite's bench times
them; bus bandwidth by NCCL's factors (nccl-tests' PERFORMANCE.md). Rank 0 prints.
"""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist


def median_ms(step, reps, warmup):
    times = []
    for i in range(warmup + reps):
        dist.barrier()
        torch.cuda.synchronize()
        start = time.perf_counter()
        step()
        torch.cuda.synchronize()
        if i >= warmup:
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", default="8192,8192")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    rows, cols = (int(v) for v in args.shape.split(","))
    dtype = getattr(torch, args.dtype)
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    n = dist.get_world_size()
    whole = torch.ones(rows, cols, dtype=dtype, device="cuda")
    shard = torch.ones(rows // n, cols, dtype=dtype, device="cuda")
    gathered = torch.empty_like(whole)
    scattered = torch.empty_like(shard)
    exchanged = torch.empty_like(shard)
    nbytes = whole.numel() * whole.element_size()
    cases = [
        ("S(0) -> B all-gather", lambda: dist.all_gather_into_tensor(gathered, shard),
         (n - 1) / n),
        ("P -> B all-reduce", lambda: dist.all_reduce(whole), 2 * (n - 1) / n),
        ("P -> S(0) reduce-scatter", lambda: dist.reduce_scatter_tensor(scattered, whole),
         (n - 1) / n),
        ("S(0) -> S(1) all-to-all", lambda: dist.all_to_all_single(exchanged, shard),
         (n - 1) / n),
    ]
    if dist.get_rank() == 0:
        print("torch %s nccl %s: %d ranks, (%d, %d), %s" % (
            torch.__version__, ".".join(map(str, torch.cuda.nccl.version())), n, rows, cols,
            args.dtype))
    cases += dtensor_cases(whole, n)
    for name, step, factor in cases:
        ms = median_ms(step, args.reps, args.warmup)
        # all-to-all moves one shard a rank; the others the whole tensor's bytes
        size = nbytes // n if "all-to-all" in name else nbytes
        algbw = size / (ms * 1e6)
        if dist.get_rank() == 0:
            print("%-32s %10.3f ms  algbw %8.1f GB/s  busbw %8.1f GB/s" % (
                name, ms, algbw, algbw * factor))
    dist.destroy_process_group()


def dtensor_cases(whole, n):
    """The same boxings as DTensor redistributes them (its own layout copies included)."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor
    mesh = init_device_mesh("cuda", (n,))
    row_split = distribute_tensor(whole, mesh, [Shard(0)])
    partial = DTensor.from_local(whole, mesh, [Partial()], run_check=False)
    return [
        ("DTensor S(0) -> B", lambda: row_split.redistribute(mesh, [Replicate()]), (n - 1) / n),
        ("DTensor P -> B", lambda: partial.redistribute(mesh, [Replicate()]), 2 * (n - 1) / n),
        ("DTensor P -> S(0)", lambda: partial.redistribute(mesh, [Shard(0)]), (n - 1) / n),
        ("DTensor S(0) -> S(1) all-to-all", lambda: row_split.redistribute(mesh, [Shard(1)]),
         (n - 1) / n),
    ]


if __name__ == "__main__":
    main()
