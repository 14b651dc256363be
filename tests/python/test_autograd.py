"""Autograd from Python: backward, grad (create_graph for double backward), hooks, retain_grad,
no_grad / enable_grad, errors."""
import numpy as np
import pytest

import sampan as sp


def test_backward_product_rule():
    x = sp.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = sp.tensor([4.0, 5.0, 6.0], requires_grad=True)
    (x * y + x).sum().backward()
    assert x.grad.tolist() == [5.0, 6.0, 7.0] and y.grad.tolist() == [1.0, 2.0, 3.0]
    assert x.grad.requires_grad is False


def test_gradients_accumulate_and_reset():
    x = sp.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    x.grad = None
    assert x.grad is None


def test_backward_with_gradient():
    x = sp.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * x
    y.backward(sp.tensor([[1.0, 0.0], [0.0, 1.0]]))
    assert x.grad.tolist() == [[2.0, 0.0], [0.0, 8.0]]
    with pytest.raises(RuntimeError, match="one element"):
        (x * x).backward()


def test_broadcast_gradient_sums_back():
    x = sp.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = sp.tensor([[1.0], [2.0]], requires_grad=True)
    (x * b).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0] and b.grad.tolist() == [[6.0], [6.0]]


def test_grad_function():
    x = sp.tensor([0.5, 1.0], dtype=sp.float64, requires_grad=True)
    y = sp.exp(x).sum()
    (g,) = sp.grad(y, x)
    np.testing.assert_allclose(g.numpy(), np.exp([0.5, 1.0]))
    assert x.grad is None and not g.requires_grad


def test_grad_sequences_and_grad_outputs():
    x = sp.tensor([1.0, 2.0], requires_grad=True)
    z = sp.tensor([3.0], requires_grad=True)
    y1, y2 = x * x, (z * x).sum()
    gx, gz = sp.grad([y1, y2], [x, z], grad_outputs=[sp.tensor([1.0, 1.0]), None])
    assert gx.tolist() == [2 * 1 + 3, 2 * 2 + 3] and gz.tolist() == [3.0]


def test_double_backward():
    x = sp.tensor([0.3, 0.7], dtype=sp.float64, requires_grad=True)
    y = (x * x * x).sum()
    (g,) = sp.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), 3 * np.array([0.3, 0.7]) ** 2)
    assert g.requires_grad
    (h,) = sp.grad(g.sum(), x, retain_graph=True)
    np.testing.assert_allclose(h.numpy(), 6 * np.array([0.3, 0.7]))
    # backward through the graph kept by create_graph
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.array([0.3, 0.7]))


def test_retain_graph_default_and_second_backward():
    x = sp.tensor([1.0], requires_grad=True)
    y = (x * x).sum()
    sp.grad(y, x, retain_graph=True)
    sp.grad(y, x)  # the graph was retained once
    with pytest.raises(RuntimeError, match="retain_graph"):
        sp.grad(y, x)


def test_allow_unused():
    x = sp.tensor([1.0], requires_grad=True)
    u = sp.tensor([1.0], requires_grad=True)
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="allow_unused"):
        sp.grad(y, [x, u], retain_graph=True)
    gx, gu = sp.grad(y, [x, u], allow_unused=True)
    assert gx.tolist() == [2.0] and gu is None


def test_hooks():
    x = sp.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    y = x * 3
    y.register_hook(lambda g: g * 10)  # replaces the gradient flowing into x
    y.sum().backward()
    assert seen == [[30.0, 30.0]] and x.grad.tolist() == [30.0, 30.0]


def test_hook_error_propagates():
    x = sp.tensor([1.0], requires_grad=True)

    def bad(g):
        raise KeyError("from the hook")
    x.register_hook(bad)
    with pytest.raises(KeyError, match="from the hook"):
        (x * 2).sum().backward()


def test_retain_grad():
    x = sp.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    assert h.retains_grad and not h.is_leaf and h.grad_fn.name() == "core::mul"
    (h * h).sum().backward()
    assert h.grad.tolist() == [4.0, 8.0]


def test_grad_fn_graph():
    x = sp.tensor([1.0], requires_grad=True)
    y = sp.exp(x * 2)
    assert y.grad_fn.name() == "core::exp"
    (prev, nr), = y.grad_fn.next_functions
    assert prev.name() == "core::mul" and nr == 0


def test_no_grad_and_enable_grad():
    x = sp.tensor([1.0], requires_grad=True)
    assert sp.is_grad_enabled()
    with sp.no_grad():
        assert not sp.is_grad_enabled()
        y = x * 2
        with sp.enable_grad():
            z = x * 2
    assert sp.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None and z.requires_grad

    @sp.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad and sp.is_grad_enabled()


def test_set_grad_enabled():
    with sp.set_grad_enabled(False):
        assert not sp.is_grad_enabled()
    assert sp.is_grad_enabled()
    sp.set_grad_enabled(False)
    assert not sp.is_grad_enabled()
    sp.set_grad_enabled(True)
    assert sp.is_grad_enabled()


def test_no_grad_restores_on_exception():
    with pytest.raises(ZeroDivisionError):
        with sp.no_grad():
            1 / 0
    assert sp.is_grad_enabled()


def test_detach_and_requires_grad_setter():
    x = sp.tensor([1.0], requires_grad=True)
    d = (x * 2).detach()
    assert not d.requires_grad and d.is_leaf
    d.requires_grad = True
    assert d.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad
    with pytest.raises(RuntimeError, match="detach"):
        (d * 2).requires_grad = False


def test_saved_tensor_modified_in_place_is_an_error():
    x = sp.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = y * y
    with sp.no_grad():
        y += 1
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()


def test_complex_gradient_convention():
    # PyTorch's convention: grad = grad_out * conj(d out / d z)
    z = sp.tensor([1.0 + 2.0j], dtype=sp.complex128, requires_grad=True)
    w = sp.tensor([3.0 - 1.0j], dtype=sp.complex128)
    (z * w).backward(sp.tensor([1.0 + 0j], dtype=sp.complex128))
    assert z.grad.tolist() == [3.0 + 1.0j]


def test_backward_many():
    x = sp.tensor([1.0], requires_grad=True)
    sp.autograd.backward([x * 2, x * 3], [sp.tensor([1.0]), sp.tensor([1.0])])
    assert x.grad.tolist() == [5.0]
