#!/usr/bin/env bash
# Installs the Debian packages oneflow_lite builds with, and with pip the Python tools its Python
# package builds and tests with, only those that are missing.
# Usage: install_deps.sh [--sanitize]
# Safe to run again: when everything is present it does nothing and prints one line.
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache
  libgoogle-glog-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libcli11-dev
  libopenblas-openmp-dev libdnnl-dev ocl-icd-opencl-dev libdlpack-dev libgloo-dev
  python3-dev python3-pip python3-venv
)
# --sanitize: clang and its runtimes (ASan, UBSan, libFuzzer) for tools/test.sh --sanitize.
if [ "${1:-}" = "--sanitize" ]; then
  packages+=(clang libclang-rt-dev)
fi

# The Python package's build and test tools (nanobind, scikit-build-core, NumPy, pytest), for
# the python3 on PATH, with pip: only those it cannot import.
install_python_packages() {
  command -v python3 > /dev/null || return 0
  local wanted=(nanobind:nanobind scikit_build_core:scikit-build-core numpy:numpy pytest:pytest)
  local absent=() entry
  for entry in "${wanted[@]}"; do
    python3 -c "import ${entry%%:*}" 2> /dev/null || absent+=("${entry#*:}")
  done
  [ ${#absent[@]} -gt 0 ] || return 0
  echo "install_deps: pip installing ${absent[*]}"
  local pip=(python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore)
  # Debian's own python3 refuses installs outside a virtual environment (PEP 668).
  "${pip[@]}" "${absent[@]}" 2> /dev/null || "${pip[@]}" --break-system-packages "${absent[@]}"
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  install_python_packages
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
install_python_packages
