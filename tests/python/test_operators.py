"""Python operators on tensors: arithmetic with tensors, Python and NumPy scalars (reflected
too), in-place forms, comparisons and the rest mapped to registered ops."""
import operator

import numpy as np
import pytest

import sampan as sp


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv])
def test_arithmetic(op, rng):
    a = rng.uniform(0.5, 2, size=(3, 4))
    b = rng.uniform(0.5, 2, size=(4,))
    x, y = sp.tensor(a, dtype=sp.float64), sp.tensor(b, dtype=sp.float64)
    np.testing.assert_allclose(op(x, y).numpy(), op(a, b))
    np.testing.assert_allclose(op(x, 2.5).numpy(), op(a, 2.5))
    np.testing.assert_allclose(op(2.5, x).numpy(), op(2.5, a))
    np.testing.assert_allclose(op(x, np.float64(3)).numpy(), op(a, 3.0))
    np.testing.assert_allclose(op(3, x).numpy(), op(3, a))


def test_scalar_keeps_dtype_class():
    f32 = sp.tensor([1.0, 2.0])
    assert (f32 + 1).dtype is sp.float32 and (2 - f32).dtype is sp.float32
    assert (f32 * 2.5).dtype is sp.float32 and (f32 * np.float64(2)).dtype is sp.float32
    i64 = sp.tensor([1, 2])
    assert (i64 + 1).dtype is sp.int64 and (i64 * 0.5).dtype is sp.float32
    assert (i64 / 2).dtype is sp.float32 and (i64 / 2).tolist() == [0.5, 1.0]
    assert (f32 + 1j).dtype is sp.complex64
    assert (2 - sp.tensor([1, 2])).tolist() == [1, 0]


def test_negation():
    assert (-sp.tensor([1.0, -2.0])).tolist() == [-1.0, 2.0]
    assert (+sp.tensor([1.0])).tolist() == [1.0]


def test_inplace_keeps_the_object_and_storage():
    x = sp.tensor([1.0, 2.0])
    alias, ptr = x, x.data_ptr()
    x += 1
    x *= sp.tensor([2.0, 3.0])
    x -= 0.5
    x /= 2
    assert x is alias and x.data_ptr() == ptr
    assert x.tolist() == [1.75, 4.25]


def test_inplace_cannot_change_dtype():
    x = sp.tensor([1, 2])
    with pytest.raises(TypeError, match="float32"):
        x += 0.5


def test_inplace_on_leaf_requiring_grad_is_refused():
    x = sp.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x += 1
    with sp.no_grad():
        x += 1
    assert x.tolist() == [2.0]


def test_unsupported_operand_is_type_error():
    with pytest.raises(TypeError):
        sp.tensor([1.0]) + "a"
    with pytest.raises(TypeError):
        sp.tensor([1.0]) * object()


COMPARISONS = [("__eq__", np.equal, "core::eq"), ("__ne__", np.not_equal, "core::ne"),
               ("__lt__", np.less, "core::lt"), ("__le__", np.less_equal, "core::le"),
               ("__gt__", np.greater, "core::gt"), ("__ge__", np.greater_equal, "core::ge")]


@pytest.mark.parametrize("dunder, ref, op_name", COMPARISONS, ids=[c[0] for c in COMPARISONS])
def test_comparisons(dunder, ref, op_name):
    a = np.array([[1, 2, 3], [3, 2, 1]])
    x = sp.tensor(a)
    got = getattr(x, dunder)(sp.tensor([2, 2, 2]))
    assert got.dtype is sp.bool
    np.testing.assert_array_equal(got.numpy(), ref(a, [2, 2, 2]))
    np.testing.assert_array_equal(getattr(x, dunder)(2).numpy(), ref(a, 2))
    np.testing.assert_array_equal(ref(2, x.numpy()), ref(2, a))


def test_reflected_comparison_with_scalar_on_left():
    x = sp.tensor([1, 2, 3])
    assert (2 < x).tolist() == [False, False, True]
    assert (x == None) is False  # noqa: E711 (not a tensor operand: identity)


def test_tensor_stays_hashable_with_eq():
    x = sp.tensor([1.0])
    assert {x: 1}[x] == 1


@pytest.mark.parametrize("op_name, fn, ref", [
    ("core::pow", lambda x, y: x ** y, lambda a, b: a ** b),
    ("core::remainder", lambda x, y: x % y, lambda a, b: a % b),
    ("core::floor_divide", lambda x, y: x // y, lambda a, b: a // b),
])
def test_other_binary_operators(op_name, fn, ref):
    a, b = np.array([1.5, -2.5, 3.0]), np.array([2.0, 1.5, -2.0])
    if op_name == "core::pow":
        a = np.abs(a)  # a negative base with a fractional exponent is NaN
    x, y = sp.tensor(a, dtype=sp.float64), sp.tensor(b, dtype=sp.float64)
    np.testing.assert_allclose(fn(x, y).numpy(), ref(a, b))
    np.testing.assert_allclose(fn(x, 2.0).numpy(), ref(a, 2.0))
    np.testing.assert_allclose(fn(3.0, y).numpy(), ref(3.0, b))


def test_pow_inplace_and_abs():
    x = sp.tensor([-2.0, 3.0])
    assert abs(x).tolist() == [2.0, 3.0]
    assert (x ** 2).tolist() == [4.0, 9.0] and (2 ** sp.tensor([3.0])).tolist() == [8.0]
    x **= 2
    assert x.tolist() == [4.0, 9.0]


def test_logical_operators_on_bool():
    a, b = sp.tensor([True, False, True]), sp.tensor([True, True, False])
    assert (a & b).tolist() == [True, False, False]
    assert (a | b).tolist() == [True, True, True]
    assert (a ^ b).tolist() == [False, True, True]
    assert (~a).tolist() == [False, True, False]
    if not sp._C.has_op("core::bitwise_and"):
        with pytest.raises(TypeError, match="bool"):
            sp.tensor([1, 2]) & sp.tensor([3, 1])


def test_matmul_operator():
    a = np.arange(6.0).reshape(2, 3)
    x = sp.tensor(a, dtype=sp.float64)
    np.testing.assert_allclose((x @ x.T).numpy(), a @ a.T)
    np.testing.assert_allclose((a @ x.T).numpy(), a @ a.T)


def test_missing_operators_are_reported():
    missing = sp._operators.missing()
    for dunder, candidates in missing.items():
        assert not any(sp._C.has_op(c) for c in candidates), dunder
