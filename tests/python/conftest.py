"""Shared fixtures of the Python tests: a seeded NumPy generator and tensor builders that make
contiguous and non-contiguous inputs from NumPy arrays. (No helper turns a missing op into a
skip: an op the README lists must be registered, so a test of it fails when it is not.)"""
import numpy as np
import pytest

import sampan as sp


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)


def random_array(rng, shape, dtype, low=-2.0, high=2.0):
    """Random values of NumPy dtype `dtype` (complex with a random imaginary part)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        return rng.integers(int(low) - 3, int(high) + 4, size=shape).astype(dtype)
    values = rng.uniform(low, high, size=shape)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(low, high, size=shape)
    return values.astype(dtype)


def as_layout(arr, layout):
    """A tensor with `arr`'s values: 'contiguous', or a non-contiguous view ('transposed':
    stored transposed; 'strided': every other element of a larger buffer)."""
    if layout == "contiguous" or arr.ndim == 0:
        return sp.tensor(arr, dtype=arr.dtype.name)
    if layout == "transposed":
        stored = sp.tensor(np.ascontiguousarray(arr.T), dtype=arr.dtype.name)
        return stored.permute(list(range(arr.ndim - 1, -1, -1)))
    if layout == "strided":
        big = np.zeros(tuple(2 * s for s in arr.shape), dtype=arr.dtype)
        big[tuple(slice(None, None, 2) for _ in arr.shape)] = arr
        return sp.tensor(big, dtype=arr.dtype.name)[tuple(slice(None, None, 2) for _ in arr.shape)]
    raise ValueError(layout)


def tolerance(dtype):
    dtype = np.dtype(dtype)
    if dtype in (np.float16,):
        return dict(rtol=1e-2, atol=1e-2)
    if dtype in (np.float32, np.complex64):
        return dict(rtol=2e-5, atol=2e-5)
    return dict(rtol=1e-11, atol=1e-12)
