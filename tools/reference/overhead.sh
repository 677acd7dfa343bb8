#!/usr/bin/env bash
# Host cost per call, ours beside libtorch's C++ API and the launch floor, in one job. Run from the
# repository root on a machine with a GPU and a python3 that has torch:
#
#   tools/reference/overhead.sh OFLITE [OFLITE_BEFORE]
#
# OFLITE is the oflite binary to time; OFLITE_BEFORE (optional) an older build timed in the same
# job for a before/after table. Builds the two reference programs under build/reference/.
# Without a GPU (no nvidia-smi listing one) only the CPU calls run. TORCH_DIR names a torch
# package folder (its include/ and lib/) where python3 cannot import torch, e.g. a torch wheel
# unpacked on a machine without CUDA's libraries.
set -euo pipefail
oflite=${1:?usage: overhead.sh OFLITE [OFLITE_BEFORE]}
before=${2:-}
out=build/reference
mkdir -p "$out"
devices=(cpu)
if nvidia-smi -L >/dev/null 2>&1; then
  devices+=(cuda)
fi
if [ -n "${TORCH_DIR:-}" ]; then
  torch_dir=$TORCH_DIR
  abi=1  # the ABI of the pip wheels since torch 2.7
else
  torch_dir=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')
  abi=$(python3 -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
fi
libs=(-ltorch_cpu -lc10)
if [ "${#devices[@]}" -gt 1 ]; then
  nvcc -O2 -o "$out/launch_floor" tools/reference/launch_floor.cu
  # --no-as-needed keeps libtorch_cuda linked: its static initializers register the CUDA backend.
  libs=(-Wl,--no-as-needed -ltorch -ltorch_cuda -ltorch_cpu -lc10_cuda -lc10 -Wl,--as-needed)
fi
# C++20: torch's headers need it since 2.12.
g++ -std=c++20 -O2 -D_GLIBCXX_USE_CXX11_ABI="$abi" tools/reference/libtorch_overhead.cpp \
  -I"$torch_dir/include" -I"$torch_dir/include/torch/csrc/api/include" \
  -L"$torch_dir/lib" -Wl,-rpath,"$torch_dir/lib" "${libs[@]}" -o "$out/libtorch_overhead"
if [ "${#devices[@]}" -gt 1 ]; then
  "$out/launch_floor"
fi
for device in "${devices[@]}"; do
  "$out/libtorch_overhead" "$device"
  "$oflite" bench --overhead --device "$device"
  if [ -n "$before" ]; then
    echo "before:"
    "$before" bench --overhead --device "$device"
  fi
done
