"""oneflow_lite from Python: any DLPack array in, ofl.Tensor out, every registered op by name.

    import numpy as np
    import oneflow_lite as ofl

    y = ofl.softmax(np.random.rand(8, 128).astype(np.float32), dim=-1)
    z = ofl.ops.transpose(y, perm=[1, 0])
    z.numpy()

docs/PYTHON.md in the repository has the API, the zero-copy rules and the error mapping.
"""

import os
import re
import shutil
import subprocess
import tempfile
import json

from ._C import Tensor, Op, softmax, log_softmax, from_dlpack, list_ops, synchronize
from ._C import allocator_stats, empty_cache
from ._C import _StreamScope
from ._C import device_count as _device_count
from ._C import load_op_library as _load_op_library
from ._C import _from_buffer

__all__ = [
    "Tensor", "Op", "ops", "softmax", "log_softmax", "from_dlpack", "tensor", "list_ops",
    "load_op_library", "optest", "OptestResult", "OptestFailure", "cuda_device_count",
    "synchronize", "stream", "allocator_stats", "empty_cache",
]

_loaded_libraries = []  # paths given to load_op_library, passed on to `oflite optest`


def cuda_device_count():
    """CUDA devices this oflite sees (0 when it is built without CUDA)."""
    return _device_count("cuda")


def stream(queue, device=None):
    """A context manager: inside `with ofl.stream(s):` this thread's calls on the stream's GPU
    run on `s` and their outputs take memory for it. `s` is a torch.cuda.Stream, a CuPy stream,
    or a cudaStream_t as an int (0: the legacy default stream; then give `device`). The caller
    keeps the stream alive while tensors made in the scope live."""
    handle = getattr(queue, "cuda_stream", None)  # torch
    if handle is None:
        handle = getattr(queue, "ptr", None)  # CuPy
    if handle is None:
        handle = int(queue)
    if device is None:
        where = getattr(queue, "device", None)
        index = getattr(where, "index", None)
        if index is None:
            index = getattr(queue, "device_id", None)
        device = "cuda:%d" % (index or 0)
    return _StreamScope(device, handle)


def load_op_library(path):
    """Loads a shared library of ops (OFLITE_OP_LIBRARY); its ops appear under ofl.ops."""
    path = os.fspath(path)
    _load_op_library(path)
    if path not in _loaded_libraries:
        _loaded_libraries.append(path)


# ---- Tensor: the Python side of it ----

def _numpy(self):
    """The tensor as a NumPy array: the same memory for a CPU tensor (no copy), a host copy for
    a CUDA tensor. NumPy has no bfloat16: cast such a tensor first (ofl.ops.cast)."""
    import numpy as np
    if self.dtype == "bfloat16":
        raise TypeError("ofl.Tensor.numpy: NumPy has no bfloat16; cast first, e.g. "
                        "ofl.ops.cast(t, dtype='float32')")
    if self.device == "cpu":
        return np.from_dlpack(self)
    out = np.empty(self.shape, dtype=self.dtype)
    self._copy_to(out)
    return out


def _array(self, dtype=None, copy=None):
    array = _numpy(self)
    if dtype is not None:
        array = array.astype(dtype, copy=False)
    return array.copy() if copy else array


def _repr(self):
    return "ofl.Tensor(shape={}, dtype={}, device={})".format(self.shape, self.dtype, self.device)


Tensor.numpy = _numpy
Tensor.__array__ = _array
Tensor.__repr__ = _repr


def tensor(data, dtype=None, device="cpu"):
    """A new tensor copied from `data` (anything numpy.asarray takes) on `device`
    ('cpu', 'cuda', 'cuda:1'). Use ofl.from_dlpack to share memory instead."""
    import numpy as np
    array = np.asarray(data, dtype=dtype)
    if not array.dtype.isnative:  # the buffer is copied as host-order bytes
        array = array.astype(array.dtype.newbyteorder("="))
    array = np.require(array, requirements="C")  # keeps 0-d arrays 0-d
    return _from_buffer(array, array.dtype.name, device)


# ---- ofl.ops ----

class _OpNamespace:
    """ofl.ops: every registered op as an attribute (ofl.ops.softmax, ofl.ops.example.swiglu for
    the namespaced op "example.swiglu"), also by name (ofl.ops["example.swiglu"]). An op is
    looked up once; later accesses are plain attribute reads."""

    def __init__(self, prefix=""):
        self._prefix = prefix

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        full = self._prefix + name
        names = list_ops()
        if full in names:
            value = Op(full)
        elif any(n.startswith(full + ".") for n in names):
            value = _OpNamespace(full + ".")
        else:
            raise AttributeError("ofl.ops has no op '{}' (registered: {})".format(
                full, ", ".join(n for n in names if n.startswith(self._prefix))))
        setattr(self, name, value)  # the next access does not come here
        return value

    def __getitem__(self, name):
        value = self
        for part in name.split("."):
            value = getattr(value, part)
        return value

    def __dir__(self):
        names = list_ops()
        return sorted({n[len(self._prefix):].split(".")[0] for n in names
                       if n.startswith(self._prefix)})

    def __repr__(self):
        return "<ofl.ops{}>".format("." + self._prefix[:-1] if self._prefix else "")


ops = _OpNamespace()


# ---- ofl.optest: the op harness of the oflite CLI ----

class OptestFailure(AssertionError):
    """Raised by optest(check=True) when a group failed; .result holds the OptestResult."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


class OptestResult:
    """What `oflite optest` reported: passed and failed op/device/dtype groups, the JSON report
    (report["groups"][i]["failures"] has each failure's message and reproducing command), the
    command's output and exit code."""

    def __init__(self, returncode, output, report):
        self.returncode = returncode
        self.output = output
        self.report = report or {}
        self.passed = self.report.get("passed", 0)
        self.failed = self.report.get("failed", 0)

    @property
    def ok(self):
        return self.returncode == 0

    def __repr__(self):
        return "OptestResult(passed={}, failed={}, returncode={})".format(
            self.passed, self.failed, self.returncode)


def _cli_path():
    env = os.environ.get("OFLITE_CLI")
    if env:
        return env
    bundled = os.path.join(os.path.dirname(__file__), "bin", "oflite")
    if os.path.exists(bundled):
        return bundled
    found = shutil.which("oflite")
    if found:
        return found
    raise RuntimeError("ofl.optest: no oflite executable: not in the package ({}), not in "
                       "$OFLITE_CLI and not on PATH".format(bundled))


def optest(op=None, device=None, dtype=None, cases=None, seed=None, case=None, check=True,
           timeout=None):
    """Runs the op harness (`oflite optest`) on `op` (a name or a list; default every op) for
    `device` ('cpu', 'cuda'; default every visible one) and `dtype` (a name or a list), with the
    op libraries loaded by load_op_library. Returns an OptestResult; with check=True (the
    default) a failed group raises OptestFailure and a usage error ValueError."""
    cmd = [_cli_path()]
    for path in _loaded_libraries:
        cmd += ["--load", path]
    cmd.append("optest")
    for name in ([op] if isinstance(op, str) else op or []):
        cmd += ["--op", name]
    if device is not None:
        cmd += ["--device", device]
    for name in ([dtype] if isinstance(dtype, str) else dtype or []):
        cmd += ["--dtype", name]
    for flag, value in (("--cases", cases), ("--seed", seed), ("--case", case)):
        if value is not None:
            cmd += [flag, str(value)]
    with tempfile.TemporaryDirectory(prefix="oflite_optest") as tmp:
        report_path = os.path.join(tmp, "report.json")
        cmd += ["--json", report_path]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=timeout)
        report = None
        if os.path.exists(report_path):
            with open(report_path) as f:
                report = json.load(f)
    result = OptestResult(proc.returncode, proc.stdout, report)
    if report is None:  # the counts from the closing line when there is no report
        m = re.search(r"^(\d+) passed, (\d+) failed", proc.stdout, re.M)
        if m:
            result.passed, result.failed = int(m.group(1)), int(m.group(2))
    if check and proc.returncode == 2:
        raise ValueError("ofl.optest: `{}` refused its arguments:\n{}".format(
            " ".join(cmd), proc.stdout.strip()))
    if check and proc.returncode != 0:
        failures = [f["message"] + "\n  rerun: " + f["reproduce"]
                    for g in result.report.get("groups", []) for f in g.get("failures", [])]
        raise OptestFailure("ofl.optest: {} passed, {} failed\n{}".format(
            result.passed, result.failed, "\n".join(failures[:20]) or proc.stdout[-4000:]),
            result)
    return result
