#!/usr/bin/env bash
# Quick start 1: builds the oflite CLI if needed (build log on stderr), then runs `oflite demo`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OFLITE_TARGET=oflite "$root/tools/build.sh" >&2
exec "$root/build/tools/oflite" demo
