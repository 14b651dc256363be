"""Metrics for ``sp.Model`` (``sp.metric``): running statistics over batches, in the spirit of
``paddle.metric``.

A metric is updated batch by batch and read at the end of an epoch or evaluation::

    m = sp.metric.Accuracy()
    for out, label in batches:
        m.update(*m.compute(out, label))   # compute: optional preprocessing; update: accumulate
    m.accumulate()                         # the value over every batch since reset()
    m.name()                               # its name in logs ("acc")

Inputs may be tensors or NumPy arrays; the statistics are kept in NumPy (float64).
"""
import numbers

import numpy as np

from ._C import Tensor

__all__ = ["Metric", "Accuracy", "RocAuc", "roc_auc_score"]


def as_numpy(x, what):
    """x (a Tensor, a NumPy array, a number or a list) as a NumPy array."""
    if isinstance(x, Tensor):
        return x.detach().numpy()
    if isinstance(x, (np.ndarray, numbers.Number, list, tuple)):
        return np.asarray(x)
    raise TypeError(f"{what}: expected a Tensor or a NumPy array, got {type(x).__name__}")


class Metric:
    """The base class. Subclasses define ``reset()``, ``update(*args)``, ``accumulate()`` and
    ``name()``; ``compute(*outputs_and_labels)`` turns a batch's network outputs and labels into
    ``update``'s arguments (by default it passes them through). sp.Model calls
    ``update(*compute(*outputs, *labels))`` after each batch."""

    def reset(self):
        raise NotImplementedError(f"{type(self).__name__}.reset")

    def update(self, *args):
        raise NotImplementedError(f"{type(self).__name__}.update")

    def accumulate(self):
        raise NotImplementedError(f"{type(self).__name__}.accumulate")

    def name(self):
        raise NotImplementedError(f"{type(self).__name__}.name")

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """The fraction of samples whose label is among the top-k predictions.

    pred [N, C] (scores or probabilities of C >= 2 classes) with label [N] or [N, 1] (class
    indices); or pred [N] / [N, 1] (one score per sample, binary) with labels 0/1, where the
    prediction is ``pred > threshold`` (0.5 for probabilities; 0.0 for logits). ``topk`` a tuple
    gives one value per k (names acc_top1, acc_top2 ...); a single k gives one float named "acc"
    (or ``name``)."""

    def __init__(self, topk=(1,), threshold=0.5, name=None):
        topk = (topk,) if isinstance(topk, numbers.Integral) else tuple(topk)
        if not topk or any(isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1 for k in topk):
            raise ValueError(f"Accuracy: topk must be ints >= 1, got {topk!r}")
        self.topk = tuple(int(k) for k in topk)
        self.threshold = float(threshold)
        self._name = name
        self.reset()

    def reset(self):
        self.correct = np.zeros(len(self.topk))
        self.count = 0

    def update(self, pred, label):
        """Adds a batch; returns the batch's accuracy (a float, or a list for several k)."""
        pred = as_numpy(pred, "Accuracy.update: pred").astype(np.float64)
        label = as_numpy(label, "Accuracy.update: label")
        n = pred.shape[0] if pred.ndim else 1
        label = label.reshape(-1)
        if label.shape[0] != n:
            raise ValueError(f"Accuracy.update: {n} predictions but {label.shape[0]} labels (pred shape "
                             f"{pred.shape}, label shape {label.shape})")
        if pred.ndim == 2 and pred.shape[1] >= 2:
            order = np.argsort(-pred, axis=1, kind="stable")
            hits = [(order[:, :k] == label[:, None].astype(np.int64)).any(axis=1).sum() for k in self.topk]
        elif pred.ndim <= 1 or (pred.ndim == 2 and pred.shape[1] == 1):
            if self.topk != (1,):
                raise ValueError("Accuracy: top-k for k > 1 needs scores of several classes (pred [N, C])")
            hits = [((pred.reshape(-1) > self.threshold) == (label > 0.5)).sum()]
        else:
            raise ValueError(f"Accuracy.update: pred must be [N, C] or [N] (or [N, 1]), got shape {pred.shape}")
        hits = np.asarray(hits, dtype=np.float64)
        self.correct += hits
        self.count += n
        batch = (hits / max(n, 1)).tolist()
        return batch[0] if len(batch) == 1 else batch

    def accumulate(self):
        values = (self.correct / self.count if self.count else np.full(len(self.topk), np.nan)).tolist()
        return values[0] if len(values) == 1 else values

    def name(self):
        if len(self.topk) == 1:
            return self._name or "acc"
        return [f"{self._name or 'acc'}_top{k}" for k in self.topk]


def roc_auc_score(labels, scores):
    """The area under the ROC curve of binary ``labels`` (0/1) by ``scores``: the probability that
    a random positive scores above a random negative, ties counting one half (the Mann-Whitney
    statistic from average ranks; equal to sklearn.metrics.roc_auc_score). NaN when only one
    class is present."""
    labels = np.asarray(labels).reshape(-1)
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    if labels.shape != scores.shape:
        raise ValueError(f"roc_auc_score: {labels.size} labels but {scores.size} scores")
    positive = labels > 0.5
    n_pos = int(positive.sum())
    n_neg = labels.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    sorted_scores = scores[order]
    ranks = np.empty(scores.size)
    # average rank (1-based) of each run of equal scores
    starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
    ends = np.r_[starts[1:], scores.size]
    for s, e in zip(starts, ends):
        ranks[order[s:e]] = (s + 1 + e) / 2.0
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


class RocAuc(Metric):
    """The exact area under the ROC curve over every sample seen since reset (all scores are
    kept, so the result is sklearn's roc_auc_score of the concatenated batches).

    pred: scores [N] or [N, 1], or class probabilities [N, 2] (column 1 is the positive class's,
    as paddle.metric.Auc reads them); label: 0/1 of shape [N] or [N, 1]. Name "auc"."""

    def __init__(self, name=None):
        self._name = name
        self.reset()

    def reset(self):
        self.scores, self.labels = [], []

    def update(self, pred, label):
        pred = as_numpy(pred, "RocAuc.update: pred").astype(np.float64)
        label = as_numpy(label, "RocAuc.update: label").reshape(-1)
        if pred.ndim == 2 and pred.shape[1] == 2:
            pred = pred[:, 1]
        elif not (pred.ndim <= 1 or (pred.ndim == 2 and pred.shape[1] == 1)):
            raise ValueError(f"RocAuc.update: pred must be [N], [N, 1] or [N, 2], got shape {pred.shape}")
        pred = pred.reshape(-1)
        if pred.shape != label.shape:
            raise ValueError(f"RocAuc.update: {pred.size} scores but {label.size} labels")
        if not np.isin(label, (0, 1)).all():
            raise ValueError("RocAuc.update: labels must be 0 or 1")
        self.scores.append(pred)
        self.labels.append(label)

    def accumulate(self):
        if not self.scores:
            return float("nan")
        return roc_auc_score(np.concatenate(self.labels), np.concatenate(self.scores))

    def name(self):
        return self._name or "auc"
