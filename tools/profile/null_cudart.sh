#!/usr/bin/env bash
# Runs a command of a CUDA build against a CUDA runtime that does nothing (null_cudart.cpp), to
# profile the host side of CUDA calls without a GPU:
#
#   tools/profile/null_cudart.sh build/tools/oflite bench --overhead --device cuda
#   tools/profile/null_cudart.sh perf record -g build/tools/oflite bench --overhead --device cuda
#
# Only the runtime is replaced: cuBLAS needs a real driver, so matmul calls fail under it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${NULL_CUDART_DIR:-/tmp/oflite-null-cudart}
mkdir -p "$out"
if [ ! -f "$out/libcudart.so.13" ] || [ "$here/null_cudart.cpp" -nt "$out/libcudart.so.13" ]; then
  echo 'libcudart.so.13 { global: *; };' > "$out/version.map"
  g++ -O2 -fPIC -shared -I/usr/local/cuda/include "$here/null_cudart.cpp" \
    -Wl,-soname,libcudart.so.13 -Wl,--version-script="$out/version.map" -o "$out/libcudart.so.13"
fi
LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$@"
