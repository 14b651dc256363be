"""Adam (Kingma and Ba, 2015) and AdamW (Loshchilov and Hutter, 2019)."""
import math

import sampan
from .optimizer import Optimizer

_FUSED_DTYPES = (sampan.float32, sampan.float64)


def _adam_update_(*args):
    return sampan.ops.core.adam_update_(*args)


class Adam(Optimizer):
    """With g = grad (+ weight_decay * p, L2 regularization folded into the gradient)::

      m <- b1 m + (1 - b1) g;   v <- b2 v + (1 - b2) g^2;   t <- t + 1
      p <- p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)

    amsgrad uses the running maximum of v (Reddi et al., 2018). State: "step" (int), "exp_avg",
    "exp_avg_sq" (and "max_exp_avg_sq")."""

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
                 maximize=False):
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))

    def _check_group(self, group):
        super()._check_group(group)
        name = type(self).__name__
        b1, b2 = group["betas"]
        if not (0.0 <= b1 < 1.0 and 0.0 <= b2 < 1.0):
            raise ValueError(f"{name}: betas must be in [0, 1), got {group['betas']}")
        if group["eps"] < 0:
            raise ValueError(f"{name}: eps must be >= 0, got {group['eps']}")
        if group["weight_decay"] < 0:
            raise ValueError(f"{name}: weight_decay must be >= 0, got {group['weight_decay']}")
        for p in group["params"]:
            if p.dtype.is_complex:
                raise TypeError(f"{name}: complex parameters are not supported; optimize the real and "
                                "imaginary parts as two real parameters")

    def _update(self, group, param, grad, state):
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if "exp_avg" not in state:
            state["step"] = 0
            state["exp_avg"] = sampan.zeros_like(param)
            state["exp_avg_sq"] = sampan.zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = sampan.zeros_like(param)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        if (not group["amsgrad"] and param.dtype in _FUSED_DTYPES and grad.dtype == param.dtype
                and param.is_contiguous() and m.is_contiguous() and v.is_contiguous()):
            # One fused pass (core::adam_update_) instead of ~13 elementwise ops with temporaries.
            state["step"] += 1
            _adam_update_(param, grad, m, v, float(lr), float(b1), float(b2), float(eps), float(wd),
                          int(state["step"]), self._decoupled, bool(group["maximize"]))
            return
        g = -grad if group["maximize"] else grad
        if wd:
            if self._decoupled:
                param.mul_(1.0 - lr * wd)  # AdamW: decay the weights, not the gradient
            else:
                g = g + param * wd
        state["step"] += 1
        t = state["step"]
        m.mul_(b1).add_(g * (1.0 - b1))
        v.mul_(b2).add_(g * g * (1.0 - b2))
        if group["amsgrad"]:
            v_max = state["max_exp_avg_sq"]
            sampan.copy_(v_max, sampan.maximum(v_max, v))
            v = v_max
        bias_correction1 = 1.0 - b1 ** t
        bias_correction2 = 1.0 - b2 ** t
        denom = sampan.sqrt(v) * (1.0 / math.sqrt(bias_correction2)) + eps
        param.sub_(m / denom * (lr / bias_correction1))


class AdamW(Adam):
    """Adam with decoupled weight decay: p <- p (1 - lr * weight_decay) before the Adam step
    (default weight_decay 0.01)."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)
