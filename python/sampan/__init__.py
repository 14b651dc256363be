"""sampan: an autodiff tensor engine with a C++ core.

    import sampan as sp
    x = sp.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    x.grad                      # tensor([[2., 4.], [6., 8.]], dtype=float32)

Every registered op is a function here and in ``sp.ops.<namespace>`` (generated from the op
registry, see ``sampan/_ops.py``); ops of namespace ``core`` are also Tensor methods.
"""
from ._wait_policy import passive_by_default

with passive_by_default():  # OpenMP threads sleep at a barrier rather than spin (see the module)
    from . import _C
from ._C import (  # noqa: F401
    Tensor, dtype, promote_types, set_num_threads, get_num_threads, blas_library, blas_num_threads,
    bf16_gemm_library,
)

__version__ = _C.__version__

# dtypes: one object each (``x.dtype is sp.float32``); they compare equal to their names.
bool = _C.bool  # noqa: A001 (shadows the builtin inside this namespace only, as torch.bool)
int32 = _C.int32
int64 = _C.int64
float16 = _C.float16
bfloat16 = _C.bfloat16
float32 = _C.float32
float64 = _C.float64
complex64 = _C.complex64
complex128 = _C.complex128
half = float16
double = float64
long = int64

from . import _tensor  # noqa: E402  (Python-level Tensor methods: repr, numpy, tolist ...)
from ._creation import (  # noqa: E402
    tensor, as_tensor, from_numpy, zeros, ones, full, empty, zeros_like, ones_like, full_like,
    arange, scalar_tensor,
)
from .autograd import grad, no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: E402
from ._functions import mean, einsum, transpose, flatten, flip, narrow, expand_as  # noqa: E402
from ._random import (  # noqa: E402
    Generator, default_generator, manual_seed, initial_seed, rand, randn, randint, randperm,
    bernoulli, rand_like, randn_like, normal, uniform,
)
from . import _indexing  # noqa: E402  (Tensor.__getitem__ / __setitem__)
from . import _ops  # noqa: E402

ops = _ops.ops
ops._refresh()  # generates sp.ops.<ns>.<name>, top-level functions and Tensor methods

from . import utils, testing, cuda, profiler  # noqa: E402
from .utils.cpp_extension import load_op_library  # noqa: E402  (a built op library's ops)
from .io import save, load  # noqa: E402  (checkpoints in HDF5)

# Subpackages that other modules add (sp.nn, sp.optim ...) load on first use.
_LAZY_SUBPACKAGES = ("nn", "optim", "io", "distributed", "quantum", "deepmd", "helix")
# The high-level training API (sp.Model, sp.metric, sp.callbacks) loads on first use too.
_LAZY_SUBPACKAGES += ("hapi", "metric", "callbacks", "jit", "amp")
_LAZY_NAMES = {"Model": "hapi"}  # name -> the subpackage that defines it


def __getattr__(name):
    if name in _LAZY_SUBPACKAGES:
        import importlib
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_NAMES:
        import importlib
        return getattr(importlib.import_module(f".{_LAZY_NAMES[name]}", __name__), name)
    raise AttributeError(f"module 'sampan' has no attribute '{name}'")
