#!/usr/bin/env bash
# Quick start 2: builds everything and runs the whole test suite with ctest.
# --sanitize: builds the CPU suite with clang under AddressSanitizer and UndefinedBehaviorSanitizer
# into build-sanitize/, with the libFuzzer targets, and runs it there (each fuzz target for a
# fixed number of inputs), and the registry and log-sink concurrency tests under ThreadSanitizer
# in build-tsan/; any sanitizer report fails its test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" != "--sanitize" ]; then
  "$root/tools/build.sh" -DBUILD_TESTING=ON
  cd "$root/build"
  exec ctest --output-on-failure -j "$(nproc)"
fi

"$root/tools/install_deps.sh" --sanitize
build="$root/build-sanitize"
generator=()
[ -f "$build/CMakeCache.txt" ] || generator=(-G Ninja)
CC=clang CXX=clang++ cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOFLITE_WITH_CUDA=OFF -DOFLITE_SANITIZE=ON -DOFLITE_FUZZ=ON \
  -DBUILD_TESTING=ON
cmake --build "$build" -j "$(nproc)"

# The registries read while a library loads: the concurrency test under ThreadSanitizer, which
# sees a race even when the interleaving that would break a call does not happen.
tsan="$root/build-tsan"
generator=()
[ -f "$tsan/CMakeCache.txt" ] || generator=(-G Ninja)
tsan_flags=()
for kind in CXX_FLAGS EXE_LINKER_FLAGS SHARED_LINKER_FLAGS MODULE_LINKER_FLAGS; do
  tsan_flags+=("-DCMAKE_${kind}=-fsanitize=thread")
done
CC=clang CXX=clang++ cmake -S "$root" -B "$tsan" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOFLITE_WITH_CUDA=OFF -DBUILD_TESTING=ON "${tsan_flags[@]}"
cmake --build "$tsan" -j "$(nproc)" --target oflite_plugin_test oflite_test_plugin_conflict \
  oflite_common_test oflite_framework_test
TSAN_OPTIONS=halt_on_error=1 "$tsan/tests/oflite_plugin_test" \
  --gtest_filter='OpLibraryTest.LoadingWhileOtherThreadsDispatchFailsNoCall'
# Log sinks swapped while other threads log.
TSAN_OPTIONS=halt_on_error=1 "$tsan/tests/oflite_common_test" \
  --gtest_filter='LoggingTest.SinksSwapWhileThreadsLog'
# Calls from several threads at once, and the caller's allocator swapped in and out.
TSAN_OPTIONS=halt_on_error=1 "$tsan/tests/oflite_framework_test" \
  --gtest_filter='ThreadSafetyTest.*:SetAllocatorTest.*'

cd "$build"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# consumer_example builds an uninstrumented program against the installed package: it tests
# the packaging, which the plain run covers, and cannot link an instrumented library.
exec ctest --output-on-failure -j "$(nproc)" -E '^consumer_example$'
