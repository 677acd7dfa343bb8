#!/usr/bin/env bash
# Configures and builds oneflow_lite into build/ (installing missing Debian packages first).
# OFLITE_TARGET picks one target (default: everything); arguments go to cmake's configure step,
# e.g. -DOFLITE_WITH_CUDA=OFF.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"
generator=()
[ -f "$root/build/CMakeCache.txt" ] || generator=(-G Ninja)
cmake -S "$root" -B "$root/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
target=()
[ -z "${OFLITE_TARGET:-}" ] || target=(--target "$OFLITE_TARGET")
cmake --build "$root/build" -j "$(nproc)" "${target[@]}"
