#!/usr/bin/env bash
# `pip install .` from a user's side: builds the wheel of the source tree with pip and
# scikit-build-core, installs it into a temporary directory and uses it from there with nothing
# of the build tree on any path: what the wheel holds, its $ORIGIN run paths, softmax from NumPy,
# and ofl.optest through the bundled oflite. The wheel is built for the CPU (the package's
# layout is under test here; `pip install .` builds CUDA as the main build does), without build
# isolation (the installed nanobind and scikit-build-core, no download), in
# BUILD_DIR/python-wheel, kept so that a rerun rebuilds only what changed.
#
# Usage: tools/python_package_test.sh BUILD_DIR [PYTHON]   (ctest runs it as python_package)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
python=${2:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/oflite_wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "python_package_test: $*" >&2; exit 1; }

"$python" -m pip install --quiet --no-build-isolation --no-deps --disable-pip-version-check \
  --root-user-action=ignore --target "$work/site" -C build-dir="$build/python-wheel" \
  -C cmake.define.OFLITE_WITH_CUDA=OFF "$root" || fail "pip install failed"

package=$work/site/oneflow_lite
for f in __init__.py liboneflow_lite.so bin/oflite; do
  [ -e "$package/$f" ] || fail "the wheel has no oneflow_lite/$f: $(cd "$work/site" && find . | head -30)"
done
extension=$(ls "$package"/_C*.so 2> /dev/null | head -1)
[ -n "$extension" ] || fail "the wheel has no extension oneflow_lite/_C*.so"
# Only the package: no C++ headers or CMake files beside it.
[ "$(ls "$work/site" | grep -v -e '^oneflow_lite$' -e '\.dist-info$')" = "" ] ||
  fail "the wheel installs more than the package: $(ls "$work/site")"
readelf -d "$extension" | grep -q 'R.*PATH.*\$ORIGIN' || fail "the extension has no \$ORIGIN run path"
readelf -d "$package/bin/oflite" | grep -q 'R.*PATH.*\$ORIGIN/\.\.' ||
  fail "bin/oflite has no \$ORIGIN/.. run path"

cd "$work"
env -u OFLITE_CLI -u LD_LIBRARY_PATH PYTHONPATH="$work/site" "$python" - "$work/site" << 'EOF'
import sys

import numpy as np

import oneflow_lite as ofl

assert ofl.__file__.startswith(sys.argv[1]), ofl.__file__
x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], np.float32)
y = ofl.softmax(x, dim=-1)
e = np.exp(x - x.max(axis=1, keepdims=True))
np.testing.assert_allclose(y.numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-6)
result = ofl.optest(op="softmax", device="cpu", dtype="float32", cases=2)
assert result.ok and result.passed == 1 and result.failed == 0, result
print("python_package_test: the installed wheel imports and runs (optest: %s)" % result)
EOF
