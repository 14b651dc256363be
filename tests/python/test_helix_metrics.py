"""helix metrics against brute-force definitions: AUC as the pairwise probability that a positive
outranks a negative (ties 1/2), AP from its definition, RMSE/MAE by hand."""
import numpy as np
import pytest

from sampan.helix import metrics


def brute_auc(labels, scores):
    pos, neg = scores[labels == 1], scores[labels == 0]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def test_binary_auc_equals_pairwise_definition_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(2, 40))
        labels = rng.integers(0, 2, n)
        if labels.min() == labels.max():
            labels[0] = 1 - labels[0]
        scores = rng.integers(0, 6, n).astype(float)  # many ties
        assert metrics.binary_roc_auc(labels, scores) == pytest.approx(brute_auc(labels, scores), abs=1e-12)


def test_roc_auc_masks_missing_labels_and_skips_one_class_tasks():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, (30, 4)).astype(float)
    s = rng.normal(size=(30, 4))
    mask = rng.random((30, 4)) > 0.3
    y[~mask] = 7.0  # garbage where missing: must be ignored
    y[mask[:, 3], 3] = 1.0  # task 3: only positives among present labels
    mean, per_task, evaluated = metrics.roc_auc(y, s, mask, return_per_task=True)
    want = [brute_auc(y[mask[:, t], t], s[mask[:, t], t]) for t in range(3)]
    np.testing.assert_allclose(per_task[:3], want, atol=1e-12)
    assert np.isnan(per_task[3]) and evaluated == 3
    assert mean == pytest.approx(np.mean(want), abs=1e-12)
    # NaN labels mean missing when no mask is given.
    y_nan = np.where(mask, y, np.nan)
    assert metrics.roc_auc(y_nan, s) == pytest.approx(mean, abs=1e-12)


def test_perfect_and_reversed_scores():
    y = np.array([0, 0, 1, 1, 1])
    s = np.array([0.1, 0.2, 0.3, 0.8, 0.9])
    assert metrics.roc_auc(y, s) == 1.0 and metrics.roc_auc(y, -s) == 0.0
    fpr, tpr = metrics.roc_curve(y, s)
    assert fpr[0] == 0 and tpr[0] == 0 and fpr[-1] == 1 and tpr[-1] == 1
    assert np.trapezoid(tpr, fpr) == pytest.approx(1.0)


def test_roc_curve_area_equals_auc():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 50)
    s = rng.integers(0, 10, 50).astype(float)
    fpr, tpr = metrics.roc_curve(y, s)
    assert np.trapezoid(tpr, fpr) == pytest.approx(brute_auc(y, s), abs=1e-12)


def test_average_precision_definition():
    # scores descending: labels 1, 0, 1, 0 -> precision at the positives 1/1 and 2/3, AP = (1 + 2/3) / 2.
    y = np.array([1, 0, 1, 0])
    s = np.array([0.9, 0.8, 0.7, 0.1])
    assert metrics.average_precision(y, s) == pytest.approx((1 + 2 / 3) / 2)


def test_regression_metrics_per_task_then_averaged():
    y = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, np.nan]])
    p = np.array([[1.5, 1.0], [2.0, 1.0], [2.0, 100.0]])
    assert metrics.rmse(y, p) == pytest.approx((np.sqrt((0.25 + 0 + 1) / 3) + np.sqrt(1 / 2)) / 2)
    assert metrics.mae(y, p) == pytest.approx((1.5 / 3 + 0.5) / 2)


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError, match="differ"):
        metrics.roc_auc(np.zeros((3, 2)), np.zeros((3, 1)))
