#!/usr/bin/env bash
# Quick start 2: builds everything and runs the whole test suite with ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh" -DBUILD_TESTING=ON
cd "$root/build"
ctest --output-on-failure -j "$(nproc)"
