"""Autograd API: ``grad``, ``backward``, and the grad-mode switches ``no_grad``, ``enable_grad``,
``set_grad_enabled`` (context managers and decorators). Grad mode is per thread.
"""
import functools

from . import _C
from ._C import Tensor


def _as_tuple(x, what):
    if isinstance(x, Tensor):
        return (x,), True
    if x is None:
        return None, False
    try:
        return tuple(x), False
    except TypeError:
        raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, got {type(x).__name__}") from None


def grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None,
         allow_unused=False):
    """Gradients of ``outputs`` with respect to ``inputs`` (sum over outputs of
    grad_output . d output / d input), without touching ``.grad``.

    outputs, inputs: a Tensor or a sequence of Tensors. grad_outputs: one per output (None for a
    one-element output means 1). create_graph=True makes the result differentiable again
    (double backward). retain_graph defaults to create_graph, as in PyTorch. Returns a tuple with
    one entry per input (None for an unused input when allow_unused=True).
    """
    outs, _ = _as_tuple(outputs, "grad(outputs)")
    ins, _ = _as_tuple(inputs, "grad(inputs)")
    gouts, _ = _as_tuple(grad_outputs, "grad(grad_outputs)")
    if retain_graph is None:
        retain_graph = create_graph
    return _C.grad(outs, ins, gouts, create_graph, retain_graph, allow_unused)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    """Accumulates gradients of ``tensors`` into the leaves' ``.grad`` (like Tensor.backward for
    several outputs at once)."""
    outs, _ = _as_tuple(tensors, "backward(tensors)")
    gouts, _ = _as_tuple(grad_tensors, "backward(grad_tensors)")
    if retain_graph is None:
        retain_graph = create_graph
    _C.backward(outs, gouts, retain_graph, create_graph)


def set_saved_tensor_selection(enabled):
    """True (the default): the tape keeps only the tensors each op's gradient reads, so
    intermediates nobody else holds are freed during the forward pass; False: it keeps every
    argument and output of every recorded op (to measure what the selection saves). Process-wide."""
    _C.set_saved_tensor_selection(bool(enabled))


def saved_tensor_selection_enabled():
    """Whether the tape keeps only what each gradient reads (see set_saved_tensor_selection)."""
    return _C.saved_tensor_selection_enabled()


def set_buffer_donation(enabled):
    """True (the default): an op that declares it (elementwise ops, relu's and tanh's gradients)
    may write its output over an input buffer that nothing but its call holds, on the CPU. In a
    backward pass the gradients flowing between vjps are such buffers. False: every output gets a
    fresh buffer (to measure what donation saves). Process-wide."""
    _C.set_buffer_donation(bool(enabled))


def buffer_donation_enabled():
    """Whether buffer donation is on (see set_buffer_donation)."""
    return _C.buffer_donation_enabled()


def is_grad_enabled():
    """Whether ops record the autograd graph in this thread."""
    return _C.grad_mode_enabled()


class set_grad_enabled:  # noqa: N801 (a context manager used like a function, as in PyTorch)
    """Sets grad mode on construction; as a context manager restores the previous mode on exit;
    as a decorator runs the function in that mode."""

    def __init__(self, mode):
        self.prev = _C.grad_mode_enabled()
        self.mode = bool(mode)
        _C.set_grad_mode(self.mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C.set_grad_mode(self.prev)
        return False

    def __call__(self, fn):
        # Used as a decorator: construction already switched the mode; undo that and switch per call.
        _C.set_grad_mode(self.prev)
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _GradMode(mode):
                return fn(*args, **kwargs)
        return wrapper


class _GradMode:
    """Switches grad mode on __enter__ (not on construction) and restores it on __exit__."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = _C.grad_mode_enabled()
        _C.set_grad_mode(self.mode)
        return self

    def __exit__(self, *exc):
        _C.set_grad_mode(self.prev)
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _GradMode(mode):
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):  # noqa: N801
    """Context manager and decorator: ops inside record no graph (``with sp.no_grad(): ...``,
    ``@sp.no_grad()``)."""

    def __init__(self):
        super().__init__(False)


class enable_grad(_GradMode):  # noqa: N801
    """Context manager and decorator: ops inside record the graph, even within no_grad."""

    def __init__(self):
        super().__init__(True)
