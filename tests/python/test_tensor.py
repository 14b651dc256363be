"""Tensor basics: dtype objects, attributes, creation and dtype inference, printing, Python
number protocols, pickling."""
import copy
import inspect
import pickle

import numpy as np
import pytest

import sampan as sp

ALL_DTYPES = [sp.bool, sp.int32, sp.int64, sp.float16, sp.bfloat16, sp.float32, sp.float64,
              sp.complex64, sp.complex128]


class TestDtype:
    def test_constants_are_unique_objects(self):
        x = sp.zeros(2, dtype=sp.float64)
        assert x.dtype is sp.float64
        assert sp.float32 == sp.float32 and sp.float32 != sp.float64

    @pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
    def test_compare_with_names_and_numpy(self, d):
        assert d == d.name and d == sp.dtype(d.name)
        assert hash(d) == hash(d.name)
        if d != sp.bfloat16:
            assert d == np.dtype(d.name)
        assert repr(d) == f"sampan.{d.name}" and str(d) == d.name

    def test_properties(self):
        assert sp.float64.itemsize == 8 and sp.complex64.itemsize == 8 and sp.bool.itemsize == 1
        assert sp.float32.is_floating_point and not sp.int64.is_floating_point
        assert sp.complex128.is_complex and sp.int32.is_integer
        assert sp.promote_types(sp.int64, sp.float32) == sp.float32
        assert sp.promote_types("float64", "complex64") is sp.complex128

    def test_unknown_name_is_type_error(self):
        with pytest.raises(TypeError, match="unknown dtype 'float33'"):
            sp.dtype("float33")
        assert (sp.float32 == "float33") is False

    def test_pickle_keeps_identity(self):
        assert pickle.loads(pickle.dumps(sp.complex64)) is sp.complex64


class TestCreation:
    @pytest.mark.parametrize("data, dtype", [
        (True, sp.bool), (3, sp.int64), (2.5, sp.float32), (1 + 2j, sp.complex64),
        ([[1, 2], [3, 4]], sp.int64), ([1.0, 2], sp.float32), ([True, False], sp.bool),
        (np.float64(1.5), sp.float64), (np.arange(3, dtype=np.int32), sp.int32),
        (np.ones(2, dtype=np.uint8), sp.int32), (np.ones(2, dtype=np.complex128), sp.complex128),
    ])
    def test_dtype_inference(self, data, dtype):
        t = sp.tensor(data)
        assert t.dtype is dtype
        np.testing.assert_array_equal(t.numpy(), np.asarray(data))

    @pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
    def test_explicit_dtype(self, dtype):
        t = sp.tensor([[0, 1, 2]], dtype=dtype)
        assert t.dtype is dtype and t.shape == (1, 3)
        expected = np.array([[0, 1, 2]]).astype("float32" if dtype == sp.bfloat16 else dtype.name)
        np.testing.assert_array_equal(t.numpy(), expected)

    def test_tensor_copies(self):
        a = np.arange(4.0)
        t = sp.tensor(a)
        a[0] = 10
        assert t[0].item() == 0.0
        u = sp.tensor(t)
        assert not u.shares_storage(t)

    def test_requires_grad_flag(self):
        t = sp.tensor([1.0, 2.0], requires_grad=True)
        assert t.requires_grad and t.is_leaf and t.grad is None
        with pytest.raises(TypeError, match="only floating point and complex"):
            sp.tensor([1, 2], requires_grad=True)

    def test_ragged_is_value_error(self):
        with pytest.raises(ValueError, match="ragged"):
            sp.tensor([[1, 2], [3]])

    def test_filled(self):
        assert sp.zeros(2, 3).shape == (2, 3) and sp.zeros((2, 3)).dtype is sp.float32
        np.testing.assert_array_equal(sp.ones([2], dtype="int64").numpy(), [1, 1])
        assert sp.full((2,), 7).dtype is sp.int64 and sp.full((2,), 0.5).dtype is sp.float32
        np.testing.assert_array_equal(sp.full((2,), 1 + 2j).numpy(), [1 + 2j, 1 + 2j])
        assert sp.zeros_like(sp.ones(3, dtype=sp.float64)).dtype is sp.float64
        np.testing.assert_array_equal(sp.arange(4).numpy(), [0, 1, 2, 3])
        np.testing.assert_allclose(sp.arange(0, 1, 0.25).numpy(), [0, 0.25, 0.5, 0.75])
        assert sp.arange(3).dtype is sp.int64 and sp.arange(0.0, 2.0).dtype is sp.float32


class TestAttributes:
    def test_layout(self):
        t = sp.zeros(2, 3, 4)
        assert t.shape == (2, 3, 4) and t.ndim == 3 and t.dim() == 3 and t.numel() == 24
        assert t.strides == (12, 4, 1) and t.is_contiguous() and t.device == "cpu"
        assert t.size() == (2, 3, 4) and t.size(-1) == 4 and t.itemsize == 4 and t.nbytes == 96
        p = t.permute(2, 0, 1)
        assert p.shape == (4, 2, 3) and p.strides == (1, 12, 4) and not p.is_contiguous()
        assert p.shares_storage(t) and p.contiguous().is_contiguous()

    def test_item_types(self):
        assert sp.tensor(True).item() is True
        assert type(sp.tensor(3).item()) is int and sp.tensor(3).item() == 3
        assert type(sp.tensor(2.5).item()) is float
        assert sp.tensor(1 + 2j).item() == 1 + 2j
        assert sp.tensor([1.5], dtype=sp.bfloat16).item() == 1.5
        with pytest.raises(ValueError, match="exactly one element"):
            sp.zeros(2).item()

    def test_number_protocols(self):
        assert float(sp.tensor(2.5)) == 2.5 and int(sp.tensor(3.7)) == 3
        assert complex(sp.tensor(1j)) == 1j and bool(sp.tensor([1]))
        assert [10, 20, 30][sp.tensor(1)] == 20
        with pytest.raises(ValueError, match="ambiguous"):
            bool(sp.zeros(2))
        with pytest.raises(TypeError):
            [1, 2][sp.tensor(1.0)]
        assert f"{sp.tensor(3.14159):.2f}" == "3.14"

    def test_len_and_iter(self):
        t = sp.tensor([[1, 2], [3, 4], [5, 6]])
        assert len(t) == 3
        assert [row.tolist() for row in t] == [[1, 2], [3, 4], [5, 6]]
        with pytest.raises(TypeError, match="0-d"):
            len(sp.tensor(1))
        with pytest.raises(TypeError, match="0-d"):
            iter(sp.tensor(1)).__next__()

    def test_conversions(self):
        t = sp.tensor([1.7, -2.2])
        assert t.double().dtype is sp.float64 and t.long().tolist() == [1, -2]
        assert t.to("float64").dtype is sp.float64 and t.to(sp.float32) is t
        assert t.to("cpu") is t and t.to(dtype=sp.int32).dtype is sp.int32
        assert t.to(sp.float32, copy=True) is not t
        if not sp.cuda.is_available():  # the GPU side: test_cuda.py
            with pytest.raises(NotImplementedError if not sp.cuda.built() else RuntimeError, match="cuda"):
                t.to("cuda")

    def test_T_and_mT(self):
        t = sp.zeros(2, 3, 4)
        assert t.T.shape == (4, 3, 2) and t.mT.shape == (2, 4, 3)


class TestRepr:
    def test_like_numpy_with_dtype(self):
        t = sp.tensor([[1.0, 2.0], [3.0, 4.5]])
        assert repr(t) == "tensor([[1. , 2. ],\n        [3. , 4.5]], dtype=float32)"
        assert repr(sp.tensor(3)) == "tensor(3, dtype=int64)"

    def test_autograd_state(self):
        t = sp.tensor([1.0], requires_grad=True)
        assert repr(t).endswith("dtype=float32, requires_grad=True)")
        assert repr(t * 2).endswith("grad_fn=<core::mul>)")

    def test_empty_and_bfloat16(self):
        assert repr(sp.zeros(0, 3)) == "tensor([], shape=(0, 3), dtype=float32)"
        assert repr(sp.tensor([1.0], dtype=sp.bfloat16)) == "tensor([1.], dtype=bfloat16)"

    def test_large_is_summarised(self):
        assert "..." in repr(sp.zeros(5000))


class TestPickleAndCopy:
    @pytest.mark.parametrize("dtype", [sp.float32, sp.int64, sp.complex128, sp.bfloat16], ids=str)
    def test_roundtrip(self, dtype):
        t = sp.tensor([[1, 2], [3, 4]], dtype=dtype)
        u = pickle.loads(pickle.dumps(t))
        assert u.dtype is dtype and u.tolist() == t.tolist()

    def test_deepcopy_is_independent(self):
        t = sp.tensor([1.0, 2.0], requires_grad=True)
        u = copy.deepcopy(t)
        assert u.requires_grad and not u.shares_storage(t)


def test_version_and_threads():
    assert isinstance(sp.__version__, str) and sp.__version__.count(".") == 2
    n = sp.get_num_threads()
    assert n >= 1
    sp.set_num_threads(1)
    assert sp.get_num_threads() == 1
    sp.set_num_threads(n)
    with pytest.raises(ValueError, match="positive"):
        sp.set_num_threads(0)


def test_namespaces():
    import sampan.ops
    import sampan.testing
    import sampan.utils
    assert sampan.ops is sp.ops and inspect.ismodule(sp.ops.core)


def test_real_and_imag_properties():
    z = sp.tensor([1 + 2j, 3 - 4j], dtype=sp.complex128)
    assert z.real.tolist() == [1.0, 3.0] and z.real.dtype is sp.float64
    if sp._C.has_op("core::imag"):
        assert z.imag.tolist() == [2.0, -4.0]


def test_where_is_not_a_method():
    assert not hasattr(sp.Tensor, "where") or sp.Tensor.where.__sampan_op__ != "core::where"
