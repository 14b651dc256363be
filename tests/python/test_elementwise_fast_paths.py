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


def test_broadcast_rows_still_take_the_strided_path():
    a = np.arange(12.0).reshape(3, 4)
    row = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal((sp.tensor(a) * sp.tensor(row)).numpy(), a * row)
    np.testing.assert_array_equal((sp.tensor(a) + sp.tensor(row[:3, None].copy())).numpy(), a + row[:3, None])


def test_gradients_through_scalar_operands():
    x = sp.tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    ((x * 2.5 + 1.0) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (2.5 * np.array([1.0, -2.0, 3.0]) + 1.0) * 2.5)
