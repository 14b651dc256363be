"""sp.amp.autocast: a context manager (and decorator) around the C++ autocast scope
(sampan/amp.h), which casts each op's floating arguments by the op's declared policy."""
import functools

from .. import _C


def _device_type(device):
    name = str(device)
    return name.split(":")[0]


class autocast:  # noqa: N801  (named as torch.autocast / paddle.amp.auto_cast users expect)
    """Mixed precision for the ops run inside it, on one device type.

    ``device``: 'cpu' or 'cuda' (an index is ignored: the scope covers the device type).
    ``dtype``: sp.bfloat16 or sp.float16; None gives the device's default (bfloat16 on the CPU,
    float16 on CUDA). ``enabled``: False opens a scope with autocast off (e.g. around a part that
    must stay float32). ``low_precision_ops``, ``float32_ops``: op names ('matmul',
    'core::softmax', a custom op's 'ns::name') moved between the lists for this scope, like
    Paddle's custom white and black lists.

    Inside, float32 arguments of low-precision ops (matmul, hence linear layers and einsum) are
    cast to ``dtype``; float16/bfloat16 arguments of float32 ops (sum, mean, softmax,
    log_softmax, exp, log, pow, norms, var/std, batch norm ...) are cast to float32; other ops
    run in the dtypes they get. Casts are recorded by autograd, so gradients reach the float32
    parameters in float32; a parameter cast once is reused until the outermost scope ends.
    Run backward after the scope ends (vjps compute in the dtypes the forward pass chose anyway).
    """

    def __init__(self, device="cpu", dtype=None, enabled=True, low_precision_ops=(), float32_ops=()):
        self.device = _device_type(device)
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"autocast: device must be 'cpu' or 'cuda', got {device!r}")
        self.dtype = dtype
        self.enabled = bool(enabled)
        self.low_precision_ops = [str(n) for n in low_precision_ops]
        self.float32_ops = [str(n) for n in float32_ops]
        self._scopes = []

    def __enter__(self):
        self._scopes.append(_C.amp.Scope(self.device, self.dtype, self.enabled, self.low_precision_ops,
                                         self.float32_ops))
        return self

    def __exit__(self, *exc):
        self._scopes[-1].close()  # raises, and keeps the scope, if one opened inside is still open
        self._scopes.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapped


def is_autocast_enabled(device="cpu"):
    """Whether ops on ``device`` run under autocast now (in this thread)."""
    return _C.amp.is_enabled(_device_type(device))


def get_autocast_dtype(device="cpu"):
    """The low-precision dtype autocast uses on ``device`` now (its default outside a scope)."""
    return _C.amp.dtype(_device_type(device))


def lists():
    """{'low_precision': [...], 'float32': [...]}: the ops each policy names, as declared by the
    ops themselves (custom ops included once their library is loaded)."""
    return {"low_precision": _C.amp.ops_with_policy("low_precision"), "float32": _C.amp.ops_with_policy("float32")}
