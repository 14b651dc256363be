"""Gradient clipping, in place on ``.grad``."""
import math

import sampan
from .._C import Tensor


def _grads(parameters):
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


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
            total = max(float(sampan.amax(sampan.abs(g))) for g in grads)
        else:
            total = sum(float(sampan.norm(g, norm_type)) ** norm_type for g in grads) ** (1.0 / norm_type)
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
