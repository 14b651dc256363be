"""The default collate: a list of samples -> one batch.

Fields are matched by position (tuples, lists) or key (dicts), recursively; at the leaves, tensors
are stacked (``sp.stack``, so a tensor that requires grad keeps its graph), NumPy arrays and NumPy
scalars are stacked into a tensor of their dtype, Python numbers become a 1-D tensor (bool, int64,
float32 or complex64, as ``sp.tensor`` infers), strings and bytes stay a list, and None stays a
list of None. A namedtuple stays a namedtuple. Samples whose fields differ in kind, shape, dtype,
length or keys raise :class:`CollateError` naming the field and the two samples.
"""
import collections.abc
import numbers

import numpy as np

from .._C import Tensor
from .._creation import tensor
from .._ops import function


class CollateError(ValueError):
    """Samples of one batch that cannot be collated. ``field`` is the path into the sample (for
    example ``[0]['x']``), ``positions`` the two batch positions that disagree (0 and j), and
    ``detail`` what differs ("shape (3,) and (4,)")."""

    def __init__(self, field, positions, detail):
        self.field, self.positions, self.detail = field, tuple(positions), detail
        where = f"field {field}" if field else "the samples"
        super().__init__(f"default_collate: {where} of batch elements {positions[0]} and {positions[1]} differ: "
                         f"{detail}")


def default_collate(batch):
    """One batch from ``batch``, a non-empty list of samples (see the module doc)."""
    if not isinstance(batch, (list, tuple)) or not batch:
        raise TypeError(f"default_collate expects a non-empty list of samples, got {type(batch).__name__}"
                        + (" (empty)" if isinstance(batch, (list, tuple)) else ""))
    return _collate(list(batch), "")


def _kind(x):
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, np.ndarray):
        return "numpy.ndarray"
    if isinstance(x, np.generic):
        return "numpy scalar"
    if isinstance(x, (str, bytes)):
        return "str"
    if x is None:
        return "None"
    if isinstance(x, numbers.Number):
        return "number"
    if isinstance(x, collections.abc.Mapping):
        return "dict"
    if isinstance(x, (tuple, list)):
        return type(x).__name__ if not _is_namedtuple(x) else f"namedtuple {type(x).__name__}"
    return type(x).__name__


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _shape(x):
    return tuple(int(s) for s in x.shape)


def _collate(items, field):
    first = items[0]
    kind = _kind(first)
    for j, x in enumerate(items[1:], 1):
        if _kind(x) != kind:
            raise CollateError(field, (0, j), f"a {kind} and a {_kind(x)}")
    if kind in ("Tensor", "numpy.ndarray"):
        for j, x in enumerate(items[1:], 1):
            if _shape(x) != _shape(first):
                raise CollateError(field, (0, j), f"shape {_shape(first)} and {_shape(x)}")
            if x.dtype != first.dtype:
                raise CollateError(field, (0, j), f"dtype {first.dtype} and {x.dtype}")
        if kind == "Tensor":
            return function("core::stack")(items, 0)
        return tensor(np.stack(items))
    if kind == "numpy scalar":
        for j, x in enumerate(items[1:], 1):
            if x.dtype != first.dtype:
                raise CollateError(field, (0, j), f"dtype {first.dtype} and {x.dtype}")
        return tensor(np.array(items))
    if kind == "number":
        return tensor(items)
    if kind in ("str", "None"):
        return list(items)
    if kind == "dict":
        keys = list(first.keys())
        for j, x in enumerate(items[1:], 1):
            if set(x.keys()) != set(keys):
                raise CollateError(field, (0, j), f"keys {sorted(map(str, keys))} and {sorted(map(str, x.keys()))}")
        return {k: _collate([x[k] for x in items], f"{field}[{k!r}]") for k in keys}
    if isinstance(first, (tuple, list)):
        for j, x in enumerate(items[1:], 1):
            if len(x) != len(first):
                raise CollateError(field, (0, j), f"length {len(first)} and {len(x)}")
        columns = [_collate([x[i] for x in items], f"{field}[{i}]") for i in range(len(first))]
        if _is_namedtuple(first):
            return type(first)(*columns)
        return tuple(columns) if isinstance(first, tuple) else columns
    where = f" (field {field})" if field else ""
    raise TypeError(f"default_collate: cannot collate a {kind}{where}; samples hold tensors, numpy arrays, "
                    "numbers, strings, or tuples, lists and dicts of these (give collate_fn= for others)")
