"""Zero-copy NumPy interop in both directions, for every dtype NumPy has."""
import gc
import sys

import numpy as np
import pytest

import sampan as sp

SHARED = ["bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", SHARED)
def test_from_numpy_shares_memory(name):
    a = np.zeros((2, 3), dtype=name)
    t = sp.from_numpy(a)
    assert t.dtype == name and t.shape == (2, 3) and t.strides == (3, 1)
    a[1, 2] = 1
    assert t[1, 2].item() == 1
    t.numpy()[0, 0] = 1
    assert a[0, 0] == 1


@pytest.mark.parametrize("name", SHARED)
def test_numpy_view_shares_memory(name):
    t = sp.zeros(3, dtype=name)
    v = t.numpy()
    assert v.dtype == np.dtype(name) and v.flags.writeable
    v[1] = 1
    assert t.tolist()[1] == 1
    assert np.asarray(t).__array_interface__["data"][0] == t.data_ptr()


def test_numpy_view_keeps_tensor_alive():
    v = sp.arange(5).numpy()
    gc.collect()
    np.testing.assert_array_equal(v, [0, 1, 2, 3, 4])
    base = v.base
    assert base is not None


def test_tensor_keeps_array_alive():
    a = np.arange(6.0)
    refs = sys.getrefcount(a)
    t = sp.from_numpy(a)
    assert sys.getrefcount(a) > refs  # the buffer export holds the array
    del a
    gc.collect()
    np.testing.assert_array_equal(t.numpy(), np.arange(6.0))


def test_release_drops_the_reference():
    a = np.arange(6.0)
    refs = sys.getrefcount(a)
    t = sp.from_numpy(a)
    view = t[1:]
    del t
    assert sys.getrefcount(a) > refs  # a view of the storage still holds it
    del view
    gc.collect()
    assert sys.getrefcount(a) == refs


@pytest.mark.parametrize("make", [
    lambda a: a[:, ::2], lambda a: a.T, lambda a: a[::-1], lambda a: a[:, ::-2], lambda a: a[1:, 2],
], ids=["step", "transposed", "reversed", "reversed-step", "column"])
def test_from_numpy_strided_views_share(make):
    base = np.arange(24.0).reshape(4, 6)
    a = make(base)
    t = sp.from_numpy(a)
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal((t * 1).numpy(), a)  # kernels read the layout right
    a[...] = -1
    assert (t.numpy() == -1).all()


def test_from_numpy_rejects_what_it_cannot_share():
    with pytest.raises(TypeError, match="uint8"):
        sp.from_numpy(np.zeros(2, dtype=np.uint8))
    with pytest.raises(TypeError, match="byte order"):
        sp.from_numpy(np.zeros(2, dtype=">f8"))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        sp.from_numpy([1, 2])
    rec = np.zeros(3, dtype=[("a", "f8"), ("b", "i1")])
    with pytest.raises(ValueError, match="not a multiple of the item size"):
        sp.from_numpy(rec["a"])


def test_non_contiguous_tensor_to_numpy():
    t = sp.arange(12).reshape(3, 4)
    v = t[:, ::-1].numpy()
    np.testing.assert_array_equal(v, np.arange(12).reshape(3, 4)[:, ::-1])
    assert v.base is not None  # a view, not a copy
    v[0, 0] = 100
    assert t[0, 3].item() == 100


def test_broadcast_view_is_read_only():
    t = sp.tensor([1.0, 2.0]).broadcast_to((3, 2))
    v = t.numpy()
    assert not v.flags.writeable
    np.testing.assert_array_equal(v, [[1, 2]] * 3)


def test_bfloat16_gives_float32_copy():
    t = sp.tensor([1.5, 2.0], dtype=sp.bfloat16)
    v = t.numpy()
    assert v.dtype == np.float32
    np.testing.assert_array_equal(v, [1.5, 2.0])


def test_array_protocol():
    t = sp.tensor([[1, 2], [3, 4]], dtype=sp.float64)
    np.testing.assert_array_equal(np.asarray(t), [[1, 2], [3, 4]])
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    assert np.array(t, copy=True).base is None or not np.shares_memory(np.array(t, copy=True), t.numpy())
    assert np.exp(t).dtype == np.float64  # NumPy functions take tensors


def test_ndarray_operands_defer_to_tensor():
    t = sp.tensor([1.0, 2.0])
    r = np.array([10.0, 20.0]) + t
    assert isinstance(r, sp.Tensor) and r.tolist() == [11.0, 22.0]
    r = t * np.array([2.0, 3.0])
    assert isinstance(r, sp.Tensor) and r.tolist() == [2.0, 6.0]


def test_memoryview_format():
    m = memoryview(sp.zeros(2, 3, dtype=sp.complex64))
    assert m.format == "Zf" and m.shape == (2, 3) and m.itemsize == 8
