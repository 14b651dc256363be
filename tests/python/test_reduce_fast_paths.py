"""Reductions of contiguous inputs take flat fast paths (framework/src/kernels/reduce_loop.h)
when the reduced axes are a leading or trailing block; they must give bit-identical results to
the generic strided walk (forced here by a non-contiguous view of the same values) and agree
with NumPy."""
import numpy as np
import pytest

import sampan as sp


def _strided_copy(a):
    """The same values as a non-contiguous sampan view (a transposed buffer, transposed back)."""
    axes = tuple(reversed(range(a.ndim)))
    return sp.tensor(np.ascontiguousarray(a.transpose(axes))).permute(*axes)


@pytest.mark.parametrize("shape,axes", [
    ((750, 300), [0]), ((750, 300), [1]), ((750, 300), []), ((4, 1, 5, 3), [0, 1]), ((4, 5, 1, 3), [2, 3]),
    ((1, 7, 1), [1]), ((3, 4, 5), [0, 1]), ((3, 4, 5), [1, 2]), ((3, 4, 5), [1]), ((600, 700), [0]),
    ((2, 300000), [1]), ((300000,), [0]),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_contiguous_sums_match_the_strided_walk_and_numpy(shape, axes, dtype):
    rng = np.random.default_rng(0)
    a = (rng.normal(size=shape) * 100).astype(dtype)
    fast = sp.tensor(a).sum(axes).numpy()
    generic = _strided_copy(a).sum(axes).numpy()
    np.testing.assert_array_equal(fast, generic)
    want = a.astype(np.float64).sum(axis=tuple(axes) if axes else None)
    np.testing.assert_allclose(fast, want, rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-3)


def test_mean_var_and_max_over_leading_axis():
    a = np.random.default_rng(1).normal(size=(513, 257))
    t = sp.tensor(a)
    np.testing.assert_allclose(sp.mean(t, [0], False).numpy(), a.mean(0), rtol=1e-12)
    np.testing.assert_allclose(sp.var(t, [0], 1.0).numpy(), a.var(0, ddof=1), rtol=1e-10)
    np.testing.assert_array_equal(sp.amax(t, [0], False).numpy(), a.max(0))
    np.testing.assert_array_equal(sp.amin(t, [1], False).numpy(), a.min(1))
