#!/usr/bin/env bash
# The installed package from a consumer's side. Installs a built oneflow_lite into a temporary
# prefix, checks what it holds, builds the out-of-tree example tools/examples/custom_op against
# it with find_package(oneflow_lite) alone, runs the example's program, and proves the example's
# op with the installed CLI: `oflite --load libexample_ops.so optest --op example.swiglu --device cpu`
# (and --device cuda when the package has CUDA and a GPU is visible); then builds the C example
# tools/examples/c_api/softmax.c with gcc -std=c11 against the installed header and library, and runs it.
#
# Usage: tools/consumer_test.sh BUILD_DIR     (ctest runs it as consumer_example)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/oflite_consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "consumer_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > /dev/null
includes=$prefix/include/oneflow_lite
config=$(find "$prefix" -name oneflow_liteConfig.cmake)
[ -x "$prefix/bin/oflite" ] || fail "no bin/oflite in the prefix"
[ -n "$config" ] || fail "no oneflow_liteConfig.cmake in the prefix"
ls "$prefix"/lib*/liboneflow_lite.so > /dev/null || fail "no liboneflow_lite.so in the prefix"

# Only oneflow_lite/ goes into the include directory, the internals stay out of it, and every
# installed header compiles from the installed include root alone, included as a consumer
# includes it (none reaches for a header that was not installed).
[ "$(ls "$prefix/include")" = oneflow_lite ] || fail "include/ holds more than oneflow_lite/: $(ls "$prefix/include")"
for internal in ep/cpu ep/cuda ops kernels tools functional/dim_utils.h primitive/broadcast_dims.h; do
  [ ! -e "$includes/$internal" ] || fail "internal $internal was installed"
done
(cd "$prefix/include" && find oneflow_lite -name '*.h' | sed 's|.*|#include <&>|') > "$work/all_headers.cpp"
c++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I"$prefix/include" "$work/all_headers.cpp" ||
  fail "the installed headers do not compile on their own"
# glog and protobuf are the library's own, not part of its API: no installed header includes
# them (they sit on the system include path, so compiling cannot show that; the dependency
# list does).
c++ -std=c++17 -M -I"$prefix/include" "$work/all_headers.cpp" > "$work/all_headers.d"
for private in /glog/ /google/protobuf/; do
  ! grep -q "$private" "$work/all_headers.d" ||
    fail "an installed header includes $private headers: $(grep -o "[^ ]*$private[^ ]*" "$work/all_headers.d" | head -1)"
done
[ ! -e "$includes/proto" ] || fail "the internal oneflow_lite/proto was installed"

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root/tools/examples/custom_op" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" "${launcher[@]}" \
  > "$work/configure.log" || { cat "$work/configure.log"; fail "configuring the example failed"; }
cmake --build "$work/example" || fail "building the example failed"

"$work/example/swiglu_demo"
oflite=("$prefix/bin/oflite" --load "$work/example/libexample_ops.so")
# (grep reads all of it: with -q it could exit first and fail the pipe with SIGPIPE)
"${oflite[@]}" ops | grep -x "example.swiglu" > /dev/null ||
  fail "oflite --load ... ops does not list example.swiglu"
"${oflite[@]}" optest --op example.swiglu --device cpu
if grep -q "set(oneflow_lite_WITH_CUDA ON)" "$config" && nvidia-smi -L > /dev/null 2>&1; then
  "${oflite[@]}" optest --op example.swiglu --device cuda
fi
# The C API from C: a C11 program against the installed header and library alone.
libdir=$(dirname "$(ls "$prefix"/lib*/liboneflow_lite.so | head -1)")
gcc -std=c11 -pedantic -Wall -Wextra -Werror -I"$prefix/include" "$root/tools/examples/c_api/softmax.c" \
  -L"$libdir" -loneflow_lite -lm -Wl,-rpath,"$libdir" -o "$work/c_softmax" ||
  fail "the C example does not build against the installed package"
"$work/c_softmax" || fail "the C example failed"
echo "consumer_test: the installed package builds and runs the example"
