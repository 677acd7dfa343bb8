#!/usr/bin/env bash
# Installs the Debian packages oneflow_lite builds with, only those that are missing.
# Usage: install_deps.sh [--sanitize]
# Safe to run again: when everything is present it does nothing and prints one line.
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache
  libgoogle-glog-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libcli11-dev
  libopenblas-openmp-dev libdnnl-dev ocl-icd-opencl-dev libdlpack-dev
)
# --sanitize: clang and its runtimes (ASan, UBSan, libFuzzer) for tools/test.sh --sanitize.
if [ "${1:-}" = "--sanitize" ]; then
  packages+=(clang libclang-rt-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all build dependencies are present"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "install_deps: these Debian packages are missing: ${missing[*]}" >&2
  echo "install_deps: run this script as root (or with passwordless sudo), or install them:" >&2
  echo "  apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
