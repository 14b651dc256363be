"""Python-level Tensor methods: printing, NumPy interop, Python number protocols, conversions.

The C++ binding (python/bindings/tensor_binding.cpp) gives layout, autograd state and the
buffer export; what reads better in Python lives here and is attached to ``_C.Tensor``.
Op methods (``x.exp()``, ``x.sum(...)``) are generated from the op registry by ``_ops.py``;
operators by ``_operators.py``; indexing by ``_indexing.py``.
"""
import numpy as np

from . import _C
from ._C import Tensor
from ._device import DEVICE_NAMES as _DEVICE_NAMES, device_name as _device_name



def numpy(self):
    """A NumPy array sharing this tensor's memory (writes show in both; the tensor is kept alive
    by the array). bfloat16 has no NumPy counterpart: it gives a float32 copy instead."""
    if self.dtype == _C.bfloat16:
        return self.detach()._to_dtype(_C.float32).numpy()
    return np.asarray(memoryview(self))


def __array__(self, dtype=None, copy=None):  # noqa: N807 (NumPy protocol)
    arr = numpy(self)
    if dtype is not None and np.dtype(dtype) != arr.dtype:
        if copy is False:
            raise ValueError(f"converting a {self.dtype} tensor to {np.dtype(dtype)} needs a copy")
        return arr.astype(dtype)
    return arr.copy() if copy else arr


def tolist(self):
    """Nested Python lists of Python numbers (a number for a 0-d tensor); a GPU tensor is copied
    to the CPU first."""
    t = self.detach()
    return numpy(t if t.device == "cpu" else t._to_device("cpu")).tolist()


def _repr(self):
    if self.is_meta:
        return self._repr_header()
    arr = numpy(self.detach() if self.device == "cpu" else self.detach()._to_device("cpu"))
    body = np.array2string(arr, separator=", ", prefix="tensor(", threshold=1000, edgeitems=3)
    extras = []
    if arr.size == 0 and arr.ndim != 1:
        extras.append(f"shape={arr.shape}")
    extras.append(f"dtype={self.dtype}")
    if self.device != "cpu":
        extras.append(f"device={self.device}")
    if self.grad_fn is not None:
        extras.append(f"grad_fn=<{self.grad_fn.name()}>")
    elif self.requires_grad:
        extras.append("requires_grad=True")
    return f"tensor({body}, {', '.join(extras)})"


def __len__(self):  # noqa: N807
    if self.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self.shape[0]


def __iter__(self):  # noqa: N807
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    for i in range(self.shape[0]):
        yield self[i]


def __bool__(self):  # noqa: N807
    if self.numel() != 1:
        raise ValueError(f"the truth value of a tensor with {self.numel()} elements is ambiguous; "
                         "use .any() or .all()")
    return bool(self.item())


def __float__(self):  # noqa: N807
    return float(self.item())


def __int__(self):  # noqa: N807
    value = self.item()
    return int(value.real if isinstance(value, complex) else value)


def __complex__(self):  # noqa: N807
    return complex(self.item())


def __index__(self):  # noqa: N807
    if self.dtype not in (_C.int32, _C.int64, _C.bool) or self.numel() != 1:
        raise TypeError(f"only integer tensors of one element can be used as an index, got a "
                        f"{self.dtype} tensor of shape {self.shape}")
    return int(self.item())


def __format__(self, spec):  # noqa: N807
    if self.ndim == 0 and spec:
        return format(self.item(), spec)
    return _repr(self)


def _is_dtype_name(name):
    try:
        _C.dtype(name)
        return True
    except (TypeError, ValueError):
        return False


def parse_to_arguments(args, dtype, device, who):
    """The (dtype, device) that ``to(*args, dtype=..., device=...)`` asks for, either None: a
    string is a device ('cpu', 'cuda', 'cuda:N') or a dtype name, a Tensor gives its dtype,
    anything else is a dtype. Shared by Tensor.to and Module.to."""
    for a in args:
        if isinstance(a, str) and a.split(":")[0] in _DEVICE_NAMES:
            device = a
        elif isinstance(a, str) and not _is_dtype_name(a):
            raise ValueError(f"{who}: '{a}' is neither a device ('cpu', 'cuda', 'cuda:N') nor a dtype "
                             f"(bool, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)")
        elif isinstance(a, Tensor):
            dtype = a.dtype
        else:
            dtype = a
    return dtype, (None if device is None else _device_name(device))


def to(self, *args, dtype=None, device=None, copy=False):
    """Converts dtype and moves between devices: ``x.to(sp.float64)``, ``x.to('float64')``,
    ``x.to('cuda')``, ``x.to('cpu')``, ``x.to('cuda', sp.float32)``, ``x.to(dtype=...)``.
    Returns self when nothing changes unless ``copy``. Both steps stay in the autograd graph."""
    dtype, device = parse_to_arguments(args, dtype, device, "Tensor.to")
    t = self
    changed = False
    if dtype is not None and _C.dtype(dtype) != t.dtype:
        t, changed = t._to_dtype(dtype), True  # on the CPU, before the copy, when both change
    if device is not None and device != t.device:
        t, changed = t._to_device(device), True
    return t.clone() if copy and not changed else t


def cpu(self):
    """This tensor on the CPU (itself when it is there)."""
    return to(self, "cpu")


def cuda(self):
    """This tensor on the GPU, cuda:0 (itself when it is there); see ``sampan.cuda``."""
    return to(self, "cuda")


def _converter(dtype):
    def convert(self):
        return to(self, dtype)
    convert.__name__ = str(dtype)
    convert.__doc__ = f"This tensor as {dtype} (self when it already is)."
    return convert


def _reverse_dims(self):
    """The tensor with its dimensions reversed (NumPy's .T)."""
    return self.permute(tuple(range(self.ndim - 1, -1, -1)))


def _swap_last_two(self):
    """Each matrix of the batch transposed (swaps the last two dimensions)."""
    if self.ndim < 2:
        raise ValueError(f"mT needs a tensor of at least 2 dimensions, got shape {self.shape}")
    dims = list(range(self.ndim))
    dims[-1], dims[-2] = dims[-2], dims[-1]
    return self.permute(dims)


def _part(op_name, doc):
    def get(self):
        from ._ops import function as op_function
        fn = op_function(op_name)
        if fn is None:
            raise NotImplementedError(f"{op_name} is not registered")
        return fn(self)
    return property(get, doc=doc)


def _rebuild(array, dtype_name, requires_grad):
    from ._creation import tensor
    return tensor(array, dtype=dtype_name, requires_grad=requires_grad)


def __reduce__(self):  # noqa: N807 (pickle and copy.deepcopy: the values, dtype and flag)
    return (_rebuild, (numpy(self.detach()).copy(), self.dtype.name, self.requires_grad and self.is_leaf))


_METHODS = {
    "numpy": numpy, "__array__": __array__, "tolist": tolist, "__repr__": _repr, "__str__": _repr,
    "__len__": __len__, "__iter__": __iter__, "__bool__": __bool__, "__float__": __float__,
    "__int__": __int__, "__complex__": __complex__, "__index__": __index__,
    "__format__": __format__, "to": to, "cpu": cpu, "cuda": cuda, "__reduce__": __reduce__,
    "float": _converter(_C.float32), "double": _converter(_C.float64),
    "half": _converter(_C.float16), "bfloat16": _converter(_C.bfloat16),
    "int": _converter(_C.int32), "long": _converter(_C.int64), "bool": _converter(_C.bool),
    "T": property(_reverse_dims), "mT": property(_swap_last_two),
    # properties as in NumPy and PyTorch (copies here, not views)
    "real": _part("core::real", "The real part (a copy; the values for real tensors)."),
    "imag": _part("core::imag", "The imaginary part (a copy; zeros for real tensors)."),
    # NumPy defers `ndarray <op> tensor` to the tensor's reflected operator.
    "__array_priority__": 1000,
}

for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
