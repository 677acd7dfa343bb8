# ofl.optest runs the op harness of the oflite CLI (OFLITE_CLI, the package's bin/oflite or PATH)
# with the op libraries loaded from Python, and reports its groups.
import os

import numpy as np
import pytest

import oneflow_lite as ofl


def test_optest_runs_the_harness():
    result = ofl.optest(op="softmax", device="cpu", dtype=["float32", "float64"], cases=3, seed=7)
    assert result.ok and result.failed == 0 and result.passed == 2
    groups = result.report["groups"]
    assert {(g["op"], g["device"], g["dtype"]) for g in groups} == {
        ("softmax", "cpu", "float32"), ("softmax", "cpu", "float64")}
    assert all(g["cases"] == 3 for g in groups)
    assert "2 passed, 0 failed" in result.output


def test_optest_usage_errors_raise():
    with pytest.raises(ValueError, match="refused its arguments"):
        ofl.optest(op="softmax", device="cpu", cases=0)
    result = ofl.optest(op="softmax", device="cpu", cases=0, check=False)
    assert result.returncode == 2 and not result.ok


def test_an_op_library_from_python_and_its_optest():
    path = os.environ.get("OFLITE_TEST_PLUGIN_GOOD")
    if not path:
        pytest.skip("OFLITE_TEST_PLUGIN_GOOD is not set (ctest sets it)")
    with pytest.raises(AttributeError):
        ofl.ops.plugin.scale
    ofl.load_op_library(path)
    ofl.load_op_library(path)  # twice is harmless
    y = ofl.ops.plugin.scale(np.array([1.0, -2.0], np.float32), factor=3.0)
    np.testing.assert_allclose(y.numpy(), [3.0, -6.0])
    assert ofl.ops["plugin.scale"] is ofl.ops.plugin.scale
    assert "plugin.scale" in ofl.list_ops()
    result = ofl.optest(op="plugin.scale", device="cpu", cases=2)
    assert result.ok and result.passed >= 1 and result.failed == 0
    with pytest.raises(ValueError, match="/nonexistent/libops.so"):
        ofl.load_op_library("/nonexistent/libops.so")
