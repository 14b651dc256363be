"""Loss functions, built from sampan ops (so gradients and second derivatives come for free).

Conventions follow PyTorch: ``reduction`` is "mean" (the default), "sum" or "none"; input and
target of elementwise losses must have the same shape (broadcasting inside a loss is almost
always a bug, so it is an error here rather than a warning).
"""
import math

import sampan
from .._C import Tensor

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction, what):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{what}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _check_same_shape(input, target, what):
    if not isinstance(input, Tensor):
        raise TypeError(f"{what}: input must be a Tensor, got {type(input).__name__}")
    if not isinstance(target, Tensor):
        target = sampan.tensor(target, dtype=input.dtype, device=input.device)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"{what}: input shape {tuple(input.shape)} and target shape {tuple(target.shape)} "
                         "differ (reshape one of them; losses do not broadcast)")
    return target


def _reduce(loss, reduction, weight=None):
    """Applies an optional elementwise weight, then the reduction (mean over all elements)."""
    if weight is not None:
        loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return sampan.mean(loss)


def mse_loss(input, target, reduction="mean", weight=None):
    """(input - target)^2, reduced; ``weight`` multiplies elementwise before the reduction."""
    _check_reduction(reduction, "mse_loss")
    target = _check_same_shape(input, target, "mse_loss")
    diff = input - target
    return _reduce(diff * diff, reduction, weight)


def l1_loss(input, target, reduction="mean", weight=None):
    """|input - target|, reduced."""
    _check_reduction(reduction, "l1_loss")
    target = _check_same_shape(input, target, "l1_loss")
    return _reduce(sampan.abs(input - target), reduction, weight)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| <= delta, delta (|d| - delta/2) beyond (d = input - target): quadratic
    near zero, linear for outliers."""
    _check_reduction(reduction, "huber_loss")
    if not delta > 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    target = _check_same_shape(input, target, "huber_loss")
    diff = input - target
    absdiff = sampan.abs(diff)
    # min(|d|, delta) keeps both branches finite, so the unused one cannot poison the gradient.
    small = sampan.clamp(absdiff, math.nan, float(delta))  # NaN: no lower bound
    # For |d| <= delta: |d| (|d| - |d|/2) = d^2/2; beyond: delta (|d| - delta/2).
    loss = small * (absdiff - small * 0.5)
    return _reduce(loss, reduction, weight)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """Huber loss divided by beta (PyTorch's smooth_l1_loss); beta = 0 gives the L1 loss."""
    if beta == 0:
        return l1_loss(input, target, reduction)
    return huber_loss(input, target, reduction, beta) / beta


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None, mask=None):
    """Binary cross entropy of sigmoid(input) against ``target`` in [0, 1], computed from the
    logits without overflow: loss = pos_weight * t * softplus(-x) + (1 - t) * softplus(x)
    (= -[p t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))]); its gradient is exactly
    sigmoid(x) - t for pos_weight 1, also at x = 0.

    weight: elementwise factors (broadcast to the input), as PyTorch ("mean" still divides by the
        number of elements).
    pos_weight: factor of the positive term, per class (broadcast along the last dimension).
    mask: for missing labels (multi-task data such as Tox21): True/nonzero where the label exists.
        Masked-out entries contribute nothing, their targets may be NaN, and "mean" divides by
        the number of labels present (a batch with none gives 0, not NaN).
    """
    _check_reduction(reduction, "binary_cross_entropy_with_logits")
    target = _check_same_shape(input, target, "binary_cross_entropy_with_logits")
    if not input.dtype.is_differentiable:
        raise TypeError(f"binary_cross_entropy_with_logits: input must be floating (logits), got {input.dtype}")
    if target.dtype != input.dtype:
        target = target.to(input.dtype)
    present = None
    if mask is not None:
        if not isinstance(mask, Tensor):
            mask = sampan.tensor(mask, device=input.device)
        present = mask if mask.dtype == sampan.bool else mask != 0
        present = sampan.broadcast_to(present, input.shape)
        target = sampan.where(present, target, sampan.zeros_like(target))  # NaN labels where absent
    positive = target * sampan.softplus(-input, 1.0, 20.0)
    if pos_weight is not None:
        positive = positive * pos_weight
    loss = positive + (1.0 - target) * sampan.softplus(input, 1.0, 20.0)
    if weight is not None:
        loss = loss * weight
    if present is None:
        return _reduce(loss, reduction)
    loss = sampan.where(present, loss, sampan.zeros_like(loss))
    if reduction == "none":
        return loss
    total = loss.sum()
    if reduction == "sum":
        return total
    count = present.to(loss.dtype).sum()
    return total / sampan.clamp(count, 1.0, math.nan)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """-[t log p + (1 - t) log(1 - p)] for probabilities ``input``; the logs are clamped at -100
    (as PyTorch) so that p = 0 or 1 gives a finite loss. Prefer the logits version."""
    _check_reduction(reduction, "binary_cross_entropy")
    target = _check_same_shape(input, target, "binary_cross_entropy")
    log_p = sampan.clamp(sampan.log(input), -100.0, math.nan)
    log_q = sampan.clamp(sampan.log(1.0 - input), -100.0, math.nan)
    return _reduce(-(target * log_p + (1.0 - target) * log_q), reduction, weight)


def _class_dim_check(input, target, what):
    if input.ndim < 1:
        raise ValueError(f"{what}: input must have a class dimension, got a 0-d tensor")
    if target.dtype not in (sampan.int32, sampan.int64):
        raise TypeError(f"{what}: target must hold integer class indices (int32 or int64), got {target.dtype}")
    expected = (input.shape[0],) + tuple(input.shape[2:]) if input.ndim >= 2 else ()
    if tuple(target.shape) != expected:
        raise ValueError(f"{what}: input of shape {tuple(input.shape)} (N, C, ...) needs a target of shape "
                         f"{expected}, got {tuple(target.shape)}")


def _pick_class(log_probs, target):
    """log_probs[n, target[n], ...] for class dimension 1 (or 0 for a 1-d input)."""
    axis = 1 if log_probs.ndim >= 2 else 0
    index = sampan.unsqueeze(target.to(sampan.int64), axis)
    return sampan.squeeze(sampan.gather(log_probs, axis, index), [axis])


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log likelihood of integer ``target`` classes given log probabilities ``input``
    of shape (N, C) or (N, C, d1, ...) (or (C,) with a 0-d target). ``weight``: per-class
    factors (C,); targets equal to ``ignore_index`` contribute nothing. "mean" divides by the
    sum of the weights of the counted targets, as PyTorch."""
    _check_reduction(reduction, "nll_loss")
    _class_dim_check(input, target, "nll_loss")
    classes = input.shape[1] if input.ndim >= 2 else input.shape[0]
    valid = target != ignore_index
    safe_target = sampan.where(valid, target, sampan.zeros_like(target))
    bad = sampan.logical_and(valid, sampan.logical_or(safe_target < 0, safe_target >= classes))
    if bool(bad.sum() > 0):
        raise IndexError(f"nll_loss: target values must be in [0, {classes}) or ignore_index={ignore_index}")
    picked = -_pick_class(input, safe_target)
    factor = valid.to(input.dtype)
    if weight is not None:
        if tuple(weight.shape) != (classes,):
            raise ValueError(f"nll_loss: weight must have shape ({classes},), got {tuple(weight.shape)}")
        factor = factor * sampan.index_select(weight, 0, safe_target.reshape(-1)).reshape(tuple(target.shape))
    loss = picked * factor
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / factor.sum()


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Cross entropy of logits ``input`` (N, C) or (N, C, d1, ...) against integer class
    ``target`` (log_softmax then nll_loss), or against class probabilities when ``target`` is
    floating with the input's shape. ``label_smoothing`` eps mixes the one-hot target with the
    uniform distribution: (1 - eps) * nll + eps * mean over classes of -log p."""
    _check_reduction(reduction, "cross_entropy")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
    axis = 1 if input.ndim >= 2 else 0
    log_probs = sampan.log_softmax(input, axis)
    classes = input.shape[axis]
    if isinstance(target, Tensor) and target.dtype.is_differentiable:  # class probabilities
        target = _check_same_shape(input, target, "cross_entropy")
        if label_smoothing > 0:
            target = target * (1.0 - label_smoothing) + label_smoothing / classes
        terms = -(log_probs * target)
        if weight is not None:
            terms = terms * weight.reshape((classes,) + (1,) * (input.ndim - axis - 1))
        loss = terms.sum([axis])
        return _reduce(loss, reduction)
    loss = nll_loss(log_probs, target, weight, ignore_index, reduction)
    if label_smoothing == 0.0:
        return loss
    # Smoothing term: -sum_c w_c log p_c per sample, over counted samples, reduced like nll.
    _class_dim_check(input, target, "cross_entropy")
    valid = (target != ignore_index).to(input.dtype)
    terms = -log_probs
    if weight is not None:
        terms = terms * weight.reshape((classes,) + (1,) * (input.ndim - axis - 1))
    smooth = terms.sum([axis]) * valid
    if reduction == "none":
        smooth_loss = smooth
    elif reduction == "sum":
        smooth_loss = smooth.sum()
    else:
        safe_target = sampan.where(target != ignore_index, target, sampan.zeros_like(target))
        denominator = valid.sum() if weight is None else (
            sampan.index_select(weight, 0, safe_target.reshape(-1)).reshape(tuple(target.shape)) * valid).sum()
        smooth_loss = smooth.sum() / denominator
    return loss * (1.0 - label_smoothing) + smooth_loss * (label_smoothing / classes)


# ---- the same losses as modules ---------------------------------------------------------------

from .module import Module  # noqa: E402  (after the functions, which do not need it)


class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        _check_reduction(reduction, type(self).__name__)
        self.reduction = reduction

    def extra_repr(self):
        return f"reduction={self.reduction!r}" if self.reduction != "mean" else ""


class MSELoss(_Loss):
    def forward(self, input, target):
        return mse_loss(input, target, self.reduction)


class L1Loss(_Loss):
    def forward(self, input, target):
        return l1_loss(input, target, self.reduction)


class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input, target):
        return huber_loss(input, target, self.reduction, self.delta)


class BCEWithLogitsLoss(_Loss):
    """binary_cross_entropy_with_logits with fixed weight and pos_weight; forward(input,
    target, mask=None) takes the missing-label mask per batch."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def forward(self, input, target, mask=None):
        return binary_cross_entropy_with_logits(input, target, self.weight, self.reduction, self.pos_weight, mask)


class CrossEntropyLoss(_Loss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return cross_entropy(input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class NLLLoss(_Loss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return nll_loss(input, target, self.weight, self.ignore_index, self.reduction)
