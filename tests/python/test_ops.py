# Calls from Python against NumPy references on the CPU: the functional softmax, every op by
# name with attributes, outputs as ofl.Tensor, and each error kind as its Python exception.
import numpy as np
import pytest

import oneflow_lite as ofl


def np_softmax(x, dim):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("dim", [-1, 0, 1, 2])
def test_softmax_over_any_dim(rng, dtype, tol, dim):
    x = rng.standard_normal((3, 5, 7)).astype(dtype)
    y = ofl.softmax(x, dim=dim)
    assert isinstance(y, ofl.Tensor)
    assert y.shape == (3, 5, 7) and y.dtype == np.dtype(dtype).name and y.device == "cpu"
    np.testing.assert_allclose(y.numpy(), np_softmax(x, dim), rtol=tol, atol=tol)
    np.testing.assert_allclose(ofl.log_softmax(x, dim).numpy(), np.log(np_softmax(x, dim)),
                               rtol=10 * tol, atol=10 * tol)


def test_softmax_default_dim_is_the_last(rng):
    x = rng.standard_normal((8, 128)).astype(np.float32)
    np.testing.assert_allclose(ofl.softmax(x).numpy(), np_softmax(x, -1), rtol=1e-5, atol=1e-6)


def test_outputs_feed_later_calls(rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    b = rng.standard_normal((6, 5)).astype(np.float32)
    c = ofl.ops.matmul(a, b)
    assert c.shape == (4, 5)
    np.testing.assert_allclose(c.numpy(), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    d = ofl.ops.add(c, c)  # ofl.Tensor inputs
    np.testing.assert_allclose(d.numpy(), 2 * (a.astype(np.float64) @ b), rtol=1e-5, atol=1e-5)
    e = ofl.ops.mul(d, np.full((1, 5), 0.5, np.float32))  # mixed inputs, broadcasting
    np.testing.assert_allclose(e.numpy(), c.numpy(), rtol=1e-6)


def test_attributes_by_keyword_and_position(rng):
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(ofl.ops.transpose(x, perm=[2, 0, 1]).numpy(),
                                  x.transpose(2, 0, 1))
    np.testing.assert_array_equal(ofl.ops.transpose(x, (1, 0, 2)).numpy(), x.transpose(1, 0, 2))
    np.testing.assert_array_equal(ofl.ops.transpose(x, perm=np.array([0, 2, 1])[::-1].tolist())
                                  .numpy(), x.transpose(1, 2, 0))
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(ofl.ops.matmul(a, b, transpose_a=True, alpha=2).numpy(),
                               2 * (a.T.astype(np.float64) @ b), rtol=1e-5, atol=1e-5)
    v = np.array([-2.0, 3.0], np.float32)
    np.testing.assert_allclose(ofl.ops.leaky_relu(v, alpha=0.5).numpy(), [-1.0, 3.0])
    np.testing.assert_allclose(ofl.ops.leaky_relu(v).numpy(), [-0.02, 3.0], rtol=1e-6)
    for dtype in ("int32", np.int32, np.dtype("int32")):
        y = ofl.ops.cast(np.array([1.7, -2.2], np.float32), dtype=dtype)
        assert y.dtype == "int32"
        np.testing.assert_array_equal(y.numpy(), [1, -2])


def test_every_registered_op_is_reachable():
    names = ofl.list_ops()
    assert "softmax" in names and "matmul" in names and names == sorted(names)
    for name in names:
        op = ofl.ops[name]
        assert isinstance(op, ofl.Op) and op.name == name
        assert op.signature.startswith(name + "(")
    assert ofl.ops.softmax is ofl.ops.softmax  # looked up once
    assert "transpose" in dir(ofl.ops)
    assert ofl.ops.transpose.inputs == ["x"]
    assert ofl.ops.transpose.attrs == [("perm", "list[int]", False)]
    assert ofl.ops.matmul.attrs[0] == ("transpose_a", "bool", True)
    with pytest.raises(AttributeError, match="no op 'no_such_op'"):
        ofl.ops.no_such_op


def test_errors_raise_by_kind_with_the_library_message(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    with pytest.raises(IndexError, match=r"softmax: dim 2 is out of range for a tensor of rank 2"):
        ofl.softmax(x, dim=2)
    with pytest.raises(TypeError, match="floating dtype"):
        ofl.softmax(np.arange(6, dtype=np.int32))
    with pytest.raises(NotImplementedError, match="no kernel for device cpu"):
        ofl.ops.softmax(np.arange(6, dtype=np.int32))
    with pytest.raises(ValueError, match="perm"):
        ofl.ops.transpose(x)  # a required attribute missing
    with pytest.raises(ValueError, match="matmul"):
        ofl.ops.matmul(x, x)
    with pytest.raises(MemoryError):  # a petabyte output
        ofl.ops.matmul(np.ones((1 << 24, 1), np.float32), np.ones((1, 1 << 24), np.float32))
    if ofl.cuda_device_count() == 0:
        with pytest.raises(RuntimeError, match="cuda"):
            ofl.tensor(x, device="cuda:0")


def test_bad_python_arguments_name_the_argument():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match=r"softmax: argument x: expected an ofl.Tensor or an "
                                        r"array with __dlpack__.*got list"):
        ofl.softmax([1.0, 2.0])
    with pytest.raises(TypeError, match=r"add: argument y: .*got float"):
        ofl.ops.add(x, 2.0)
    with pytest.raises(TypeError, match=r"transpose: attribute 'perm' takes list\[int\], "
                                        r"got '1,0' \(str\)"):
        ofl.ops.transpose(x, perm="1,0")
    with pytest.raises(TypeError, match=r"matmul: attribute 'transpose_a' takes bool, got 1"):
        ofl.ops.matmul(x, x, transpose_a=1)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'dim' \(attributes: perm\)"):
        ofl.ops.transpose(x, dim=1)
    with pytest.raises(TypeError, match=r"add\(\) takes 2 tensor inputs \(x, y\), got 1"):
        ofl.ops.add(x)
    with pytest.raises(TypeError, match=r"takes 1 inputs and 1 attributes, got 3"):
        ofl.ops.transpose(x, [1, 0], [0, 1])
    with pytest.raises(TypeError, match=r"cast: attribute 'dtype' takes dtype .*'complex64'"):
        ofl.ops.cast(x, dtype="complex64")
    with pytest.raises(TypeError):
        ofl.softmax(x, dim="0")
    with pytest.raises(OverflowError):
        ofl.ops.transpose(x, perm=[1 << 70, 0])
    v = np.array([-2.0, 3.0], np.float32)
    with pytest.raises(TypeError, match=r"leaky_relu\(\) got multiple values for argument 'alpha'"):
        ofl.ops.leaky_relu(v, 0.5, alpha=0.01)
    with pytest.raises(ValueError, match=r"gelu: attribute 'approximate' holds an embedded null "
                                         r"character at offset 4"):
        ofl.ops.gelu(v, approximate="tanh\x00garbage")
    with pytest.raises(UnicodeEncodeError):  # Python's own error, not a null pointer's
        ofl.ops.gelu(v, approximate="\udc80")
    # Strings for the C API are not cut at a NUL: "cpu\0tpu" is no device, not "cpu".
    with pytest.raises(ValueError, match=r"ofl.Tensor.to: device holds an embedded null"):
        ofl.tensor(v).to("cpu\x00tpu")
    with pytest.raises(ValueError, match=r"ofl.tensor: device holds an embedded null"):
        ofl.tensor(v, device="cpu\x00")
    with pytest.raises(ValueError, match=r"load_op_library: path holds an embedded null"):
        ofl.load_op_library("/tmp/x\x00.so")
    with pytest.raises(ValueError, match=r"allocator_stats: device holds an embedded null"):
        ofl.allocator_stats("cpu\x00")


def test_empty_arrays_are_inputs_as_they_are(rng):
    for shape in [(0,), (2, 0), (0, 3), (4, 0, 5)]:
        empty = np.zeros(shape, np.float32)  # NumPy gives these zero strides
        assert ofl.from_dlpack(empty).shape == shape
        assert ofl.ops.relu(empty).shape == shape
        assert ofl.softmax(empty, dim=-1).shape == shape


def test_tensor_copies_and_moves():
    data = [[1, 2], [3, 4]]
    t = ofl.tensor(data, dtype=np.float32)
    assert t.shape == (2, 2) and t.dtype == "float32" and t.ndim == 2
    np.testing.assert_array_equal(t.numpy(), data)
    assert repr(t) == "ofl.Tensor(shape=(2, 2), dtype=float32, device=cpu)"
    assert t.to("cpu").data_ptr == t.data_ptr  # already there: no copy
    np.testing.assert_array_equal(np.asarray(t), data)
    assert ofl.tensor(np.float64(2.5)).shape == ()
    for dtype in (">f4", ">i8", ">f8", "<f4"):  # either byte order, read as the values it holds
        values = np.array([1.5, -2.0, 3.0]).astype(dtype)
        np.testing.assert_array_equal(ofl.tensor(values).numpy(), values)
    big = np.array([1.0, 2.0, 3.0], ">f4")
    np.testing.assert_allclose(ofl.softmax(ofl.tensor(big)).numpy(), np_softmax(big, -1),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="tpu"):
        t.to("tpu")
