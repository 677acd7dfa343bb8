#!/usr/bin/env bash
# The CPU provider's calls beside ONNX Runtime (and torch, where installed) in one job, on every
# core of the machine it runs on. Run from the repository root:
#
#   tools/reference/cpu_reference.sh OFLITE [OFLITE_BEFORE]
#
# OFLITE is the oflite binary to time; OFLITE_BEFORE (optional) an older build timed in the same
# job. Every result is the median of five rounds that time each call through each in turn. Also runs build/reference/cpu_gemm_probe (OpenBLAS against oneDNN's sgemm), building it
# first where oneDNN's and OpenBLAS's headers are installed. Needs python3 with onnxruntime and
# onnx (pip install onnxruntime onnx).
set -euo pipefail
oflite=${1:?usage: cpu_reference.sh OFLITE [OFLITE_BEFORE]}
before=${2:-}
probe=build/reference/cpu_gemm_probe
arch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
if [ ! -x "$probe" ] && [ -f /usr/include/oneapi/dnnl/dnnl.h ]; then
  mkdir -p build/reference
  g++ -std=c++17 -O2 -fopenmp tools/reference/cpu_gemm_probe.cpp \
    -I"/usr/include/$arch/openblas-openmp" -L"/usr/lib/$arch/openblas-openmp" \
    -Wl,-rpath,"/usr/lib/$arch/openblas-openmp" -lopenblas -ldnnl -o "$probe"
fi
echo "cores: $(nproc)"
# Five rounds, each timing every call once through each binary and library in turn.
python3 "$(dirname "$0")/cpu_reference.py" --rounds 5 --oflite "$oflite" ${before:+"$before"} \
  ${OFLITE_ONNX_MODELS:+--models "$OFLITE_ONNX_MODELS"}
if [ -x "$probe" ]; then
  "$probe"
  OMP_NUM_THREADS=1 "$probe"
fi
