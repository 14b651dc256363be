"""sampan.testing: ``check_op`` (the generic op checker of C++, sampan::check_op) and
``assert_close`` for comparing tensors with NumPy-style tolerances."""
import numpy as np

from .. import _C
from .._C import Tensor

_OPTION_NAMES = ("eps", "atol", "rtol", "gradients", "second_order", "dtype_sweep", "determinism",
                 "cuda", "seed")


def check_op(op, *sample_args, **options):
    """Runs sampan's generic op checks on ``op`` (an op name such as "core::mul", or a function
    from ``sp.ops``) with ``sample_args`` (float64 tensors for smooth gradient checks): shape
    function vs outputs, first- and second-order gradients against finite differences, dtype
    sweep, in-place versions, determinism. Without ``sample_args`` it runs every sample the op
    declares (``.sample(...)`` in its SAMPAN_OP) and fails if it declares none.

    Options (keywords): eps, atol, rtol, gradients, second_order, dtype_sweep, determinism, cuda,
    seed. Returns a report with ``.ok``, ``.failures``, ``.notes`` and ``.summary()``.
    """
    name = op if isinstance(op, str) else getattr(op, "__sampan_op__", None)
    if name is None:
        raise TypeError(f"check_op expects an op name or a function of sampan.ops, got {op!r}")
    opts = _C.CheckOpOptions()
    for key, value in options.items():
        if key not in _OPTION_NAMES:
            raise TypeError(f"check_op got an unknown option '{key}' (options: {', '.join(_OPTION_NAMES)})")
        setattr(opts, key, value)
    return _C.check_op(name, *sample_args, options=opts)


def assert_close(actual, expected, rtol=1e-6, atol=1e-6, msg=""):
    """NumPy's assert_allclose on tensors or arrays (shapes must match exactly)."""
    a = actual.numpy() if isinstance(actual, Tensor) else np.asarray(actual)
    e = expected.numpy() if isinstance(expected, Tensor) else np.asarray(expected)
    if a.shape != e.shape:
        raise AssertionError(f"shape mismatch: {a.shape} vs {e.shape}. {msg}")
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=msg)
