"""Random sampling from Python: seeds, generators, shapes and dtypes, value ranges, and results
that do not depend on the thread count."""
import numpy as np
import pytest

import sampan as sp


def test_manual_seed_reproduces():
    sp.manual_seed(7)
    a = sp.rand(3, 4)
    b = sp.randn(5)
    sp.manual_seed(7)
    np.testing.assert_array_equal(sp.rand(3, 4).numpy(), a.numpy())
    np.testing.assert_array_equal(sp.randn(5).numpy(), b.numpy())
    assert sp.manual_seed(7) is sp.default_generator and sp.initial_seed() == 7


def test_draws_differ():
    sp.manual_seed(1)
    assert not np.array_equal(sp.rand(10).numpy(), sp.rand(10).numpy())


def test_own_generator_leaves_default_alone():
    sp.manual_seed(3)
    offset = sp.default_generator.offset
    g = sp.Generator(42)
    x = sp.rand(4, generator=g)
    assert sp.default_generator.offset == offset and g.offset == 1
    np.testing.assert_array_equal(sp.rand(4, generator=sp.Generator(42)).numpy(), x.numpy())
    state = g.get_state()
    y = sp.randn(3, generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(sp.randn(3, generator=g).numpy(), y.numpy())


def test_shapes_dtypes_and_ranges():
    u = sp.rand((1000,), dtype=sp.float64)
    assert u.shape == (1000,) and u.dtype is sp.float64
    assert 0.0 <= u.numpy().min() and u.numpy().max() < 1.0 and abs(u.numpy().mean() - 0.5) < 0.05
    z = sp.randn(2000)
    assert z.dtype is sp.float32 and abs(z.numpy().mean()) < 0.1 and abs(z.numpy().std() - 1) < 0.1
    i = sp.randint(3, 9, size=(500,))
    assert i.dtype is sp.int64 and i.numpy().min() >= 3 and i.numpy().max() <= 8
    assert sp.randint(5, size=4).numpy().max() < 5
    p = sp.randperm(50)
    assert sorted(p.tolist()) == list(range(50))
    b = sp.bernoulli(sp.full((1000,), 0.25))
    assert set(np.unique(b.numpy())) <= {0.0, 1.0} and abs(b.numpy().mean() - 0.25) < 0.06
    assert sp.rand().shape == () and sp.randn_like(sp.zeros(2, 3, dtype=sp.float64)).dtype is sp.float64
    n = sp.normal(2.0, 0.5, size=(4000,))
    assert abs(n.numpy().mean() - 2.0) < 0.05 and abs(n.numpy().std() - 0.5) < 0.05
    v = sp.uniform(-1.0, 1.0, size=100)
    assert v.numpy().min() >= -1.0 and v.numpy().max() < 1.0


def test_requires_grad_sample_is_a_leaf():
    w = sp.randn(3, requires_grad=True)
    assert w.requires_grad and w.is_leaf


def test_independent_of_thread_count():
    n = sp.get_num_threads()
    try:
        sp.set_num_threads(1)
        a = sp.randn(100000, generator=sp.Generator(5)).numpy()
        sp.set_num_threads(2)
        b = sp.randn(100000, generator=sp.Generator(5)).numpy()
    finally:
        sp.set_num_threads(n)
    np.testing.assert_array_equal(a, b)


def test_errors():
    with pytest.raises(ValueError, match="std"):
        sp.normal(0.0, -1.0, size=3)
    with pytest.raises(TypeError, match="float32 or float64"):
        sp.rand(3, dtype=sp.int64)


def test_a_generator_of_the_wrong_type_is_a_type_error():
    import pytest
    with pytest.raises(TypeError, match="generator must be a sampan.Generator"):
        sp.randn([3], generator=5)


def test_dropout_mask_is_a_scaled_bernoulli_mask_reproducible_and_thread_independent():
    # core::dropout_mask (behind nn.functional.dropout) draws, compares and scales in one pass.
    for dtype, p in ((sp.float32, 0.5), (sp.float64, 0.2), (sp.float32, 0.1)):
        g = sp.Generator()
        g.manual_seed(7)
        state = g.get_state()
        x = sp.ones(101, 50, dtype=dtype)
        y = sp.nn.functional.dropout(x, p, True, generator=g).numpy()
        assert y.dtype == x.numpy().dtype
        scale = np.asarray(1.0 / (1.0 - p), y.dtype)
        assert set(np.unique(y).tolist()) <= {0.0, float(scale)}
        # 5050 Bernoulli(p) draws: the dropped fraction within 4.5 standard deviations of p
        assert abs((y == 0).mean() - p) < 4.5 * np.sqrt(p * (1 - p) / y.size)
        g.set_state(state)
        threads = sp.get_num_threads()
        sp.set_num_threads(1 if threads > 1 else 2)
        try:
            again = sp.nn.functional.dropout(x, p, True, generator=g).numpy()
        finally:
            sp.set_num_threads(threads)
        np.testing.assert_array_equal(again, y)  # same draw, other thread count: same mask
        g.set_state(state)
        u = sp.rand(101, 50, dtype=dtype, generator=g).numpy()  # the mask of rand < 1 - p, scaled
        np.testing.assert_array_equal(y, (u < np.asarray(1.0 - p, u.dtype)).astype(u.dtype) * scale)
        following = sp.nn.functional.dropout(x, p, True, generator=g).numpy()
        assert (following != y).any()  # the next draw is another mask
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\), got 1"):
        sp.ops.core.dropout_mask([2], 1.0, "float32", 0, 0)
