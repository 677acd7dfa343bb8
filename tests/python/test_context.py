# The host's execution context from Python on the CPU: stream scopes (only the null queue on the
# CPU), allocator statistics. The CUDA side is in test_cuda.py.
import numpy as np
import pytest

import oneflow_lite as ofl


def test_a_stream_scope_on_the_cpu_takes_the_null_queue(rng):
    x = rng.standard_normal((4, 6)).astype(np.float32)
    with ofl.stream(0, device="cpu"):
        y = ofl.softmax(x)
    np.testing.assert_allclose(y.numpy().sum(axis=1), np.ones(4), rtol=1e-6)
    with pytest.raises(ValueError, match="null stream"):
        with ofl.stream(12345, device="cpu"):
            pass
    with pytest.raises(RuntimeError, match="cuda:99"):
        with ofl.stream(0, device="cuda:99"):
            pass


def test_a_scope_cannot_be_entered_twice():
    scope = ofl.stream(0, device="cpu")
    with scope:
        with pytest.raises(RuntimeError, match="entered already"):
            scope.__enter__()


def test_allocator_statistics_count_a_new_tensor():
    ofl.empty_cache("cpu")
    before = ofl.allocator_stats("cpu")
    assert before["reserved_bytes"] == before["allocated_bytes"]
    t = ofl.tensor(np.ones(1000, np.float32))
    during = ofl.allocator_stats("cpu")
    assert during["allocated_bytes"] == before["allocated_bytes"] + 4096  # 4000 bytes, rounded
    assert during["allocation_count"] == before["allocation_count"] + 1
    del t
    assert ofl.allocator_stats("cpu")["allocated_bytes"] == before["allocated_bytes"]
    with pytest.raises(ValueError, match="gpu"):
        ofl.allocator_stats("gpu")
