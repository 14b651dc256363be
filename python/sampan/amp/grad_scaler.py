"""sp.amp.GradScaler: dynamic loss scaling for float16 training (Micikevicius et al. 2018, as
PyTorch's GradScaler and Paddle's GradScaler): the loss is multiplied by a scale before backward
so small float16 gradients do not flush to zero; before the step the gradients are divided by
it, and a step whose gradients hold an inf or NaN is skipped and the scale backed off. After
``growth_interval`` clean steps the scale grows again."""
import math

import sampan
from .._C import Tensor

_STATE_KEYS = ("scale", "growth_factor", "backoff_factor", "growth_interval", "growth_tracker")


def _count_nonfinite(t):
    return int(sampan.sum(sampan.logical_not(sampan.isfinite(t))))


class GradScaler:
    """init_scale: the first scale (2**16, as PyTorch); growth_factor, backoff_factor: what the
    scale is multiplied by after ``growth_interval`` steps without an overflow, and after a step
    with one; enabled=False makes every method a pass-through (one code path for float32 and
    AMP runs). bfloat16 has float32's range and needs no scaling: ``enabled=False`` there."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        if not (init_scale > 0 and math.isfinite(init_scale)):
            raise ValueError(f"GradScaler: init_scale must be a positive finite number, got {init_scale!r}")
        if not growth_factor > 1.0:
            raise ValueError(f"GradScaler: growth_factor must be > 1, got {growth_factor!r}")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError(f"GradScaler: backoff_factor must be in (0, 1), got {backoff_factor!r}")
        if int(growth_interval) != growth_interval or growth_interval < 1:
            raise ValueError(f"GradScaler: growth_interval must be a positive integer, got {growth_interval!r}")
        self._enabled = bool(enabled)
        self._scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._per_optimizer = {}  # id(optimizer) -> {"unscaled": bool, "found_inf": bool}
        self.skipped_steps = 0    # steps skipped because of inf/NaN gradients, over the scaler's life

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        """The current scale (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        """``outputs`` (a Tensor, or a list/tuple of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise TypeError(f"GradScaler.scale: expected a Tensor or a list/tuple of Tensors, got {type(outputs).__name__}")

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"unscaled": False, "found_inf": False})

    def unscale_(self, optimizer):
        """Divides the gradients of ``optimizer``'s parameters by the scale, in place, and notes
        whether any is inf or NaN (call it before clipping gradients). Once per step."""
        if not self._enabled:
            return
        st = self._state(optimizer)
        if st["unscaled"]:
            raise RuntimeError("GradScaler.unscale_: already called for this optimizer since the last update()")
        inv = 1.0 / self._scale
        found = False
        with sampan.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    g.mul_(inv)
                    found = found or _count_nonfinite(g) > 0
        st["unscaled"], st["found_inf"] = True, found

    def step(self, optimizer, *args, **kwargs):
        """Unscales (unless ``unscale_`` was called) and steps ``optimizer``, or skips the step when
        a gradient is inf or NaN. Returns the optimizer's return value, None when skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        st = self._state(optimizer)
        if not st["unscaled"]:
            self.unscale_(optimizer)
        if st["found_inf"]:
            self.skipped_steps += 1
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Ends the step: backs the scale off if any optimizer saw inf/NaN, grows it after
        ``growth_interval`` clean steps; ``new_scale`` sets it instead."""
        if not self._enabled:
            return
        if new_scale is not None:
            new_scale = float(new_scale)
            if not (new_scale > 0 and math.isfinite(new_scale)):
                raise ValueError(f"GradScaler.update: new_scale must be a positive finite number, got {new_scale!r}")
            self._scale = new_scale
            self._growth_tracker = 0
        elif any(st["found_inf"] for st in self._per_optimizer.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                self._scale *= self._growth_factor
                self._growth_tracker = 0
        self._per_optimizer = {}

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval, growth_tracker (for
        checkpoints; empty when disabled, as PyTorch)."""
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "growth_tracker": self._growth_tracker}

    def load_state_dict(self, state):
        if not state:
            return
        missing = [k for k in _STATE_KEYS if k not in state]
        if missing:
            raise ValueError(f"GradScaler.load_state_dict: the state lacks {', '.join(missing)} "
                             f"(expected {', '.join(_STATE_KEYS)}; found {', '.join(sorted(state))})")
        self._scale = float(state["scale"])
        self._growth_factor = float(state["growth_factor"])
        self._backoff_factor = float(state["backoff_factor"])
        self._growth_interval = int(state["growth_interval"])
        self._growth_tracker = int(state["growth_tracker"])
