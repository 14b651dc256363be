"""helix resumable training: a fine-tuning or pretraining run interrupted after a checkpoint and
restarted (from a fresh process state: other seeds, other model weights) gives exactly the numbers
of one uninterrupted run; finished seeds are not trained again; and bench/helix/table1.py killed
with SIGKILL mid-run and rerun (with two worker processes) reproduces the uninterrupted results.

The reference is always an uninterrupted run of the same code; what is compared is bitwise
equality of histories and weights, which any state missing from a checkpoint (Adam moments,
BatchNorm running statistics, a random stream, the best-validation weights) would break."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import sampan as sp
from sampan import helix
from sampan.helix import finetune as ft
from sampan.helix import pretrain as pt
from helix_synthetic import random_graph
from shared_data import SHARED_DATA

REPO = Path(__file__).resolve().parents[2]
needs_native = pytest.mark.skipif(not helix.native_available(),
                                  reason="sampan.helix's C++ library (RDKit) is not built: DataLoader needs it")


class Interrupt(Exception):
    pass


def same(a, b):
    """Exact equality of nested results, NaN equal to NaN (a ROC-AUC on a tiny split can be NaN)."""
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _dataset(seed, count):
    """A MoleculeDataset of synthetic molecules with two binary tasks (labels missing at random)."""
    from sampan.helix.data import MoleculeDataset
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, atom_types=(5, 6, 7, 14)) for _ in range(count)]
    atoms, bonds, edges, node_counts, edge_counts, labels = [], [], [], [], [], []
    for x, b, attr in graphs:
        atoms.append(x)
        edges.append(np.concatenate([b, b[:, ::-1]], 0).T)
        bonds.append(np.concatenate([attr, attr], 0))
        node_counts.append(len(x))
        edge_counts.append(2 * len(b))
        labels.append([float((x[:, 0] == 14).any()), float(len(x) > 6)])
    labels = np.array(labels)
    labels[rng.random(labels.shape) < 0.2] = np.nan
    offsets = lambda c: np.concatenate([[0], np.cumsum(c)])  # noqa: E731
    return MoleculeDataset("pretrain_gnns", np.concatenate(atoms), np.concatenate(bonds), np.concatenate(edges, 1),
                           offsets(node_counts), offsets(edge_counts), labels=labels)


def _finetune_run(data, checkpoint, init_seed, stop_after=None):
    from sampan.helix.data import DataLoader
    train, valid, test = data
    sp.manual_seed(init_seed)
    model = ft.GraphModel(2, "pretrain_gnns", num_layers=2, emb_dim=16, dropout=0.3)
    loaders = (DataLoader(train, 8, shuffle=True, seed=init_seed), DataLoader(valid, 16), DataLoader(test, 16))

    def on_epoch(epoch, record):
        if stop_after is not None and epoch == stop_after:
            raise Interrupt  # as a kill after epoch `stop_after` (its checkpoint may be older)

    result = ft.finetune(model, *loaders, epochs=6, lr=5e-3, checkpoint=checkpoint, checkpoint_every=2,
                         on_epoch=on_epoch)
    return result, {k: v.numpy().copy() for k, v in model.state_dict().items()}


@needs_native
def test_finetune_continues_exactly_from_its_checkpoint(tmp_path):
    ds = _dataset(0, 72)
    data = (ds[:48], ds[48:60], ds[60:])
    reference, ref_weights = _finetune_run(data, str(tmp_path / "a.h5"), init_seed=3)
    with pytest.raises(Interrupt):
        _finetune_run(data, str(tmp_path / "b.h5"), init_seed=3, stop_after=3)  # checkpoint at epoch 2
    assert sp.load(str(tmp_path / "b.h5"))["epoch"] == 2
    # A fresh start with other seeds: everything that matters must come from the checkpoint.
    resumed, weights = _finetune_run(data, str(tmp_path / "b.h5"), init_seed=11)
    same(resumed["history"], reference["history"])
    same([resumed["best_epoch"], resumed["test"]], [reference["best_epoch"], reference["test"]])
    assert weights.keys() == ref_weights.keys()
    for k in weights:  # best-validation weights and BatchNorm buffers, bit for bit
        np.testing.assert_array_equal(weights[k], ref_weights[k], err_msg=k)
    # Without the checkpoint the other seed gives another run (the comparison above has teeth).
    other, _ = _finetune_run(data, None, init_seed=11)
    assert other["history"]["train_loss"] != reference["history"]["train_loss"]


@needs_native
def test_finetune_checkpoint_from_other_settings_is_refused(tmp_path):
    ds = _dataset(1, 40)
    path = str(tmp_path / "c.h5")
    _finetune_run((ds[:24], ds[24:32], ds[32:]), path, init_seed=0)
    from sampan.helix.data import DataLoader
    model = ft.GraphModel(2, "pretrain_gnns", num_layers=2, emb_dim=16)
    with pytest.raises(ValueError, match=r"c\.h5: the checkpoint was written with epochs=6 but this run has epochs=9"):
        ft.finetune(model, DataLoader(ds[:24], 8), DataLoader(ds[24:32], 8), epochs=9, lr=5e-3, checkpoint=path)


def _pretrain_run(dataset, checkpoint, init_seed, stop_after=None):
    from sampan.helix.data import DataLoader
    sp.manual_seed(init_seed)
    encoder = helix.models.GNNEncoder("pretrain_gnns", 2, 16, dropout=0.2)
    task = pt.AttributeMasking(encoder, 0.15, seed=init_seed)

    def on_epoch(epoch, record):
        if stop_after is not None and epoch == stop_after:
            raise Interrupt

    result = pt.pretrain(task, DataLoader(dataset, 16, shuffle=True, seed=init_seed), epochs=4, lr=3e-3,
                         checkpoint=checkpoint, on_epoch=on_epoch)
    return result, {k: v.numpy().copy() for k, v in task.state_dict().items()}


@needs_native
def test_pretraining_continues_exactly_from_its_checkpoint(tmp_path):
    ds = _dataset(2, 64)
    reference, ref_weights = _pretrain_run(ds, str(tmp_path / "a.h5"), init_seed=5)
    with pytest.raises(Interrupt):
        _pretrain_run(ds, str(tmp_path / "b.h5"), init_seed=5, stop_after=2)
    resumed, weights = _pretrain_run(ds, str(tmp_path / "b.h5"), init_seed=9)
    same(resumed["history"], reference["history"])
    for k in weights:
        np.testing.assert_array_equal(weights[k], ref_weights[k], err_msg=k)


@needs_native
def test_finished_seeds_are_read_back_not_trained_again(tmp_path, monkeypatch):
    from sampan.helix.data import DataLoader
    ds = _dataset(3, 48)
    train, valid, test = ds[:32], ds[32:40], ds[40:]
    config = dict(num_tasks=2, featurizer="pretrain_gnns", num_layers=2, emb_dim=8, dropout=0.0)

    def loaders(seed):
        return DataLoader(train, 8, shuffle=True, seed=seed), DataLoader(valid, 8), DataLoader(test, 8)

    first, model = ft.finetune_seeds(loaders, config, [0, 1], epochs=3, lr=5e-3, checkpoint_dir=str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["seed0.ckpt.h5", "seed0.json", "seed1.ckpt.h5", "seed1.json"]
    final = sp.load(str(tmp_path / "seed0.ckpt.h5"))
    assert final["done"] and "optimizer" not in final  # only the best weights are kept
    monkeypatch.setattr(ft, "finetune", lambda *a, **k: pytest.fail("a finished seed was trained again"))
    again, reloaded = ft.finetune_seeds(loaders, config, [0, 1], epochs=3, lr=5e-3, checkpoint_dir=str(tmp_path))
    same(again["runs"], first["runs"])
    for k, v in model.state_dict().items():  # the best seed's model comes back from its checkpoint
        np.testing.assert_array_equal(reloaded.state_dict()[k].numpy(), v.numpy())


# ---- the Table 1 driver, killed for real ---------------------------------------------------

def _tiny_shared_data(root):
    """First molecules of BBBP and BACE and 120 ZINC SMILES: a protocol small enough for CI."""
    src = SHARED_DATA
    (root / "moleculenet").mkdir(parents=True)
    (root / "zinc").mkdir()
    for name, rows in (("bbbp.csv", 70), ("bace.csv", 60)):
        lines = (src / "moleculenet" / name).read_text().splitlines()
        (root / "moleculenet" / name).write_text("\n".join(lines[:rows + 1]) + "\n")
    lines = (src / "zinc" / "zinc250k_jtvae_valid.txt").read_text().splitlines()
    (root / "zinc" / "zinc250k_jtvae_valid.txt").write_text("\n".join(lines[:120]) + "\n")


def _table1(out, data, extra=()):
    env = dict(os.environ, SAMPAN_SHARED_DATA=str(data), SAMPAN_HELIX_CACHE=str(data / "cache"),
               PYTHONPATH=str(REPO / "python"))
    cmd = [sys.executable, str(REPO / "bench" / "helix" / "table1.py"), "--datasets", "bbbp", "bace",
           "--seeds", "0", "1", "--layers", "2", "--emb-dim", "16", "--epochs", "8", "--pretrain-epochs", "3",
           "--checkpoint-every", "2", "--poll-seconds", "0.2", "--out", str(out), *extra]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _results(out):
    runs = sorted((out / "runs").glob("*/seed*.json"))
    return {f"{p.parent.name}/{p.name}": {k: v for k, v in json.loads(p.read_text()).items() if k != "seconds"}
            for p in runs}


@needs_native
@pytest.mark.skipif(not (SHARED_DATA / "moleculenet" / "bbbp.csv").exists() or
                    not (SHARED_DATA / "zinc" / "zinc250k_jtvae_valid.txt").exists(),
                    reason=f"MoleculeNet/ZINC files not found under {SHARED_DATA} (set SAMPAN_SHARED_DATA)")
def test_table1_killed_with_sigkill_and_rerun_gives_the_uninterrupted_results(tmp_path):
    data = tmp_path / "data"
    _tiny_shared_data(data)
    whole = _table1(tmp_path / "whole", data)
    log, _ = whole.communicate(timeout=300)
    assert whole.returncode == 0, log
    reference = _results(tmp_path / "whole")
    assert len(reference) == 8  # 2 modes x 2 datasets x 2 seeds
    # Kill as soon as a fine-tuning checkpoint exists (pretraining has then finished too).
    out = tmp_path / "killed"
    run = _table1(out, data)
    deadline = time.time() + 300
    while not list((out / "runs").glob("*/seed*.ckpt.h5")) and run.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    run.send_signal(signal.SIGKILL)
    run.communicate()
    assert len(_results(out)) < 8, "the run finished before it could be killed"
    rerun = _table1(out, data, ["--jobs", "2"])
    log, _ = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, log
    same(_results(out), reference)
    table = (out / "table1.md").read_text()
    assert "| bbbp |" in table and "| bace |" in table
    summary = json.loads((out / "none_bbbp.json").read_text())
    assert summary["seeds"] == [0, 1]


def test_checkpoint_dir_that_is_a_file_is_a_clear_error(tmp_path):
    from sampan.helix.finetune import finetune_seeds
    not_a_dir = tmp_path / "ckpt.h5"
    not_a_dir.write_text("garbage")
    with pytest.raises(ValueError, match="exists and is not a directory"):
        finetune_seeds(lambda seed: None, {}, seeds=[0], checkpoint_dir=str(not_a_dir))
    assert not_a_dir.read_text() == "garbage"  # the user's file is left alone
