# CUDA from Python: these need a GPU (and torch or CuPy built with CUDA for the interop ones),
# and skip themselves elsewhere. On the GPU machine:
#   PYTHONPATH=build/python python3 -m pytest -q tests/python/test_cuda.py
import gc

import numpy as np
import pytest

import oneflow_lite as ofl

pytestmark = pytest.mark.skipif(ofl.cuda_device_count() == 0, reason="no CUDA device for oflite")


def cuda_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return torch


def test_tensors_to_and_from_the_gpu(rng):
    x = rng.standard_normal((8, 128)).astype(np.float32)
    t = ofl.tensor(x, device="cuda")
    assert t.device == "cuda:0" and t.__dlpack_device__() == (2, 0)
    y = ofl.softmax(t)
    assert y.device == "cuda:0"
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(y.to("cpu").numpy(), y.numpy())  # .numpy() copies to the host


def test_torch_cuda_in_and_out_without_a_copy():
    torch = cuda_torch()
    x = torch.randn(8, 128, device="cuda")
    t = ofl.from_dlpack(x)
    assert t.data_ptr == x.data_ptr() and t.device == "cuda:0"
    y = ofl.softmax(x)
    back = torch.from_dlpack(y)
    assert back.data_ptr() == y.data_ptr and back.device == x.device
    torch.testing.assert_close(back, torch.softmax(x, -1), rtol=1e-5, atol=1e-6)
    a = torch.randn(64, 64, device="cuda")
    torch.testing.assert_close(torch.from_dlpack(ofl.ops.matmul(a, a)), a @ a, rtol=1e-4,
                               atol=1e-4)


def rows_after_slow_work(torch):
    """8 rows made at the end of long work on the current torch stream: a read out of order
    would see old values."""
    big = torch.randn(4096, 4096, device="cuda")
    for _ in range(20):
        big = big * 1.0001
    return big[:8].contiguous()


def test_torch_work_on_its_stream_comes_before_oflite_reads():
    torch = cuda_torch()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        x = rows_after_slow_work(torch)
        y = ofl.softmax(x)  # torch orders its stream before oflite's (DLPack stream argument)
    torch.cuda.synchronize()
    torch.testing.assert_close(torch.from_dlpack(y), torch.softmax(x, -1), rtol=1e-5, atol=1e-6)


def test_a_gib_tensor_through_softmax_allocates_only_its_output():
    torch = cuda_torch()
    x = torch.randn(1024, 256 * 1024, device="cuda")  # 1 GiB of float32
    torch.cuda.synchronize()
    torch_before = torch.cuda.memory_allocated()
    ofl_before = ofl.allocator_stats("cuda:0")["allocated_bytes"]
    y = ofl.softmax(x)
    back = torch.from_dlpack(y)
    ofl.synchronize("cuda:0")
    # oflite's allocator grew by the output alone, torch's not at all: no copy of the input.
    assert ofl.allocator_stats("cuda:0")["allocated_bytes"] - ofl_before == x.numel() * 4
    assert torch.cuda.memory_allocated() == torch_before
    assert back.data_ptr() == y.data_ptr
    torch.testing.assert_close(back[:4], torch.softmax(x[:4], -1), rtol=1e-5, atol=1e-7)


def test_calls_in_a_stream_scope_run_on_the_callers_stream():
    torch = cuda_torch()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        x = rows_after_slow_work(torch)
        torch.cuda._sleep(200_000_000)  # keeps side busy well past the call below
        with ofl.stream(side):
            y = ofl.softmax(x)  # queued on side behind the sleep
            still_busy = not side.query()  # the call did not wait for side on the host
        z = torch.from_dlpack(y) * 2  # torch's next work on side reads it in order
    assert still_busy
    side.synchronize()
    torch.testing.assert_close(z, torch.softmax(x, -1) * 2, rtol=1e-5, atol=1e-6)


def test_the_torch_tensor_lives_until_oflite_lets_go():
    torch = cuda_torch()
    x = torch.arange(1024, device="cuda", dtype=torch.float32)
    ptr = x.data_ptr()
    t = ofl.from_dlpack(x)
    del x
    gc.collect()
    torch.cuda.empty_cache()
    z = torch.zeros(1024, device="cuda")  # may reuse freed memory: it must not reuse t's
    assert z.data_ptr() != ptr
    np.testing.assert_array_equal(t.numpy(), np.arange(1024, dtype=np.float32))


def test_cupy_in_without_a_copy():
    cupy = pytest.importorskip("cupy")
    x = cupy.random.standard_normal((8, 128), dtype=cupy.float32)
    t = ofl.from_dlpack(x)
    assert t.data_ptr == x.data.ptr
    y = cupy.from_dlpack(ofl.softmax(x))
    cupy.testing.assert_allclose(y.sum(axis=1), cupy.ones(8), rtol=1e-5)


def test_a_gpu_oflite_does_not_have_is_a_clear_error():
    torch = cuda_torch()
    if torch.cuda.device_count() <= ofl.cuda_device_count():
        pytest.skip("torch sees no more GPUs than oflite")
    x = torch.ones(4, device="cuda:{}".format(ofl.cuda_device_count()))
    with pytest.raises(RuntimeError, match="a device this oflite does not have"):
        ofl.softmax(x)


def test_jax_in_without_a_copy():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        pytest.skip("jax has no GPU")
    x = jax.device_put(jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 100, gpus[0])
    t = ofl.from_dlpack(x)
    assert t.data_ptr == x.unsafe_buffer_pointer() and t.device == "cuda:0"
    y = ofl.softmax(x)
    e = np.exp(np.asarray(x, dtype=np.float64) - np.asarray(x, dtype=np.float64).max(1, keepdims=True))
    np.testing.assert_allclose(y.numpy(), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
