"""Optimizers (``sp.optim``): SGD, Adam, AdamW over parameter groups, gradient clipping, and
learning-rate schedules in ``sp.optim.lr_scheduler``. Updates run under no_grad and write into
the parameters in place."""
from . import lr_scheduler
from .adam import Adam, AdamW
from .clip import clip_grad_norm_, clip_grad_value_
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "clip_grad_norm_", "clip_grad_value_", "lr_scheduler"]
