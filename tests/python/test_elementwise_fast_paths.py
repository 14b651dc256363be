"""Elementwise ops with a dense output and inputs that are dense or one broadcast value (a
Python scalar, a 0-d tensor) take a flat loop that reads the value once
(framework/src/kernels/strided_loop.h); results must equal NumPy's, in place and not, on both
sides of the operator, below and above the OpenMP grain."""
import numpy as np
import pytest

import sampan as sp


@pytest.mark.parametrize("n", [7, 300000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_scalar_and_zero_d_operands(n, dtype):
    a = (np.random.default_rng(0).normal(size=(n,)) * 10).astype(dtype)
    t = sp.tensor(a)
    s = dtype(3)
    zero_d = sp.tensor(np.array(s))
    np.testing.assert_array_equal((t * 3).numpy(), a * s)
    np.testing.assert_array_equal((3 - t).numpy(), s - a)
    np.testing.assert_array_equal((t - zero_d).numpy(), a - s)
    np.testing.assert_array_equal((zero_d + t).numpy(), s + a)
    np.testing.assert_array_equal(sp.maximum(t, zero_d).numpy(), np.maximum(a, s))
    c = sp.tensor(a > 0)
    np.testing.assert_array_equal(sp.where(c, t, zero_d).numpy(), np.where(a > 0, a, s))
    np.testing.assert_array_equal(sp.where(c, zero_d, t).numpy(), np.where(a > 0, s, a))
    u = sp.tensor(a.copy())
    u.mul_(3).add_(zero_d)
    np.testing.assert_array_equal(u.numpy(), a * s + s)


@pytest.mark.parametrize("rows", [3, 900])  # below and above the OpenMP grain (rows x 40 elements)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_contiguous_rows_with_row_and_column_broadcasts(rows, dtype):
    # [rows, k] op [k] (a bias add) and op [rows, 1] (a per-row scale) run each output row as a
    # flat loop with every input contiguous along the row or constant on it; a transposed input
    # and a strided output keep the general strided row.
    rng = np.random.default_rng(1)
    a = (rng.normal(size=(rows, 40)) * 10).astype(dtype)
    row = (rng.normal(size=(40,)) * 10).astype(dtype)
    col = (rng.normal(size=(rows, 1)) * 10).astype(dtype)
    t, r, c = sp.tensor(a), sp.tensor(row), sp.tensor(col)
    np.testing.assert_array_equal((t + r).numpy(), a + row)
    np.testing.assert_array_equal((r - t).numpy(), row - a)
    np.testing.assert_array_equal((t * c).numpy(), a * col)
    np.testing.assert_array_equal((c * r).numpy(), col * row)  # both broadcast: an outer product
    np.testing.assert_array_equal(sp.where(sp.tensor(a > 0), r, c).numpy(), np.where(a > 0, row, col))
    at = np.ascontiguousarray(a.T)
    np.testing.assert_array_equal((sp.tensor(at).mT + r).numpy(), at.T + row)
    u = sp.tensor(a.copy())
    u.add_(r).mul_(c)
    np.testing.assert_array_equal(u.numpy(), (a + row) * col)
    three = (rng.normal(size=(2, rows, 40)) * 10).astype(dtype)
    np.testing.assert_array_equal((sp.tensor(three) + r).numpy(), three + row)  # 3-d, rows coalesced


def test_broadcast_rows_still_take_the_strided_path():
    a = np.arange(12.0).reshape(3, 4)
    row = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal((sp.tensor(a) * sp.tensor(row)).numpy(), a * row)
    np.testing.assert_array_equal((sp.tensor(a) + sp.tensor(row[:3, None].copy())).numpy(), a + row[:3, None])


def test_gradients_through_scalar_operands():
    x = sp.tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    ((x * 2.5 + 1.0) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (2.5 * np.array([1.0, -2.0, 3.0]) + 1.0) * 2.5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_gradient_in_one_pass_and_differentiable_again(dtype):
    # relu's vjp is core::relu_backward (grad where x > 0): the same numbers as the comparison
    # and select it replaced, in place or not, and a second derivative through it.
    rng = np.random.default_rng(2)
    a = rng.normal(size=(50, 30)).astype(dtype)
    a[0, :3] = [0.0, -0.0, np.nan]
    g = rng.normal(size=a.shape).astype(dtype)
    want = np.where(a > 0, g, 0).astype(dtype)
    for inplace in (False, True):
        x = sp.tensor(a, requires_grad=True)
        y = sp.relu_(x * 1.0) if inplace else sp.relu(x)
        y.backward(sp.tensor(g))
        np.testing.assert_array_equal(x.grad.numpy(), want)
    np.testing.assert_array_equal(sp.ops.core.relu_backward(sp.tensor(a), sp.tensor(g)).numpy(), want)
    # d/dv of sum(w * relu'(x) v) is w * (x > 0): the gradient of the gradient
    x = sp.tensor(a)
    v = sp.tensor(g, requires_grad=True)
    w = rng.normal(size=a.shape).astype(dtype)
    (gx,) = sp.grad([(sp.relu(x.requires_grad_(True)) * v).sum()], [x], create_graph=True)
    (gv,) = sp.grad([(gx * sp.tensor(w)).sum()], [v])
    np.testing.assert_array_equal(gv.numpy(), np.where(a > 0, w, 0).astype(dtype))
