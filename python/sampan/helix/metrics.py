"""Evaluation metrics for molecular property prediction, on NumPy arrays [G, T] (graphs x tasks)
with a mask of present labels (False = missing, as MoleculeNet's empty cells).

ROC-AUC follows Hu et al. 2020 and OGB: computed per task over the molecules that have a label,
only for tasks where both classes occur in the split, then averaged over those tasks (PaddleHelix
logs the count as "Task evaluated: x/y"). The AUC is the Mann-Whitney statistic: the probability
that a random positive scores above a random negative, ties counting one half.
"""
import numpy as np

from .._C import Tensor
from ..metric import Metric


def _as_2d(name, a):
    a = np.asarray(a.cpu().numpy() if isinstance(a, Tensor) else a.numpy() if hasattr(a, "numpy") else a)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"{name}: expected a [graphs, tasks] array, got shape {a.shape}")
    return a


def _inputs(y_true, y_score, mask):
    y_true, y_score = _as_2d("y_true", y_true), _as_2d("y_score", y_score)
    if y_true.shape != y_score.shape:
        raise ValueError(f"y_true shape {y_true.shape} and y_score shape {y_score.shape} differ")
    if mask is None:
        mask = ~np.isnan(y_true)
    else:
        mask = _as_2d("mask", mask).astype(bool)
        if mask.shape != y_true.shape:
            raise ValueError(f"mask shape {mask.shape} and y_true shape {y_true.shape} differ")
    return y_true, y_score.astype(np.float64), mask


def binary_roc_auc(labels, scores):
    """AUC of one task (labels 0/1); NaN when a class is absent. O(n log n) through average ranks."""
    labels = np.asarray(labels) > 0.5
    scores = np.asarray(scores, np.float64)
    n_pos = int(labels.sum())
    n_neg = len(labels) - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    sorted_scores = scores[order]
    ranks = np.empty(len(scores), np.float64)
    # Average ranks over runs of tied scores (1-based).
    boundaries = np.flatnonzero(np.diff(sorted_scores)) + 1
    starts = np.concatenate([[0], boundaries])
    ends = np.concatenate([boundaries, [len(scores)]])
    average = (starts + ends + 1) / 2.0
    ranks[order] = np.repeat(average, ends - starts)
    return float((ranks[labels].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def roc_auc(y_true, y_score, mask=None, return_per_task=False):
    """Mean ROC-AUC over the tasks that have both classes among their present labels.

    Returns the mean (NaN if no task qualifies); with return_per_task also the per-task AUCs
    (NaN for tasks that were skipped) and the number of tasks evaluated."""
    y_true, y_score, mask = _inputs(y_true, y_score, mask)
    per_task = np.array([binary_roc_auc(y_true[mask[:, t], t], y_score[mask[:, t], t])
                         for t in range(y_true.shape[1])])
    valid = ~np.isnan(per_task)
    mean = float(per_task[valid].mean()) if valid.any() else float("nan")
    if return_per_task:
        return mean, per_task, int(valid.sum())
    return mean


def roc_curve(labels, scores):
    """(false positive rate, true positive rate) at every distinct threshold, from (0, 0) to (1, 1)."""
    labels = np.asarray(labels) > 0.5
    scores = np.asarray(scores, np.float64)
    order = np.argsort(-scores, kind="mergesort")
    sorted_scores, sorted_labels = scores[order], labels[order]
    last_of_run = np.concatenate([np.flatnonzero(np.diff(sorted_scores)), [len(scores) - 1]])
    tp = np.cumsum(sorted_labels)[last_of_run]
    fp = (last_of_run + 1) - tp
    n_pos, n_neg = max(labels.sum(), 1), max((~labels).sum(), 1)
    return np.concatenate([[0.0], fp / n_neg]), np.concatenate([[0.0], tp / n_pos])


def average_precision(y_true, y_score, mask=None):
    """Mean average precision over tasks with at least one positive and one negative (OGB's molpcba
    metric): AP = sum_k (R_k - R_{k-1}) P_k over thresholds at every distinct score."""
    y_true, y_score, mask = _inputs(y_true, y_score, mask)
    values = []
    for t in range(y_true.shape[1]):
        labels = y_true[mask[:, t], t] > 0.5
        if labels.all() or not labels.any():
            continue
        scores = y_score[mask[:, t], t]
        order = np.argsort(-scores, kind="mergesort")
        s, lab = scores[order], labels[order]
        last = np.concatenate([np.flatnonzero(np.diff(s)), [len(s) - 1]])
        tp = np.cumsum(lab)[last]
        precision = tp / (last + 1)
        recall = tp / labels.sum()
        values.append(float(np.sum(np.diff(np.concatenate([[0.0], recall])) * precision)))
    return float(np.mean(values)) if values else float("nan")


def rmse(y_true, y_pred, mask=None):
    """Root mean squared error over present labels, averaged over tasks (MoleculeNet regression)."""
    y_true, y_pred, mask = _inputs(y_true, y_pred, mask)
    per_task = [np.sqrt(np.mean((y_pred[mask[:, t], t] - y_true[mask[:, t], t]) ** 2))
                for t in range(y_true.shape[1]) if mask[:, t].any()]
    return float(np.mean(per_task)) if per_task else float("nan")


def mae(y_true, y_pred, mask=None):
    """Mean absolute error over present labels, averaged over tasks."""
    y_true, y_pred, mask = _inputs(y_true, y_pred, mask)
    per_task = [np.mean(np.abs(y_pred[mask[:, t], t] - y_true[mask[:, t], t]))
                for t in range(y_true.shape[1]) if mask[:, t].any()]
    return float(np.mean(per_task)) if per_task else float("nan")


METRICS = {"roc_auc": roc_auc, "average_precision": average_precision, "rmse": rmse, "mae": mae}
HIGHER_IS_BETTER = {"roc_auc": True, "average_precision": True, "rmse": False, "mae": False}


class MaskedMetric(Metric):
    """One of METRICS as an sp.metric.Metric for sp.Model: ``compute(output, batch)`` takes a
    graph model's output (logits for the classification metrics, turned into probabilities by a
    sigmoid) and a batch with y and y_mask; ``accumulate()`` is the metric over every molecule
    since reset (the concatenated batches). Named after the metric ("roc_auc") unless ``name``."""

    def __init__(self, metric="roc_auc", name=None):
        if metric not in METRICS:
            raise ValueError(f"MaskedMetric: metric must be one of {sorted(METRICS)}, got {metric!r}")
        self.metric, self._name = metric, name
        self.classification = metric in ("roc_auc", "average_precision")
        self.reset()

    def reset(self):
        self.trues, self.preds, self.masks = [], [], []

    def compute(self, output, batch):
        if self.classification:
            output = output.sigmoid()
        pred = output.cpu().numpy() if isinstance(output, Tensor) else np.asarray(output)
        return (pred.astype(np.float64), _numpy(batch.y).astype(np.float64), _numpy(batch.y_mask).astype(bool))

    def update(self, pred, y_true, mask):
        self.preds.append(pred)
        self.trues.append(y_true)
        self.masks.append(mask)

    def arrays(self):
        """(y_true, y_pred, y_mask) over every batch since reset."""
        if not self.preds:
            raise ValueError("predict: the loader yielded no batches")
        return np.concatenate(self.trues), np.concatenate(self.preds), np.concatenate(self.masks)

    def accumulate(self):
        return METRICS[self.metric](*self.arrays())

    def name(self):
        return self._name or self.metric


def _numpy(a):
    return a.cpu().numpy() if isinstance(a, Tensor) else np.asarray(a)
