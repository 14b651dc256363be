"""Registered ops called from Python against NumPy: random values, broadcasting, dtypes and
non-contiguous inputs. Each test names its op; an op that is not registered (or has another
signature than the one tested) fails the test: the README lists these ops."""
import math

import numpy as np
import pytest

import sampan as sp
from conftest import as_layout, random_array, tolerance

LAYOUTS = ["contiguous", "transposed", "strided"]
FLOATS = ["float32", "float64"]


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


# op -> (NumPy reference, (low, high) of the inputs, dtypes)
UNARY = {
    "neg": (np.negative, (-2, 2), FLOATS + ["int64", "complex128"]),
    "exp": (np.exp, (-2, 2), FLOATS + ["complex64", "complex128"]),
    "log": (np.log, (0.1, 3), FLOATS),
    "sqrt": (np.sqrt, (0.1, 3), FLOATS),
    "sin": (np.sin, (-3, 3), FLOATS),
    "cos": (np.cos, (-3, 3), FLOATS),
    "tan": (np.tan, (-1, 1), FLOATS),
    "tanh": (np.tanh, (-3, 3), FLOATS),
    "abs": (np.abs, (-2, 2), FLOATS + ["int64"]),
    "log1p": (np.log1p, (-0.5, 2), FLOATS),
    "expm1": (np.expm1, (-2, 2), FLOATS),
    "square": (np.square, (-2, 2), FLOATS + ["int64"]),
    "reciprocal": (np.reciprocal, (0.5, 2), FLOATS),
    "floor": (np.floor, (-3, 3), FLOATS),
    "ceil": (np.ceil, (-3, 3), FLOATS),
    "sign": (np.sign, (-2, 2), FLOATS),
    "sigmoid": (_sigmoid, (-3, 3), FLOATS),
    "relu": (lambda a: np.maximum(a, 0), (-2, 2), FLOATS),
    "erf": (np.vectorize(math.erf), (-2, 2), ["float64"]),
    "real": (np.real, (-2, 2), ["complex128"]),
    "conj": (np.conj, (-2, 2), ["complex128"]),
}

BINARY = {
    "add": (np.add, (-2, 2), FLOATS + ["int64", "complex128"]),
    "sub": (np.subtract, (-2, 2), FLOATS + ["int64", "complex128"]),
    "mul": (np.multiply, (-2, 2), FLOATS + ["int64", "complex64"]),
    "div": (np.true_divide, (0.5, 2), FLOATS + ["complex128"]),
    "maximum": (np.maximum, (-2, 2), FLOATS + ["int64"]),
    "minimum": (np.minimum, (-2, 2), FLOATS + ["int64"]),
    "pow": (np.power, (0.5, 2), FLOATS),
    "atan2": (np.arctan2, (-2, 2), FLOATS),
    "eq": (np.equal, (-2, 2), ["int64"]),
    "ne": (np.not_equal, (-2, 2), ["int64"]),
    "lt": (np.less, (-2, 2), FLOATS + ["int64"]),
    "le": (np.less_equal, (-2, 2), ["int64"]),
    "gt": (np.greater, (-2, 2), FLOATS),
    "ge": (np.greater_equal, (-2, 2), ["int64"]),
}

BROADCAST_SHAPES = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)),
                    ((0, 3), (1, 3)), ((5,), ())]


def _check(result, expected, dtype):
    assert isinstance(result, sp.Tensor)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    got = result.numpy()
    if expected.dtype == np.bool_:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, **tolerance(dtype))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, layout, rng):
    ref, (low, high), dtypes = UNARY[name]
    for dtype in dtypes:
        a = random_array(rng, (3, 4), dtype, low, high)
        x = as_layout(a, layout)
        fn = getattr(sp.ops.core, name)
        expected = ref(a)
        _check(fn(x), expected, dtype)
        if hasattr(sp, name):  # also at top level and as a method
            _check(getattr(sp, name)(x), expected, dtype)
        attr = getattr(x, name)  # x.real is a property, as in NumPy
        _check(attr if name in ("real", "imag") else attr(), expected, dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcasting(name, shapes, layout, rng):
    ref, (low, high), dtypes = BINARY[name]
    for dtype in dtypes:
        a = random_array(rng, shapes[0], dtype, low, high)
        b = random_array(rng, shapes[1], dtype, low, high)
        x, y = as_layout(a, layout), as_layout(b, layout)
        _check(getattr(sp.ops.core, name)(x, y), ref(a, b), dtype)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_binary_mixed_dtypes_promote(name, rng):
    ref = BINARY[name][0]
    for da, db in [("int64", "float32"), ("float32", "float64"), ("float64", "complex64"),
                   ("int32", "int64"), ("bool", "int64")]:
        a = random_array(rng, (2, 3), da, 0.5, 2)
        b = random_array(rng, (3,), db, 0.5, 2)
        if name == "div" and np.dtype(db).kind in "biu":
            b = np.where(b == 0, 1, b).astype(db)
        got = getattr(sp, name)(sp.tensor(a), sp.tensor(b))
        expected = ref(a, b)
        assert got.dtype == sp.promote_types(da, db) or name == "div"
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)


REDUCTIONS = {
    "sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min, "mean": np.mean,
    "logsumexp": lambda a, axis, keepdims: np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims)),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("axes", [(), (0,), (1,), (-1,), (0, 2)], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name, axes, keepdim, layout, rng):
    if name == "mean":
        fn = sp.mean  # a registered op when there is one, else sum / count
    else:
        fn = getattr(sp.ops.core, name)
        assert fn.schema["arg_kinds"] == ["Tensor", "List[int]", "bool"], fn.schema["signature"]
    for dtype in FLOATS:
        a = random_array(rng, (3, 4, 5), dtype, 0.5, 1.5)
        x = as_layout(a, layout)
        expected = REDUCTIONS[name](a, axis=axes or None, keepdims=keepdim)
        _check(fn(x, axes, keepdim), np.asarray(expected), dtype)
        _check(getattr(x, name)(axes, keepdim), np.asarray(expected), dtype)


def test_sum_of_integers_is_int64():
    assert sp.tensor([1, 2, 3], dtype=sp.int32).sum().dtype is sp.int64
    assert sp.tensor([True, True]).sum().item() == 2


def test_shape_ops(rng):
    a = random_array(rng, (2, 3, 4), "float64")
    for layout in LAYOUTS:
        x = as_layout(a, layout)
        np.testing.assert_array_equal(x.reshape(4, 6).numpy(), a.reshape(4, 6))
        np.testing.assert_array_equal(x.reshape((-1,)).numpy(), a.reshape(-1))
        np.testing.assert_array_equal(sp.reshape(x, [3, 8]).numpy(), a.reshape(3, 8))
        np.testing.assert_array_equal(x.permute(2, 0, 1).numpy(), a.transpose(2, 0, 1))
        np.testing.assert_array_equal(sp.permute(x, (1, 2, 0)).numpy(), a.transpose(1, 2, 0))
        np.testing.assert_array_equal(sp.transpose(x, 0, 2).numpy(), a.swapaxes(0, 2))
        np.testing.assert_array_equal(x.transpose(1, 2).numpy(), a.swapaxes(1, 2))
        np.testing.assert_array_equal(x.T.numpy(), a.T)
        np.testing.assert_array_equal(sp.flatten(x, 1).numpy(), a.reshape(2, 12))
        np.testing.assert_array_equal(sp.flip(x, [0, 2]).numpy(), a[::-1, :, ::-1])
        np.testing.assert_array_equal(x.broadcast_to(3, 2, 3, 4).numpy(), np.broadcast_to(a, (3, 2, 3, 4)))
        np.testing.assert_array_equal(sp.narrow(x, 2, 1, 2).numpy(), a[:, :, 1:3])
    x = sp.zeros(1, 3, 1)
    assert x.squeeze().shape == (3,) and x.squeeze(0).shape == (3, 1) and x.unsqueeze(1).shape == (1, 1, 3, 1)


def test_views_share_storage():
    x = sp.zeros(2, 3)
    for view in (x.reshape(6), x.permute(1, 0), x.T, x[1], x[:, 1:], x.unsqueeze(0)):
        assert view.shares_storage(x)


def test_concat_and_stack(rng):
    a, b = random_array(rng, (2, 3), "float32"), random_array(rng, (1, 3), "float32")
    np.testing.assert_array_equal(sp.concat([sp.tensor(a), sp.tensor(b)], 0).numpy(), np.concatenate([a, b]))
    np.testing.assert_array_equal(sp.stack([sp.tensor(a), sp.tensor(a)], 1).numpy(), np.stack([a, a], 1))


def test_where_and_clamp(rng):
    a = random_array(rng, (3, 4), "float64")
    cond = a > 0
    got = sp.where(sp.tensor(cond), sp.tensor(a), sp.tensor(-a))
    np.testing.assert_array_equal(got.numpy(), np.where(cond, a, -a))
    np.testing.assert_array_equal(sp.clamp(sp.tensor(a), -0.5, 0.5).numpy(), np.clip(a, -0.5, 0.5))


def test_matmul(rng):
    for sa, sb in [((3, 4), (4, 5)), ((2, 3, 4), (4, 2)), ((4,), (4, 3)), ((2, 1, 3, 4), (5, 4, 2))]:
        a, b = random_array(rng, sa, "float64"), random_array(rng, sb, "float64")
        np.testing.assert_allclose((sp.tensor(a) @ sp.tensor(b)).numpy(), a @ b, rtol=1e-12)
        np.testing.assert_allclose(sp.matmul(sp.tensor(a), sp.tensor(b)).numpy(), a @ b, rtol=1e-12)
