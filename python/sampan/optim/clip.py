"""Gradient clipping, in place on ``.grad``."""
import math

import sampan
from .._C import Tensor


def _grads(parameters):
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def _largest_magnitude(g):
    """max |g| as a float (on a GPU through ops that have CUDA kernels there)."""
    if g.device == "cpu":
        return float(sampan.amax(sampan.abs(g)))
    return float(sampan.amax(sampan.where(g < 0, -g, g)))


def _norm_power(g, norm_type):
    """||g||^p as a float. On a GPU the 2-norm's square is the sum of squares (each square
    rounded in g's dtype, the sum accumulated as core::norm accumulates it); other orders are the
    CPU's only for now."""
    if g.device == "cpu":
        return float(sampan.norm(g, norm_type)) ** norm_type
    if norm_type == 2.0:
        return float(sampan.sum(sampan.square(g)))
    raise NotImplementedError(f"clip_grad_norm_: norm_type {norm_type} for gradients on {g.device} "
                              "(2 and inf run there; move the gradients to the CPU for others)")


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales all gradients together so that their joint ``norm_type`` norm is at most
    ``max_norm`` (factor max_norm / (norm + 1e-6), as PyTorch); returns the norm before clipping
    as a 0-d float64 tensor."""
    grads = _grads(parameters)
    norm_type = float(norm_type)
    if not grads:
        return sampan.scalar_tensor(0.0, dtype=sampan.float64)
    with sampan.no_grad():
        if math.isinf(norm_type):
            total = max(_largest_magnitude(g) for g in grads)
        else:
            total = sum(_norm_power(g, norm_type) for g in grads) ** (1.0 / norm_type)
        if error_if_nonfinite and not math.isfinite(total):
            raise RuntimeError(f"clip_grad_norm_: the total gradient norm of order {norm_type} is {total}; "
                               "pass error_if_nonfinite=False to clip anyway")
        coef = float(max_norm) / (total + 1e-6)
        if coef < 1.0:
            for g in grads:
                g.mul_(coef)
    return sampan.scalar_tensor(total, dtype=sampan.float64)


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient element into [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with sampan.no_grad():
        for g in _grads(parameters):
            sampan.clamp_(g, -clip_value, clip_value)
