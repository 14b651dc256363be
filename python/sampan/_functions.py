"""Hand-written conveniences over registered ops, for names that are not ops themselves
(C++ helpers in framework/include/sampan/ops/*.h such as transpose and mean). Each defers to a
registered op of the same name when one exists. They are also Tensor methods.
"""
import operator

from . import _C
from ._ops import function as op_function
from ._C import Tensor


def _op(name):
    return op_function("core::" + name)


def mean(x, axes=(), keepdim=False):
    """Mean over ``axes`` (all when empty); integer and bool inputs give float32."""
    op = _op("mean")
    if op is not None:
        return op(x, axes, keepdim)
    axes_list = [axes] if isinstance(axes, int) else list(axes)
    dims = range(x.ndim) if not axes_list else {operator.index(a) % max(x.ndim, 1) for a in axes_list}
    count = 1
    for d in dims:
        count *= x.shape[d]
    if not x.dtype.is_differentiable:
        x = x._to_dtype(_C.float32)
    return _op("sum")(x, axes_list, keepdim) / count


def einsum(equation, *operands):
    """Einstein summation, e.g. ``einsum("bij,bjk->bik", a, b)``: implicit output, ``...``,
    repeated labels (diagonals, traces) and broadcasting; built from differentiable ops."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _C.einsum(equation, list(operands))


def transpose(x, dim0, dim1):
    """Swaps dimensions dim0 and dim1 (a view)."""
    op = _op("transpose")
    if op is not None:
        return op(x, dim0, dim1)
    dims = list(range(x.ndim))
    dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
    return _op("permute")(x, dims)


def flatten(x, start_dim=0, end_dim=-1):
    """Merges dimensions start_dim..end_dim into one (a view when the layout allows)."""
    op = _op("flatten")
    if op is not None:
        return op(x, start_dim, end_dim)
    if x.ndim == 0:
        return _op("reshape")(x, [1])
    start, end = start_dim % x.ndim, end_dim % x.ndim
    merged = 1
    for s in x.shape[start:end + 1]:
        merged *= s
    return _op("reshape")(x, list(x.shape[:start]) + [merged] + list(x.shape[end + 1:]))


def flip(x, axes):
    """Reverses the order along each of ``axes`` (a view with negative strides)."""
    op = _op("flip")
    if op is not None:
        return op(x, axes)
    for a in ([axes] if isinstance(axes, int) else axes):
        x = x[(slice(None),) * (a % x.ndim) + (slice(None, None, -1),)]
    return x


def narrow(x, axis, start, length):
    """x[start:start+length] along ``axis`` (a view)."""
    op = _op("narrow")
    if op is not None:
        return op(x, axis, start, length)
    size = x.shape[axis]
    if start < -size or start >= size or length < 0 or (start % size) + length > size:
        raise IndexError(f"narrow: window start={start}, length={length} does not fit axis {axis} of size {size}")
    start %= size
    return _op("slice")(x, axis, start, start + length, 1)


def expand_as(x, other):
    """``x`` broadcast to ``other``'s shape (a view)."""
    return _op("broadcast_to")(x, other.shape)


def fill_(x, value):
    """Sets every element of ``x`` to ``value`` in place (through ``core::copy_``, so views, version
    counters and autograd behave as for any in-place write); returns ``x``."""
    _op("copy_")(x, value)  # the scalar becomes a 0-d tensor and is converted to x's dtype
    return x


def zero_(x):
    """Sets every element of ``x`` to zero in place; returns ``x``."""
    return fill_(x, 0)


for _fn in (mean, transpose, flatten, flip, narrow, expand_as, fill_, zero_):
    setattr(Tensor, _fn.__name__, _fn)
