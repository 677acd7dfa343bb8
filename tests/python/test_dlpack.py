# DLPack both ways from Python: zero-copy in from NumPy and raw capsules, out to NumPy, each
# capsule taken once, deleters run exactly once, and clear errors for what oflite cannot take.
import gc

import numpy as np
import pytest

import oneflow_lite as ofl
from dlpack_producer import Producer, capsule_name


def test_numpy_in_without_a_copy():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ofl.from_dlpack(a)
    assert t.data_ptr == a.ctypes.data and t.shape == (3, 4) and t.dtype == "float32"
    a[0, 0] = 42.0  # the same memory
    assert t.numpy()[0, 0] == 42.0
    assert ofl.from_dlpack(t) is t


def test_numpy_out_without_a_copy(rng):
    y = ofl.softmax(rng.standard_normal((4, 5)).astype(np.float32))
    n = y.numpy()
    assert n.ctypes.data == y.data_ptr
    m = np.from_dlpack(y)
    assert m.ctypes.data == y.data_ptr
    assert y.__dlpack_device__() == (1, 0)
    del y
    gc.collect()
    np.testing.assert_allclose(n.sum(axis=1), 1.0, rtol=1e-6)  # the array keeps the memory


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint8", "int32",
                                   "int64", "bool"])
def test_every_numpy_dtype_round_trips(rng, dtype):
    a = (rng.standard_normal((3, 4)) * 50).astype(dtype)
    t = ofl.from_dlpack(a)
    assert t.dtype == dtype
    back = t.numpy()
    assert back.dtype == a.dtype and back.ctypes.data == a.ctypes.data
    np.testing.assert_array_equal(back, a)


def test_bfloat16_has_no_numpy_form():
    t = ofl.ops.cast(np.ones(3, np.float32), dtype="bfloat16")
    assert t.dtype == "bfloat16"
    with pytest.raises(TypeError, match="NumPy has no bfloat16"):
        t.numpy()
    np.testing.assert_array_equal(ofl.ops.cast(t, dtype="float32").numpy(), [1, 1, 1])


def test_a_capsule_is_taken_once():
    a = np.arange(4, dtype=np.float32)
    capsule = a.__dlpack__()
    t = ofl.from_dlpack(capsule)
    assert capsule_name(capsule) == "used_dltensor"
    assert t.data_ptr == a.ctypes.data
    with pytest.raises(ValueError, match="already consumed"):
        ofl.from_dlpack(capsule)
    with pytest.raises(ValueError, match="softmax: argument x: the DLPack capsule was already"):
        ofl.softmax(capsule)
    out = ofl.softmax(a).__dlpack__()
    assert capsule_name(out) == "dltensor"
    ofl.from_dlpack(out)
    with pytest.raises(ValueError, match="already consumed"):
        ofl.from_dlpack(out)


def test_the_producers_deleter_runs_once_when_oflite_lets_go():
    p = Producer((2, 3))
    t = ofl.from_dlpack(p.capsule())  # the capsule is dropped at once, consumed
    gc.collect()
    assert p.deleted == 0 and t.data_ptr == p.address
    y = ofl.ops.mul(t, t)  # a new tensor: does not hold the input
    np.testing.assert_array_equal(y.numpy().ravel(), np.arange(6) ** 2)
    exported = t.__dlpack__()  # lent on: the memory stays until this capsule goes too
    del t
    gc.collect()
    assert p.deleted == 0
    del exported  # unconsumed: its destructor lets go
    gc.collect()
    assert p.deleted == 1
    del y
    gc.collect()
    assert p.deleted == 1


def test_an_export_consumed_elsewhere_is_freed_by_its_consumer():
    p = Producer((4,))
    t = ofl.from_dlpack(p.capsule())
    capsule = t.__dlpack__()
    t2 = ofl.from_dlpack(capsule)  # consumed: the capsule's destructor must not free it
    del capsule, t
    gc.collect()
    assert p.deleted == 0
    np.testing.assert_array_equal(t2.numpy(), [0, 1, 2, 3])
    del t2
    gc.collect()
    assert p.deleted == 1


def test_a_refused_tensor_stays_the_producers():
    p = Producer((2, 3), strides=(1, 2))  # column-major: not compact row-major
    capsule = p.capsule()
    with pytest.raises(ValueError, match="softmax: argument x: .*compact row-major"):
        ofl.softmax(capsule)
    assert capsule_name(capsule) == "dltensor" and p.deleted == 0
    del capsule
    gc.collect()
    assert p.deleted == 1
    with pytest.raises(ValueError, match="compact row-major"):
        ofl.softmax(np.ones((4, 4), np.float32)[:, ::2])


def test_a_device_oflite_does_not_have_is_a_clear_error():
    class Foreign:
        def __init__(self, device):
            self.device = device
            self.exported = 0

        def __dlpack_device__(self):
            return self.device

        def __dlpack__(self, stream=None):
            self.exported += 1
            raise AssertionError("must not be asked for its data")

    metal = Foreign((8, 0))
    with pytest.raises(RuntimeError, match="softmax: argument x: the Foreign is on DLPack "
                                           "device type 8, one oflite does not have"):
        ofl.softmax(metal)
    assert metal.exported == 0
    gpu = Foreign((2, ofl.cuda_device_count()))  # one past the last visible GPU
    with pytest.raises(RuntimeError, match=r"is on cuda:\d+, a device this oflite does not have"):
        ofl.ops.relu(gpu)
    assert gpu.exported == 0
    p = Producer((2,), device_type=10)  # a raw capsule of a ROCm tensor
    capsule = p.capsule()
    with pytest.raises(RuntimeError, match="device type 10"):
        ofl.from_dlpack(capsule)
    del capsule
    gc.collect()
    assert p.deleted == 1


def test_export_arguments():
    t = ofl.tensor([1.0, 2.0], dtype=np.float32)
    with pytest.raises(BufferError, match=r"dl_device \(2, 0\)"):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="copy=True"):
        t.__dlpack__(copy=True)
    capsule = t.__dlpack__(stream=None, max_version=(1, 0), dl_device=(1, 0), copy=False)
    assert capsule_name(capsule) == "dltensor"
    with pytest.raises(TypeError, match="dltensor_versioned|named"):
        ofl.from_dlpack(np.ones(2, np.float32).__dlpack__(max_version=(1, 0)))


def test_torch_cpu_without_a_copy():
    torch = pytest.importorskip("torch")
    x = torch.randn(8, 128)
    t = ofl.from_dlpack(x)
    assert t.data_ptr == x.data_ptr()
    y = ofl.softmax(x)
    np.testing.assert_allclose(y.numpy(), torch.softmax(x, -1).numpy(), rtol=1e-5, atol=1e-6)
    back = torch.from_dlpack(y)
    assert back.data_ptr() == y.data_ptr
