"""Stochastic gradient descent with momentum (PyTorch's formulation)."""
from .optimizer import Optimizer


class SGD(Optimizer):
    """p <- p - lr * d, where with g = grad + weight_decay * p::

      momentum = 0:  d = g
      momentum > 0:  b <- momentum * b + (1 - dampening) * g   (b = g on the first step)
                     d = b, or g + momentum * b with nesterov (Sutskever et al. 2013).

    maximize: ascend instead (g = -grad)."""

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                 maximize=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    def _check_group(self, group):
        super()._check_group(group)
        if group["momentum"] < 0:
            raise ValueError(f"SGD: momentum must be >= 0, got {group['momentum']}")
        if group["weight_decay"] < 0:
            raise ValueError(f"SGD: weight_decay must be >= 0, got {group['weight_decay']}")
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("SGD: nesterov needs momentum > 0 and dampening = 0")

    def _update(self, group, param, grad, state):
        g = -grad if group["maximize"] else grad
        if group["weight_decay"]:
            g = g + param * group["weight_decay"]
        momentum = group["momentum"]
        if momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(g * (1.0 - group["dampening"]))
            g = g + buf * momentum if group["nesterov"] else buf
        param.sub_(g * group["lr"])
