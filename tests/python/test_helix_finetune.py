"""helix fine-tuning: masked losses, model selection on validation, seeds summary, save/load."""
import math

import numpy as np
import pytest

import sampan as sp
from sampan.helix import finetune as ft
from helix_synthetic import ATOM_DIMS, BOND_DIMS, make_batch, random_graph

FEATS = (ATOM_DIMS, BOND_DIMS)


def _rule_data(seed, count):
    """Task 0: a phosphorus present; task 1: more than 6 atoms (labels missing at random)."""
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, atom_types=(6, 7, 8, 15)) for _ in range(count)]
    y = np.array([[float((g[0][:, 0] == 15).any()), float(len(g[0]) > 6)] for g in graphs])
    mask = rng.random(y.shape) > 0.2
    y[~mask] = np.nan
    return graphs, y, mask


def _batches(graphs, y, mask, size, shuffle_seed=None):
    order = np.arange(len(graphs))
    if shuffle_seed is not None:
        np.random.default_rng(shuffle_seed).shuffle(order)
    return [make_batch([graphs[i] for i in order[s:s + size]], y[order[s:s + size]], mask[order[s:s + size]])
            for s in range(0, len(graphs), size)]


def test_masked_losses_ignore_missing_labels():
    graphs, y, mask = _rule_data(0, 6)
    batch = make_batch(graphs, y, mask)
    out = sp.tensor(np.random.default_rng(1).normal(size=y.shape))
    bce = ft.masked_loss(out, batch, True).item()
    o, t = out.numpy()[mask], y[mask]
    want = np.mean(np.logaddexp(0, -o) * t + np.logaddexp(0, o) * (1 - t))
    assert bce == pytest.approx(want, rel=1e-10)
    mse = ft.masked_loss(out, batch, False).item()
    assert mse == pytest.approx(np.mean((o - t) ** 2), rel=1e-10)


def test_finetune_learns_and_restores_the_best_validation_epoch(tmp_path):
    graphs, y, mask = _rule_data(1, 160)
    train = _batches(graphs[:96], y[:96], mask[:96], 16)
    valid = _batches(graphs[96:128], y[96:128], mask[96:128], 16)
    test = _batches(graphs[128:], y[128:], mask[128:], 16)
    sp.manual_seed(0)
    model = ft.GraphModel(2, FEATS, num_layers=2, emb_dim=32, dropout=0.1, pool="sum")
    result = ft.finetune(model, train, valid, test, epochs=25, lr=5e-3)
    history = result["history"]
    best = int(np.nanargmax(history["valid"])) + 1
    assert result["best_epoch"] == best
    assert result["valid"] == max(history["valid"]) and result["test"] == history["test"][best - 1]
    # The returned model holds the weights of the best epoch, not of the last.
    assert ft.evaluate(model, valid) == pytest.approx(result["valid"], abs=1e-12)
    assert history["train_loss"][-1] < 0.6 * history["train_loss"][0]
    # Learned (well above chance on held-out molecules); selection on a 32-molecule validation set
    # is noisy, so the selected epoch need not be the best on test.
    assert max(history["test"]) > 0.9 and result["test"] > 0.75, history
    # Save and load: same predictions.
    path = tmp_path / "model.h5"
    ft.save_model(model, path, extra={"test": result["test"]})
    loaded = ft.load_model(path)
    np.testing.assert_allclose(ft.predict(loaded, test)[1], ft.predict(model, test)[1], rtol=1e-6)


def test_finetune_seeds_summary_and_regression():
    graphs, _, mask = _rule_data(2, 48)
    y = np.array([[float(len(g[0])), float((g[0][:, 0] == 8).sum())] for g in graphs])

    def loaders(seed):
        return (_batches(graphs[:32], y[:32], mask[:32], 8, shuffle_seed=seed),
                _batches(graphs[32:40], y[32:40], mask[32:40], 8), _batches(graphs[40:], y[40:], mask[40:], 8))

    config = dict(num_tasks=2, featurizer=FEATS, num_layers=2, emb_dim=16, dropout=0.0, pool="sum")
    calls = []
    summary, best = ft.finetune_seeds(loaders, config, seeds=(0, 1), epochs=30, lr=1e-2, metric="rmse",
                                      on_epoch=lambda seed, epoch, record: calls.append((seed, epoch, record)))
    tests = [r["test"] for r in summary["runs"]]
    # on_epoch sees every epoch of every seed, in order, with the history's numbers and a growing clock.
    assert [(s, e) for s, e, _ in calls] == [(s, e) for s in (0, 1) for e in range(1, 31)]
    for seed, run in zip((0, 1), summary["runs"]):
        records = [r for s, _, r in calls if s == seed]
        assert [r["valid"] for r in records] == run["history"]["valid"]
        assert [r["train_loss"] for r in records] == run["history"]["train_loss"]
        seconds = [r["seconds"] for r in records]
        assert all(b > a for a, b in zip(seconds, seconds[1:])) and seconds[-1] <= run["seconds"]
    assert summary["test_mean"] == pytest.approx(np.mean(tests)) and summary["test_std"] == pytest.approx(np.std(tests))
    assert tests[0] != tests[1]  # the seed changes the run
    # Atom counts are learnable exactly with sum pooling: far below the spread of the labels.
    assert summary["test_mean"] < 0.5 * np.nanstd(y[40:][mask[40:]]), summary["test_mean"]
    assert best is not None
    with pytest.raises(TypeError, match="on_epoch must be a function.*got list"):
        ft.finetune_seeds(loaders, config, seeds=(0,), epochs=1, metric="rmse", on_epoch=calls)


def test_load_model_rejects_other_files(tmp_path):
    path = tmp_path / "other.h5"
    sp.save({"a": sp.zeros(2)}, str(path))
    with pytest.raises(ValueError, match="not a sampan.helix GraphModel"):
        ft.load_model(path)
