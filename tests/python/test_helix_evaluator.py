"""sampan.helix.Evaluator against independent computations: the exact pair-count AUC (the
Mann-Whitney statistic, ties counting one half: sklearn's roc_auc_score, which is not installed
here), average precision summed over distinct thresholds, and RMSE, each per task over labelled
graphs and averaged over the tasks OGB keeps (both classes present)."""
import math

import numpy as np
import pytest

from sampan import helix
from sampan.helix.evaluator import DATASETS


def pair_count_auc(labels, scores):
    pos = [s for y, s in zip(labels, scores) if y == 1]
    neg = [s for y, s in zip(labels, scores) if y == 0]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def threshold_ap(labels, scores):
    total_pos = sum(1 for y in labels if y == 1)
    ap, last_recall = 0.0, 0.0
    for t in sorted(set(scores), reverse=True):
        chosen = [y for y, s in zip(labels, scores) if s >= t]
        tp = sum(1 for y in chosen if y == 1)
        recall = tp / total_pos
        ap += (recall - last_recall) * tp / len(chosen)
        last_recall = recall
    return ap


def per_task_mean(y_true, y_pred, score, need_both_classes=True):
    values = []
    for t in range(y_true.shape[1]):
        labels = [y for y in y_true[:, t] if not math.isnan(y)]
        scores = [s for y, s in zip(y_true[:, t], y_pred[:, t]) if not math.isnan(y)]
        if need_both_classes and not (1 in labels and 0 in labels):
            continue
        if labels:
            values.append(score(labels, scores))
    return sum(values) / len(values)


def random_classification(rng, graphs, tasks, missing=0.3):
    y_true = (rng.random((graphs, tasks)) < 0.3).astype(float)
    y_true[rng.random((graphs, tasks)) < missing] = np.nan
    y_pred = np.round(rng.random((graphs, tasks)), 1)  # ties on purpose
    return y_true, y_pred


def test_rocauc_matches_the_pair_count_on_random_data_with_nans():
    rng = np.random.default_rng(0)
    y_true, y_pred = random_classification(rng, 80, 12)
    y_true[:, 3] = np.where(np.isnan(y_true[:, 3]), np.nan, 0.0)  # one class only: skipped
    result = helix.Evaluator("ogbg-moltox21").eval({"y_true": y_true, "y_pred": y_pred})
    assert list(result) == ["rocauc"]
    assert result["rocauc"] == pytest.approx(per_task_mean(y_true, y_pred, pair_count_auc), abs=1e-12)
    single = helix.Evaluator("ogbg-molhiv").eval({"y_true": y_true[:, :1], "y_pred": y_pred[:, :1]})
    assert single["rocauc"] == pytest.approx(pair_count_auc(*[
        [v for y, v in zip(y_true[:, 0], col) if not math.isnan(y)] for col in (y_true[:, 0], y_pred[:, 0])]))


def test_ap_for_molpcba_matches_the_threshold_sum():
    rng = np.random.default_rng(1)
    y_true, y_pred = random_classification(rng, 60, 128, missing=0.5)
    result = helix.Evaluator("ogbg-molpcba").eval({"y_true": y_true, "y_pred": y_pred})
    assert list(result) == ["ap"]
    assert result["ap"] == pytest.approx(per_task_mean(y_true, y_pred, threshold_ap), abs=1e-12)


def test_rmse_for_regression_datasets():
    rng = np.random.default_rng(2)
    y_true = rng.normal(size=(50, 1))
    y_true[::7] = np.nan
    y_pred = y_true + rng.normal(scale=0.3, size=y_true.shape)
    y_pred[::7] = 123.0  # unlabelled graphs do not count
    labelled = ~np.isnan(y_true[:, 0])
    want = math.sqrt(sum((a - b) ** 2 for a, b in zip(y_true[labelled, 0], y_pred[labelled, 0])) / labelled.sum())
    for name in ("ogbg-molesol", "ogbg-molfreesolv", "ogbg-mollipo"):
        assert helix.Evaluator(name).eval({"y_true": y_true, "y_pred": y_pred}) == {"rmse": pytest.approx(want)}


def test_ogb_master_table_metrics():
    # OGB's master.csv: molpcba and molmuv use average precision, the regression sets rmse.
    metric = {name: m for name, (_, m) in DATASETS.items()}
    assert metric["ogbg-molhiv"] == "rocauc" and metric["ogbg-molbbbp"] == "rocauc"
    assert metric["ogbg-molpcba"] == "ap" and metric["ogbg-molmuv"] == "ap"
    assert DATASETS["ogbg-moltoxcast"][0] == 617 and DATASETS["ogbg-molpcba"][0] == 128


def test_errors_and_formats():
    hiv = helix.Evaluator("ogbg-molhiv")
    with pytest.raises(RuntimeError, match="no task has both a positive"):
        hiv.eval({"y_true": np.array([[0.0], [np.nan], [0.0]]), "y_pred": np.array([[0.1], [0.2], [0.3]])})
    with pytest.raises(ValueError, match="1 task"):
        hiv.eval({"y_true": np.zeros((3, 2)), "y_pred": np.zeros((3, 2))})
    with pytest.raises(ValueError, match="y_true has shape"):
        hiv.eval({"y_true": np.zeros((3, 1)), "y_pred": np.zeros((4, 1))})
    with pytest.raises(ValueError, match="keys 'y_true' and 'y_pred'"):
        hiv.eval({"y": np.zeros((3, 1))})
    with pytest.raises(ValueError, match="unknown dataset 'ogbg-ppa'"):
        helix.Evaluator("ogbg-ppa")
    assert "(num_graphs, 1)" in hiv.expected_input_format and "{'rocauc': rocauc}" in hiv.expected_output_format
