"""Making tensors: from Python data (``tensor``), sharing NumPy memory (``from_numpy``), and
filled ones (``zeros``, ``full``, ``arange`` ...).

dtype inference of ``sp.tensor`` for Python data follows PyTorch rather than NumPy for floats:
bool -> bool, int -> int64, float -> float32, complex -> complex64 (NumPy would give float64 and
complex128). NumPy arrays and NumPy scalars keep their dtype (float64 stays float64); NumPy
dtypes sampan lacks are widened: int8/int16/uint8/uint16 -> int32, uint32/uint64 -> int64.
"""
import builtins
import numbers
import operator

import numpy as np

from . import _C
from ._C import Tensor
from ._device import device_argument

# NumPy dtypes whose memory a tensor can share as is.
_SHARABLE = frozenset(np.dtype(n) for n in (
    "bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"))

# NumPy integer types sampan has no dtype for, and the dtype their values fit in.
_WIDEN = {
    np.dtype("int8"): "int32", np.dtype("int16"): "int32", np.dtype("uint8"): "int32",
    np.dtype("uint16"): "int32", np.dtype("uint32"): "int64", np.dtype("uint64"): "int64",
}

# What Python scalars become without a dtype (PyTorch's defaults).
_PYTHON_DEFAULTS = {"b": "bool", "i": "int64", "u": "int64", "f": "float32", "c": "complex64"}

_full = _C.OpHandle("core::full")
_arange = _C.OpHandle("core::arange")


def place(t, device, who):
    """``t`` moved to ``device`` (None or t's own: t itself), before requires_grad is set, so
    the result is a leaf; what every creation function's ``device=`` does with data made here."""
    device = device_argument(device, who)
    return t if device is None or device == t.device else t._to_device(device)


def _as_dtype(dtype):
    return None if dtype is None else _C.dtype(dtype)


def from_numpy(array):
    """A tensor sharing memory with the NumPy array ``array`` (writes through either are seen by
    both; the array is kept alive while the tensor or a view of it lives).

    Any strides are shared, negative ones too. Only dtypes sampan has can be shared (bool, int32,
    int64, float16, float32, float64, complex64, complex128); use ``sp.tensor`` to convert others.
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    if not array.dtype.isnative:
        raise TypeError(f"from_numpy: the array is {array.dtype.str} (non-native byte order); "
                        "sp.tensor(array) converts it")
    if array.dtype not in _SHARABLE:
        raise TypeError(f"from_numpy: NumPy dtype {array.dtype} has no sampan counterpart to share "
                        "memory with (bool, int32, int64, float16, float32, float64, complex64, "
                        "complex128); sp.tensor(array) converts it")
    return _C._from_buffer(array)


def _infer_numpy_array(data):
    """``data`` as a NumPy array with the dtype sampan infers for it (see the module doc)."""
    if isinstance(data, (np.ndarray, np.generic)):
        arr = np.asarray(data)
        if arr.dtype in _WIDEN:
            arr = arr.astype(_WIDEN[arr.dtype])
        return arr, None
    try:
        arr = np.asarray(data)
    except ValueError as err:  # NumPy 2 refuses ragged nesting itself
        raise ValueError(f"sp.tensor: cannot build a tensor from ragged data ({err})") from None
    if arr.dtype == object:
        raise ValueError("sp.tensor: cannot build a tensor from ragged or non-numeric data "
                         f"(NumPy made an object array of shape {arr.shape})")
    kind = arr.dtype.kind
    if kind not in _PYTHON_DEFAULTS:
        raise TypeError(f"sp.tensor: cannot build a tensor from data of NumPy dtype {arr.dtype}")
    return arr, _PYTHON_DEFAULTS[kind]


def tensor(data, dtype=None, requires_grad=False, device=None):
    """A new tensor holding a copy of ``data`` (nested lists, Python or NumPy scalars, NumPy
    arrays, tensors) on ``device`` (the CPU, or a tensor's own device, unless given). Without
    ``dtype``, Python data gives bool, int64, float32 or complex64 and NumPy data keeps its dtype
    (see the module doc)."""
    dtype = _as_dtype(dtype)
    if isinstance(data, Tensor):
        t = data.detach().clone()
        if dtype is not None:
            t = t._to_dtype(dtype)
    else:
        arr, inferred = _infer_numpy_array(data)
        target = dtype if dtype is not None else _C.dtype(inferred or arr.dtype.name)
        # NumPy has no bfloat16: go through float32 and convert in sampan.
        np_target = np.float32 if target == _C.bfloat16 else np.dtype(target.name)
        arr = np.asarray(arr, dtype=np_target, order="C")  # keeps 0-d (ascontiguousarray would not)
        t = _C._from_buffer(arr).clone()
        if target == _C.bfloat16:
            t = t._to_dtype(target)
    t = place(t, device, "sp.tensor")
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_tensor(data, dtype=None):
    """``data`` as a tensor without copying when it already is one (of ``dtype``) or is a NumPy
    array sampan can share; otherwise like ``sp.tensor``."""
    dtype = _as_dtype(dtype)
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == dtype else data._to_dtype(dtype)
    if (isinstance(data, np.ndarray) and data.dtype in _SHARABLE and data.dtype.isnative
            and (dtype is None or dtype == data.dtype)):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def _shape_arg(shape, where):
    """zeros(2, 3), zeros((2, 3)) and zeros([2, 3]) all mean shape (2, 3)."""
    if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
        shape = shape[0]
    try:
        return tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{where}: shape must be integers, got {shape!r}") from None


def _scalar_dtype(value):
    """The dtype a fill value implies without an explicit one."""
    if isinstance(value, (builtins.bool, np.bool_)):
        return _C.bool
    if isinstance(value, numbers.Integral):
        return _C.int64
    if isinstance(value, numbers.Real):
        return _C.float32
    if isinstance(value, numbers.Complex):
        return _C.complex64
    raise TypeError(f"fill value must be a number, got {type(value).__name__}")


def full(shape, fill_value, dtype=None, requires_grad=False, device=None):
    """A tensor of ``shape`` filled with ``fill_value`` (dtype inferred from the value when not
    given: bool, int64, float32 or complex64), on the CPU unless ``device`` (on a GPU it is
    filled there: sampan::full)."""
    dtype = _as_dtype(dtype) or _scalar_dtype(fill_value)
    shape = _shape_arg((shape,), "full")
    device = device_argument(device, "full")
    if isinstance(fill_value, numbers.Complex) and not isinstance(fill_value, numbers.Real):
        t = _full(shape, 0.0, dtype.name) + _C._scalar_tensor(fill_value, _full((), 0.0, dtype.name))
        t = place(t, device, "full")
    elif device is not None and device != "cpu":
        t = _C._full_on(shape, float(fill_value), dtype.name, device)
    else:
        t = _full(shape, float(fill_value), dtype.name)
    if requires_grad:
        t.requires_grad_(True)
    return t


def zeros(*shape, dtype=None, requires_grad=False, device=None):
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``; float32 unless ``dtype``."""
    return full(_shape_arg(shape, "zeros"), 0.0, dtype or _C.float32, requires_grad, device)


def ones(*shape, dtype=None, requires_grad=False, device=None):
    """A tensor of ones: ``ones(2, 3)`` or ``ones((2, 3))``; float32 unless ``dtype``."""
    return full(_shape_arg(shape, "ones"), 1.0, dtype or _C.float32, requires_grad, device)


def empty(*shape, dtype=None, requires_grad=False, device=None):
    """A tensor to be overwritten. sampan fills it with zeros (no uninitialized memory)."""
    return full(_shape_arg(shape, "empty"), 0.0, dtype or _C.float32, requires_grad, device)


# The *_like functions make their tensor on x's device unless told otherwise, as PyTorch's do.
def full_like(x, fill_value, dtype=None, requires_grad=False, device=None):
    return full(x.shape, fill_value, dtype or x.dtype, requires_grad, device or x.device)


def zeros_like(x, dtype=None, requires_grad=False, device=None):
    return full(x.shape, 0.0, dtype or x.dtype, requires_grad, device or x.device)


def ones_like(x, dtype=None, requires_grad=False, device=None):
    return full(x.shape, 1.0, dtype or x.dtype, requires_grad, device or x.device)


def scalar_tensor(value, dtype=None, requires_grad=False, device=None):
    """A 0-d tensor holding ``value``."""
    return tensor(value, dtype=dtype, requires_grad=requires_grad, device=device)


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; ``arange(n)`` is 0 .. n-1.
    int64 when all bounds are integers, else float32, unless ``dtype``."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = _C.int64 if integral else _C.float32
    # made where asked: the op's device attribute (its CUDA kernel on a GPU)
    t = _arange(float(start), float(end), float(step), _C.dtype(dtype).name, device_argument(device, "arange") or "cpu")
    if requires_grad:
        t.requires_grad_(True)
    return t


_C._set_tensor_factory(tensor)
