"""NumPy indexing for tensors: ``x[key]`` and ``x[key] = value``, built on registered ops.

Basic indices (ints, slices with any step, None, Ellipsis) give views: core::select,
core::slice, core::unsqueeze. Advanced indices (integer and boolean arrays, lists, tensors)
follow NumPy's rules exactly, by one trick: the positions they pick among the advanced
dimensions are computed by indexing a NumPy ``arange`` over those dimensions (so NumPy itself
decides broadcasting, boolean masks, negative indices and bounds), and the tensor is gathered
with core::index_select along those dimensions merged into one. The result is placed where NumPy
places it: at the first advanced index when the advanced indices are adjacent, else in front.

Assignment writes into ``x`` in place. Without autograd involvement, basic keys copy into the
view (core::copy_). When ``x`` or ``value`` requires grad, the write is lowered to the
out-of-place ops (core::slice_scatter / select_scatter / index_copy / masked_fill) and the
result copied into ``x``, so gradients flow to ``value`` and to the kept part of ``x``. As in
PyTorch, a leaf that requires grad cannot be assigned into (use ``with sp.no_grad():``).
"""
import math
import numbers
import operator

import numpy as np

from . import _C
from ._ops import function as op_function
from ._C import Tensor

# "No bound" for core::slice (int64 max): see kSliceEnd in framework/include/sampan/ops/shape.h.
_SLICE_END = 2**63 - 1


_op_cache = {}


def _op(name):
    fn = _op_cache.get(name)
    if fn is None:
        fn = op_function("core::" + name)
        if fn is None:
            raise NotImplementedError(f"indexing needs op core::{name}, which is not registered")
        _op_cache[name] = fn
    return fn


# ---- the key --------------------------------------------------------------------------------

class _Entry:
    """One element of an expanded key: kind is 'int', 'slice', 'none' or 'array'."""
    __slots__ = ("kind", "value", "ndim")

    def __init__(self, kind, value=None, ndim=0):
        self.kind, self.value, self.ndim = kind, value, ndim  # ndim: dimensions of x it consumes


def _index_array(obj, original):
    arr = np.asarray(obj)
    if arr.dtype == np.bool_:
        return _Entry("array", arr, arr.ndim)
    if arr.dtype.kind in "iu" or (arr.size == 0 and isinstance(original, (list, tuple))):
        return _Entry("array", arr.astype(np.int64), 1)
    raise IndexError("arrays used as indices must be of integer or boolean type, got "
                     f"{getattr(original, 'dtype', arr.dtype)}")


def _classify(e):
    if e is None:
        return _Entry("none")
    if e is Ellipsis:
        return _Entry("ellipsis")
    if isinstance(e, slice):
        return _Entry("slice", e, 1)
    if isinstance(e, (bool, np.bool_)):
        raise IndexError("a boolean scalar index is not supported; use a boolean tensor or array as a mask")
    if isinstance(e, Tensor):
        if e.ndim == 0 and e.dtype in (_C.int32, _C.int64):
            return _Entry("int", int(e.item()), 1)
        if e.dtype not in (_C.bool, _C.int32, _C.int64):
            raise IndexError(f"tensors used as indices must be of integer or bool dtype, got {e.dtype}")
        return _index_array(e.detach().numpy(), e)
    if isinstance(e, (np.ndarray, list)):
        return _index_array(e, e)
    if isinstance(e, numbers.Integral) or hasattr(e, "__index__"):
        return _Entry("int", operator.index(e), 1)
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and integer or boolean "
                     f"arrays are valid indices, got {type(e).__name__}")


def _expand(x, key):
    """The key as a list of entries without Ellipsis, consuming exactly x.ndim dimensions."""
    entries = [_classify(e) for e in (key if isinstance(key, tuple) else (key,))]
    ellipses = [i for i, e in enumerate(entries) if e.kind == "ellipsis"]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(e.ndim for e in entries)
    if used > x.ndim:
        raise IndexError(f"too many indices for a tensor of dimension {x.ndim} (the index uses {used})")
    fill = [_Entry("slice", slice(None), 1) for _ in range(x.ndim - used)]
    if ellipses:
        i = ellipses[0]
        return entries[:i] + fill + entries[i + 1:]
    return entries + fill


def _slice_bounds(s):
    """start, stop, step of a Python slice for core::slice (None -> the end for that step)."""
    step = 1 if s.step is None else operator.index(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")

    def bound(v, default):
        if v is None:
            return default
        return max(-_SLICE_END, min(_SLICE_END, operator.index(v)))
    if step > 0:
        return bound(s.start, 0), bound(s.stop, _SLICE_END), step
    return bound(s.start, _SLICE_END), bound(s.stop, -_SLICE_END), step


def _is_full(e):
    return e.kind == "slice" and e.value == slice(None)


# ---- reading ----------------------------------------------------------------------------------

def _basic_view(x, entries):
    """x indexed by entries of kind int, slice and none: a view (a new one even for x[...])."""
    dim, source = 0, x
    for e in entries:
        if e.kind == "none":
            x = _op("unsqueeze")(x, dim)
            dim += 1
        elif e.kind == "slice":
            if not _is_full(e):
                x = _op("slice")(x, dim, *_slice_bounds(e.value))
            dim += 1
        else:
            x = _op("select")(x, dim, e.value)
    return _op("permute")(x, list(range(x.ndim))) if x is source else x


def _ints_and_slices(x, key):
    """The common keys (an int, a slice, or a tuple of them) without building entries."""
    dim = 0
    for k in key:
        if type(k) is int:
            x = _op("select")(x, dim, k)
        else:
            x = _op("slice")(x, dim, *_slice_bounds(k))
            dim += 1
    return x


class _Advanced:
    """The advanced part of a key over the tensor y (x after its slices and Nones)."""

    def __init__(self, x, entries):
        y, dim = x, 0
        self.dims, self.none_dims, arrays, positions = [], set(), [], []
        for pos, e in enumerate(entries):
            if e.kind == "none":
                y = _op("unsqueeze")(y, dim)
                self.none_dims.add(dim)
                dim += 1
            elif e.kind == "slice":
                if not _is_full(e):
                    y = _op("slice")(y, dim, *_slice_bounds(e.value))
                dim += 1
            else:  # int or array: both advanced here (NumPy treats ints next to arrays so)
                arrays.append(e.value)
                positions.append(pos)
                self.dims.extend(range(dim, dim + e.ndim))
                dim += e.ndim
        self.y = y
        self.rest = [d for d in range(y.ndim) if d not in self.dims]
        self.sizes = [y.shape[d] for d in self.dims]
        # NumPy decides which of the advanced positions are picked, in which result shape.
        grid = np.arange(math.prod(self.sizes)).reshape(self.sizes)
        try:
            self.linear = grid[tuple(arrays)]
        except IndexError as err:
            raise IndexError(f"index out of range for a tensor of shape {x.shape}: {err}") from None
        self.index_shape = list(self.linear.shape)
        adjacent = positions == list(range(positions[0], positions[-1] + 1))
        # Where NumPy puts the advanced dimensions: in place when adjacent, else first.
        self.insert_at = self.dims[0] if adjacent else 0

    def merged(self, t):
        """t (y's shape) with the advanced dimensions moved first and merged into one."""
        t = _op("permute")(t, self.dims + self.rest)
        rest_sizes = [self.y.shape[d] for d in self.rest]
        return _op("reshape")(t, [math.prod(self.sizes)] + rest_sizes)

    def index_tensor(self):
        return _index_tensor(self.linear)

    def result_order(self):
        """Permutation from (index dims, rest dims) to NumPy's result order."""
        nb, p = len(self.index_shape), self.insert_at
        return [nb + i for i in range(p)] + list(range(nb)) + [nb + i for i in range(p, len(self.rest))]


def getitem(x, key):
    t = type(key)
    if t is int or t is slice:
        return _ints_and_slices(x, (key,))
    if t is tuple and len(key) <= x.ndim and all(type(k) is int or type(k) is slice for k in key):
        return _ints_and_slices(x, key)
    entries = _expand(x, key)
    if all(e.kind != "array" for e in entries):
        return _basic_view(x, entries)
    arrays = [i for i, e in enumerate(entries) if e.kind == "array"]
    first = entries[arrays[0]].value
    if len(arrays) == 1 and all(_is_full(e) for i, e in enumerate(entries) if i != arrays[0]):
        if first.dtype != np.bool_:  # one integer array along one axis: NumPy's take
            return _op("index_select")(x, arrays[0], _index_tensor(first))
        if first.shape == x.shape:  # a full boolean mask
            return _op("masked_select")(x, _from_mask(first))
    adv = _Advanced(x, entries)
    out = _op("index_select")(adv.merged(adv.y), 0, adv.index_tensor())
    order = adv.result_order()
    return out if order == sorted(order) else _op("permute")(out, order)


def _index_tensor(indices):
    from ._creation import from_numpy
    return from_numpy(np.asarray(indices, dtype=np.int64, order="C"))


def _from_mask(mask):
    from ._creation import from_numpy
    return from_numpy(np.asarray(mask, dtype=np.bool_, order="C"))


# ---- writing ----------------------------------------------------------------------------------

def _value_tensor(x, value):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (numbers.Number, np.generic)):
        return _C._scalar_tensor(value, x)
    from ._creation import tensor
    return tensor(value, dtype=x.dtype)


def _scatter_basic(x, axis, entries, v):
    """A copy of x with x[entries] (int and slice entries from `axis` on) replaced by v."""
    while entries and _is_full(entries[-1]):
        entries = entries[:-1]
    if not entries:
        return v
    e, rest = entries[0], entries[1:]
    if _is_full(e):
        return _scatter_basic(x, axis + 1, rest, v)
    if e.kind == "slice":
        bounds = _slice_bounds(e.value)
        sub = _op("slice")(x, axis, *bounds)
        new_sub = _scatter_basic(sub, axis + 1, rest, v) if rest else v
        return _op("slice_scatter")(x, new_sub, axis, *bounds)
    sub = _op("select")(x, axis, e.value)
    new_sub = _scatter_basic(sub, axis, rest, v) if rest else v
    return _op("select_scatter")(x, new_sub, axis, e.value)


def _none_positions(entries):
    """Dimensions of x[entries] (basic entries) that None inserted."""
    positions, dim = [], 0
    for e in entries:
        if e.kind == "none":
            positions.append(dim)
        if e.kind != "int":
            dim += 1
    return positions


def _assign_basic(x, entries, v, recording, source=None):
    """x[entries] = v for basic entries. When recording, the new value of x is computed out of
    place from `source` (a clone of x: nodes of the new graph must not save x itself, whose
    version the final in-place copy bumps) and copied into x."""
    if any(e.kind == "none" for e in entries):
        # v broadcasts against the view with the new size-1 dimensions; then drop them.
        view_shape = _basic_view(x, entries).shape
        v = _op("broadcast_to")(v, list(view_shape))
        for d in reversed(_none_positions(entries)):
            v = _op("select")(v, d, 0)
        entries = [e for e in entries if e.kind != "none"]
    if not recording:
        _op("copy_")(_basic_view(x, entries), v)
        return
    if source is None:
        source = x.clone()
    _op("copy_")(x, _scatter_basic(source, 0, entries, v))


def setitem(x, key, value):
    entries = _expand(x, key)
    v = _value_tensor(x, value)
    recording = _C.grad_mode_enabled() and (x.requires_grad or v.requires_grad)
    if all(e.kind != "array" for e in entries):
        _assign_basic(x, entries, v, recording)
        return
    source = x.clone() if recording else x  # see _assign_basic
    arrays = [e for e in entries if e.kind == "array"]
    if (len(entries) == 1 and arrays[0].value.dtype == np.bool_ and arrays[0].value.shape == x.shape
            and v.numel() == 1):
        new_x = _op("masked_fill")(source, _from_mask(arrays[0].value), _op("reshape")(v, []))
        _op("copy_")(x, new_x)
        return
    # v broadcasts to NumPy's result shape (which has the None dimensions) ...
    result = _Advanced(x, entries)
    order = result.result_order()
    laid_out = result.index_shape + [result.y.shape[d] for d in result.rest]
    v = _op("broadcast_to")(v, [laid_out[i] for i in order])
    # ... and is laid out as (index dims, rest dims) without the None dimensions.
    v = _op("permute")(v, [order.index(i) for i in range(len(order))])
    nb = len(result.index_shape)
    for k in reversed(range(len(result.rest))):
        if result.rest[k] in result.none_dims:
            v = _op("select")(v, nb + k, 0)
    if v.dtype != x.dtype:
        v = v._to_dtype(x.dtype)
    if not result.none_dims and source is x:
        adv = result
    else:
        adv = _Advanced(source, [e for e in entries if e.kind != "none"])
    new_merged = _op("index_copy")(adv.merged(adv.y), 0, adv.index_tensor(), v)
    new_y = _op("reshape")(new_merged, adv.sizes + [adv.y.shape[d] for d in adv.rest])
    perm = adv.dims + adv.rest
    new_y = _op("permute")(new_y, [perm.index(i) for i in range(len(perm))])
    # Write y (x after its slices) back into x: the advanced entries become full slices.
    outer = []
    for e in entries:
        if e.kind in ("int", "array"):
            outer.extend(_Entry("slice", slice(None), 1) for _ in range(e.ndim))
        elif e.kind == "slice":
            outer.append(e)
    _assign_basic(x, outer, new_y, recording, source)


Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem
