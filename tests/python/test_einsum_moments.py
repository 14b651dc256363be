"""einsum from Python, the NumPy default of var/std, fill_ and zero_."""
import numpy as np

import sampan as sp


def test_einsum_matches_numpy_and_differentiates():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    ta = sp.tensor(a, requires_grad=True)
    tb = sp.tensor(b)
    out = sp.einsum("bij,bjk->bik", ta, tb)
    np.testing.assert_allclose(out.detach().numpy(), np.einsum("bij,bjk->bik", a, b), rtol=1e-12)
    (g,) = sp.grad(out.sum(), ta)
    np.testing.assert_allclose(g.numpy(), np.einsum("bjk->bj", b)[:, None, :].repeat(3, axis=1), rtol=1e-12)
    assert float(sp.einsum("ii", sp.tensor(np.eye(3)))) == 3.0


def test_var_std_default_to_numpy_ddof_0():
    x = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
    np.testing.assert_allclose(sp.var(sp.tensor(x), axes=[1]).numpy(), x.var(axis=1), rtol=1e-12)
    np.testing.assert_allclose(sp.std(sp.tensor(x)).numpy(), x.std(), rtol=1e-12)


def test_fill_and_zero_in_place_through_views():
    x = sp.ones([2, 3], dtype=sp.float64)
    v = x[:, 1]
    assert v.fill_(7.5) is v
    np.testing.assert_array_equal(x.numpy(), [[1, 7.5, 1], [1, 7.5, 1]])
    assert x.zero_() is x
    assert not x.numpy().any()
    # Overwritten values get no gradient; the version counter catches saved-then-modified tensors.
    w = sp.ones([3], dtype=sp.float64, requires_grad=True)
    y = w * 2.0
    z = (y * y).sum()
    y.zero_()
    try:
        z.backward()
        raise AssertionError("backward through a modified saved tensor must fail")
    except RuntimeError as e:
        assert "modified by an in-place operation" in str(e)
