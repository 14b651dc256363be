"""x[key] and x[key] = v against NumPy: basic indices as views, advanced indices (integer and
boolean arrays, lists, tensors) with NumPy's placement rules, assignment with and without
autograd."""
import numpy as np
import pytest

import sampan as sp

A = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)

BASIC_KEYS = [
    0, -1, (1, 2), (1, 2, 3, 4), (-1, -2, -3, -4), slice(None), slice(1, None), slice(None, None, -1),
    (slice(None), slice(0, 3, 2)), (Ellipsis, 1), (0, Ellipsis, slice(None, None, -2)),
    (None, 0), (slice(None), None, 1, None), Ellipsis, (Ellipsis, None),
    (slice(-100, 100), slice(3, 0, -1)), (slice(5, 1),), (1, slice(None), slice(-2, None)),
    (np.int64(1), slice(1, 3)),
]

ADVANCED_KEYS = [
    [0, 1, 1], ([1, 0],), (slice(None), [2, 0]), (slice(None), [0, 2], [1, 3]),
    (slice(None), [[0], [2]], [1, 3]),                           # broadcast index arrays
    ([0, 1], slice(None), [0, 2]),                               # separated: dims go first
    (0, slice(None), [1, 2]),                                    # int + array, separated
    (slice(None), 1, [1, 2]),                                    # int + array, adjacent
    (Ellipsis, [4, 0, -1]), (np.array([True, False]),), (slice(None), np.array([True, False, True])),
    (A[..., 0, 0] > 30,),                                        # 2-d mask over 2 dims
    (A > 60,),                                                   # full mask
    (slice(None), A[0, :, :, 0] > 10),                           # 2-d mask in the middle
    (None, [0, 1], None, slice(1, 3)), ([1, 0], None),
    (slice(1, None, -1), [0, 2], slice(None, None, 2)),
    (np.array([], dtype=np.int64),), ([],),
]


def _tensor():
    return sp.tensor(A, dtype=sp.float64)


def _key_for_sampan(key, as_tensors):
    """The same key with NumPy arrays as sampan tensors (to test both spellings)."""
    if not as_tensors:
        return key
    def conv(k):
        return sp.tensor(k) if isinstance(k, np.ndarray) else k
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


@pytest.mark.parametrize("key", BASIC_KEYS, ids=repr)
def test_basic_indexing_gives_views(key):
    x = _tensor()
    got = x[key]
    expected = A[key]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)
    if got.numel():
        assert got.shares_storage(x)


@pytest.mark.parametrize("as_tensors", [False, True])
@pytest.mark.parametrize("key", ADVANCED_KEYS, ids=repr)
def test_advanced_indexing(key, as_tensors):
    x = _tensor()
    got = x[_key_for_sampan(key, as_tensors)]
    expected = A[key]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)


def test_non_contiguous_source():
    x = _tensor().permute(3, 1, 0, 2)[::2]
    a = A.transpose(3, 1, 0, 2)[::2]
    for key in [(1, [0, 2]), (slice(None), slice(None), [1, 0]), a > 50]:
        np.testing.assert_array_equal(x[key].numpy(), a[key])


def test_integer_tensor_index_and_0d():
    x = _tensor()
    np.testing.assert_array_equal(x[sp.tensor([1, 0])].numpy(), A[[1, 0]])
    np.testing.assert_array_equal(x[sp.tensor(1)].numpy(), A[1])
    np.testing.assert_array_equal(x[:, sp.tensor([2], dtype=sp.int32)].numpy(), A[:, [2]])


@pytest.mark.parametrize("key, error, match", [
    (5, IndexError, "5"), ((0, 0, 0, 0, 0), IndexError, "too many indices"),
    ((Ellipsis, Ellipsis), IndexError, "single ellipsis"), ([0, 7], IndexError, "out of range"),
    (1.5, IndexError, "valid indices"), (np.array([0.5]), IndexError, "integer or boolean"),
    (np.array([True, False, True]), IndexError, "boolean index did not match"), (slice(None, None, 0), ValueError, "zero"),
    (True, IndexError, "boolean scalar"),
])
def test_index_errors(key, error, match):
    with pytest.raises(error, match=match):
        _tensor()[key]


def test_iteration_uses_select():
    x = sp.tensor([[1, 2], [3, 4]])
    rows = list(x)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4]] and rows[0].shares_storage(x)


SET_KEYS = BASIC_KEYS + [k for k in ADVANCED_KEYS if not (isinstance(k, list) and len(k) > 2)]


@pytest.mark.parametrize("key", SET_KEYS, ids=repr)
def test_setitem_scalar_and_array(key):
    for value in (-7.0, "array"):
        x, a = _tensor(), A.copy()
        v = -np.arange(a[key].size, dtype=np.float64).reshape(a[key].shape) if value == "array" else value
        a[key] = v
        x[key] = v
        np.testing.assert_array_equal(x.numpy(), a)


def test_setitem_broadcasts_and_converts():
    x, a = _tensor(), A.copy()
    x[:, 1] = sp.tensor([1, 2, 3, 4, 5])  # int64 values into float64
    a[:, 1] = [1, 2, 3, 4, 5]
    x[[0, 1], 0, 0] = sp.tensor([9.5])
    a[[0, 1], 0, 0] = 9.5
    np.testing.assert_array_equal(x.numpy(), a)
    i = sp.tensor([1, 2, 3])
    i[1:] = 2.7  # float scalar into an int tensor truncates, like NumPy
    assert i.tolist() == [1, 2, 2]


def test_setitem_writes_through_views_and_numpy():
    a = np.zeros((3, 3))
    x = sp.from_numpy(a)
    x[1, :] = 5
    x[x.numpy() > 4] = 6  # a mask from NumPy
    assert (a[1] == 6).all() and a.sum() == 18


def test_setitem_with_autograd():
    v = sp.tensor([1.0, 2.0], requires_grad=True)
    base = sp.tensor([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]], requires_grad=True)
    x = base * 2                      # a non-leaf tensor
    x[0, 1:] = v * 3                  # basic key: slice_scatter / select_scatter
    x[[1, 1], [0, 2]] = v             # advanced key: index_copy
    assert x.tolist() == [[1.0, 3.0, 6.0], [1.0, 1.0, 2.0]]
    (x * sp.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert v.grad.tolist() == [2 * 3 + 4, 3 * 3 + 6]
    # only the untouched entries of base reach the output
    assert base.grad.tolist() == [[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]]


def test_setitem_on_leaf_requiring_grad():
    x = sp.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x[0] = 5.0
    with sp.no_grad():
        x[0] = 5.0
    assert x.tolist() == [5.0, 2.0]


def test_getitem_gradients():
    x = sp.tensor(A[0, 0], dtype=sp.float64, requires_grad=True)  # shape (4, 5)
    y = x[1:3, ::-2].sum() + (x[[0, 0, 3], [1, 1, 4]] * 2).sum() + x[x.numpy() > 18].sum()
    y.backward()
    expected = np.zeros((4, 5))
    expected[1:3, ::-2] += 1
    np.add.at(expected, ([0, 0, 3], [1, 1, 4]), 2)
    expected[A[0, 0] > 18] += 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)
