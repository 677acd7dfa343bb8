#!/usr/bin/env bash
# The long-row measurements of docs/BENCHMARKS.md in one GPU job: the bare floors of the two
# designs (a block holding a row in registers; a cluster holding it in shared memory, moved by
# cp.async or by the copy engine), our softmax and log_softmax on the long and few rows, and the
# softmax-shapes sweep with torch beside it. Run from the repository root on a machine with a GPU,
# nvcc and a python3 that has torch:
#
#   tools/reference/long_rows_job.sh OFLITE OUTDIR [OFLITE_BEFORE]
#
# OFLITE is the oflite binary to time, OFLITE_BEFORE (optional) an older build timed shape by
# shape beside it. Writes five files to OUTDIR: probes.txt, long.txt and long.json, shapes.json
# and shapes_torch.txt. Builds the probes under build/reference/.
set -euo pipefail
oflite=${1:?usage: long_rows_job.sh OFLITE OUTDIR [OFLITE_BEFORE]}
outdir=${2:?usage: long_rows_job.sh OFLITE OUTDIR [OFLITE_BEFORE]}
before=${3:-}
bin=build/reference
mkdir -p "$bin" "$outdir"
export PYTHONUNBUFFERED=1

for probe in cluster_pipeline_probe row_pipeline_probe; do
  nvcc -O2 -std=c++17 -arch=sm_90 "tools/reference/$probe.cu" -o "$bin/$probe"
done
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for probe in cluster_pipeline_probe row_pipeline_probe; do
    echo "== $probe"
    "$bin/$probe"
  done
} 2>&1 | tee "$outdir/probes.txt"

baseline=()
[ -z "$before" ] || baseline=(--baseline "$before")
python3 tools/bench_softmax_long.py "$oflite" ${baseline[@]+"${baseline[@]}"} --out "$outdir/long.json" \
  2>&1 | tee "$outdir/long.txt"

"$oflite" bench --sweep softmax-shapes --json >"$outdir/shapes.json"
python3 tools/reference/torch_softmax_shapes.py "$outdir/shapes.json" 2>&1 |
  tee "$outdir/shapes_torch.txt"
