"""Learning-rate schedules. Each is a closed form lr(step) of the step count, so a schedule can
jump to any step (resuming from a checkpoint) and one can wrap another (LinearWarmup).

Usage: create the scheduler after the optimizer (it sets the step-0 learning rate at once),
then call ``scheduler.step()`` after each ``optimizer.step()``.
"""
import math

from .optimizer import Optimizer


class LRScheduler:
    """Base class: subclasses define ``lr_at(step, base_lr)``. The base learning rate of each
    group is its "initial_lr" (set from "lr" by the first scheduler attached)."""

    def __init__(self, optimizer):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(self).__name__}: expected an Optimizer, got {type(optimizer).__name__}")
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_step = 0
        self._apply()

    def lr_at(self, step, base_lr):
        raise NotImplementedError

    def _apply(self):
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = self.lr_at(self.last_step, base)

    def step(self, step=None):
        """Advances one step (or jumps to ``step``) and sets the groups' learning rates."""
        self.last_step = self.last_step + 1 if step is None else int(step)
        self._apply()

    def get_last_lr(self):
        """The learning rate of each group, as last set."""
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self):
        """Everything but the optimizer (sampan.save writes it)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer" and not isinstance(v, LRScheduler)}

    def load_state_dict(self, state_dict):
        self.__dict__.update({k: v for k, v in state_dict.items() if k != "optimizer"})
        self._apply()


class ExponentialDecay(LRScheduler):
    """lr = start_lr * decay_rate ** (step / decay_steps): DeePMD's exponential decay.

    staircase=True uses floor(step / decay_steps) (DeePMD's default, stepwise). Give either
    ``decay_rate`` or ``stop_lr`` with ``stop_steps``: then decay_rate = (stop_lr / start_lr) **
    (decay_steps / stop_steps), so that lr reaches stop_lr at stop_steps (DeePMD's input
    parameters). ``min_lr`` bounds the rate from below. ``start_lr`` defaults to each group's lr.
    """

    def __init__(self, optimizer, decay_steps, decay_rate=None, stop_lr=None, stop_steps=None, start_lr=None,
                 staircase=False, min_lr=0.0):
        if not decay_steps > 0:
            raise ValueError(f"ExponentialDecay: decay_steps must be positive, got {decay_steps}")
        if (decay_rate is None) == (stop_lr is None):
            raise ValueError("ExponentialDecay: give exactly one of decay_rate, or stop_lr with stop_steps")
        if stop_lr is not None and not (stop_steps and stop_steps > 0 and stop_lr > 0):
            raise ValueError(f"ExponentialDecay: stop_lr needs a positive stop_lr and stop_steps, got "
                             f"stop_lr={stop_lr}, stop_steps={stop_steps}")
        if decay_rate is not None and not decay_rate > 0:
            raise ValueError(f"ExponentialDecay: decay_rate must be positive, got {decay_rate}")
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.stop_lr = stop_lr
        self.stop_steps = stop_steps
        self.start_lr = start_lr
        self.staircase = staircase
        self.min_lr = min_lr
        super().__init__(optimizer)

    def rate(self, base_lr):
        """The decay rate per decay_steps for a group whose start lr is ``base_lr``."""
        if self.decay_rate is not None:
            return self.decay_rate
        start = self.start_lr if self.start_lr is not None else base_lr
        return (self.stop_lr / start) ** (self.decay_steps / self.stop_steps)

    def lr_at(self, step, base_lr):
        start = self.start_lr if self.start_lr is not None else base_lr
        exponent = step // self.decay_steps if self.staircase else step / self.decay_steps
        return max(start * self.rate(base_lr) ** exponent, self.min_lr)


class StepLR(LRScheduler):
    """lr = base_lr * gamma ** floor(step / step_size)."""

    def __init__(self, optimizer, step_size, gamma=0.1):
        if not (isinstance(step_size, int) and step_size > 0):
            raise ValueError(f"StepLR: step_size must be a positive int, got {step_size!r}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer)

    def lr_at(self, step, base_lr):
        return base_lr * self.gamma ** (step // self.step_size)


class CosineAnnealing(LRScheduler):
    """lr = eta_min + (base_lr - eta_min) (1 + cos(pi t / T_max)) / 2 for t <= T_max
    (Loshchilov and Hutter, 2017, without restarts); eta_min after T_max."""

    def __init__(self, optimizer, T_max, eta_min=0.0):  # noqa: N803 (the paper's and PyTorch's name)
        if not T_max > 0:
            raise ValueError(f"CosineAnnealing: T_max must be positive, got {T_max}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer)

    def lr_at(self, step, base_lr):
        t = min(step, self.T_max)
        return self.eta_min + (base_lr - self.eta_min) * (1.0 + math.cos(math.pi * t / self.T_max)) / 2.0


CosineAnnealingLR = CosineAnnealing


class LinearWarmup(LRScheduler):
    """Ramps the learning rate linearly over ``warmup_steps`` from start_factor * lr to lr, then
    follows ``after`` (another scheduler on the same optimizer, whose step count starts at the
    end of the warmup) or stays at the base lr:

        warmup = LinearWarmup(ExponentialDecay(opt, 5000, 0.95), warmup_steps=1000)
    """

    def __init__(self, after_or_optimizer, warmup_steps, start_factor=0.0):
        if isinstance(after_or_optimizer, LRScheduler):
            self.after = after_or_optimizer
            optimizer = after_or_optimizer.optimizer
        else:
            self.after = None
            optimizer = after_or_optimizer
        if not (isinstance(warmup_steps, int) and warmup_steps >= 0):
            raise ValueError(f"LinearWarmup: warmup_steps must be an int >= 0, got {warmup_steps!r}")
        if not 0.0 <= start_factor <= 1.0:
            raise ValueError(f"LinearWarmup: start_factor must be in [0, 1], got {start_factor}")
        self.warmup_steps = warmup_steps
        self.start_factor = start_factor
        super().__init__(optimizer)

    def _target(self, step, index, base_lr):
        if self.after is None:
            return base_lr
        return self.after.lr_at(step, self.after.base_lrs[index])

    def _apply(self):
        for i, (group, base) in enumerate(zip(self.optimizer.param_groups, self.base_lrs)):
            group["lr"] = self._lr(self.last_step, i, base)
        if self.after is not None:
            self.after.last_step = max(self.last_step - self.warmup_steps, 0)

    def _lr(self, step, index, base_lr):
        if step < self.warmup_steps:
            factor = self.start_factor + (1.0 - self.start_factor) * step / self.warmup_steps
            return self._target(0, index, base_lr) * factor
        return self._target(step - self.warmup_steps, index, base_lr)

    def lr_at(self, step, base_lr):
        index = self.base_lrs.index(base_lr) if base_lr in self.base_lrs else 0
        return self._lr(step, index, base_lr)

    def state_dict(self):
        state = super().state_dict()
        if self.after is not None:
            state["after"] = self.after.state_dict()
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        after = state_dict.pop("after", None)
        if after is not None and self.after is not None:
            self.after.__dict__.update({k: v for k, v in after.items() if k != "optimizer"})
        super().load_state_dict(state_dict)
