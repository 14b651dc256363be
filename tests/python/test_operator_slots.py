"""The CPython number slots behind + - * / unary - (python/bindings/operator_slots.cpp): they
short-cut exact Tensors and plain int/float operands and hand everything else to the bound
methods. These tests pin that both routes give the same results, errors and object identity."""
import gc
import operator
import sys
import weakref

import numpy as np
import pytest

import sampan as sp
from sampan.nn import Parameter

OPS = [operator.add, operator.sub, operator.mul, operator.truediv]


@pytest.mark.parametrize("op", OPS)
def test_slot_and_bound_method_agree(op):
    x, y = sp.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=sp.float64), sp.tensor([0.5, 4.0], dtype=sp.float64)
    dunder = {operator.add: "__add__", operator.sub: "__sub__", operator.mul: "__mul__",
              operator.truediv: "__truediv__"}[op]
    ref = op(x.numpy(), y.numpy())
    np.testing.assert_allclose(op(x, y).numpy(), ref)
    np.testing.assert_allclose(getattr(sp.Tensor, dunder)(x, y).numpy(), ref)
    # the reflected form through the slot (plain float on the left) and through the method
    np.testing.assert_allclose(op(2.0, y).numpy(), op(2.0, y.numpy()))
    np.testing.assert_allclose(getattr(sp.Tensor, "__r" + dunder[2:])(y, 2.0).numpy(), op(2.0, y.numpy()))


@pytest.mark.parametrize("op", OPS)
def test_subclass_operands_take_the_general_route(op):
    p = Parameter(sp.tensor([1.0, 2.0]))
    t = sp.tensor([4.0, 8.0])
    for r in (op(p, t), op(t, p), op(p, 2.0), op(2.0, p)):
        assert type(r) is sp.Tensor and r.requires_grad
    op(t, p).sum().backward()
    assert p.grad is not None and p.grad.shape == (2,)


def test_scalar_kinds_outside_the_short_cut_keep_their_rules():
    f32 = sp.tensor([1.0, 2.0])
    assert (f32 + True).tolist() == [2.0, 3.0] and (f32 + True).dtype is sp.float32
    assert (f32 * 1j).dtype is sp.complex64
    assert (f32 + np.float64(1)).dtype is sp.float32
    assert (np.ones(2) + f32).dtype is sp.float64  # a NumPy array is a tensor operand, not a scalar
    assert (sp.tensor([1, 2]) + 1.5).dtype is sp.float32
    with pytest.raises(TypeError):
        f32 + [1.0, 2.0]
    with pytest.raises(TypeError):
        "a" - f32


def test_errors_name_the_op():
    with pytest.raises(ValueError, match="core::add.*cannot be broadcast"):
        sp.ones([2]) + sp.ones([3])
    with pytest.raises(ValueError, match="does not fit in int64"):
        sp.ones([2], dtype=sp.int64) * 2 ** 70


def test_inplace_slots_return_the_same_object():
    x = sp.tensor([1.0, 2.0])
    ident = id(x)
    x += sp.tensor([1.0, 1.0])
    x -= 1
    x *= 4.0
    x /= 2
    assert id(x) == ident and x.tolist() == [2.0, 4.0]
    i = sp.tensor([1, 2])
    with pytest.raises(TypeError):
        i += 0.5
    leaf = sp.ones([2]).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf"):
        leaf += 1


def test_results_are_ordinary_objects():
    a = sp.tensor([1.0, 2.0])
    r = a + a
    ref = weakref.ref(r)
    assert ref() is r and r.grad_fn is None and r.is_leaf
    del r
    gc.collect()
    assert ref() is None
    # many temporaries, through the short cut and the general route: no reference to the
    # operands or to the type is leaked or lost per call
    refs = sys.getrefcount(a), sys.getrefcount(sp.Tensor)
    for _ in range(1000):
        (-a) * 2.0 - a / 3 + np.float32(1) + True
    assert (sys.getrefcount(a), sys.getrefcount(sp.Tensor)) == refs


def test_gradients_through_the_slots():
    x = sp.tensor([2.0, 3.0], requires_grad=True)
    y = -((x * x - 1.0) / (x + 1.0)) * 2  # = -2 (x - 1)
    y.sum().backward()
    assert x.grad.tolist() == [-2.0, -2.0]
