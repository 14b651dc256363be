"""sampan deepmd train / freeze / test on a tiny se_e2_a model and a few water frames.

Checks: lcurve.out layout (DeePMD-kit's columns), restart from a checkpoint reproduces the
uninterrupted run bit for bit (also from a checkpoint of the loop before it ran on sp.Model),
freeze writes a model the C++ DeepPot loads with the trained
numbers, `test` reports dp-test numbers computed independently here, the data statistics
normalise the env matrix (mean 0, std 1), and the force-loss gradient in the weights (double
backward through prod_force_se_a and the networks) matches finite differences.
"""
from shared_data import SHARED_DATA
import io
import shutil
import json
import os
from pathlib import Path

import numpy as np
import pytest

import sampan as sp
from sampan.deepmd import cli
from sampan.deepmd.train import Trainer, train

DATA = SHARED_DATA
WATER = DATA / "deepmd_water"
GOLDEN = DATA / "deepmd_golden_se_e2_a" / "deeppot_sea.yaml"
pytestmark = pytest.mark.skipif(not WATER.exists(), reason=f"DeePMD water data not found at {WATER}")


def tiny_input(numb_steps=4, save_freq=2):
    return {
        "model": {
            "type_map": ["O", "H"],
            "descriptor": {"type": "se_e2_a", "sel": [46, 92], "rcut_smth": 0.5, "rcut": 6.0, "neuron": [4, 8],
                           "resnet_dt": False, "axis_neuron": 4, "type_one_side": True, "seed": 1},
            "fitting_net": {"neuron": [16, 16], "resnet_dt": True, "seed": 1},
            "data_stat_nbatch": 2,
        },
        "learning_rate": {"type": "exp", "decay_steps": 2, "start_lr": 0.001, "stop_lr": 1e-5},
        "loss": {"type": "ener", "start_pref_e": 0.02, "limit_pref_e": 1, "start_pref_f": 1000, "limit_pref_f": 1,
                 "start_pref_v": 0, "limit_pref_v": 0},
        "training": {
            "training_data": {"systems": [str(WATER / "data_0"), str(WATER / "data_2")], "batch_size": "auto"},
            "validation_data": {"systems": [str(WATER / "data_3")], "batch_size": 1, "numb_btch": 1},
            "numb_steps": numb_steps, "seed": 10, "disp_freq": 1, "save_freq": save_freq,
        },
    }


def write_input(folder, config):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "input.json"
    path.write_text(json.dumps(config))
    return path


def lcurve(folder):
    lines = (folder / "lcurve.out").read_text().splitlines()
    return lines[0], [line.split() for line in lines[1:]]


def test_train_restart_freeze_and_test(tmp_path):
    a = tmp_path / "a"
    train(write_input(a, tiny_input()), output_dir=str(a), log=lambda *_: None)
    header, rows = lcurve(a)
    assert header.split()[1:] == ["step", "rmse_val", "rmse_trn", "rmse_e_val", "rmse_e_trn", "rmse_f_val",
                                  "rmse_f_trn", "lr"]
    assert [int(r[0]) for r in rows] == [0, 1, 2, 3, 4]
    # lr follows the staircase exp decay: r = (1e-5/1e-3)^(2/4) = 0.1 every 2 steps
    assert [float(r[-1]) for r in rows] == pytest.approx([1e-3, 1e-3, 1e-4, 1e-4, 1e-5], rel=1e-6)
    # untrained force error is at the zero-force baseline (~0.8 eV/Å, reference note)
    assert 0.5 < float(rows[0][5]) < 1.2
    assert (a / "model.ckpt-2.h5").exists() and (a / "model.ckpt.h5").exists()

    # restart from step 2 in a fresh folder: the same numbers as the uninterrupted run
    b = tmp_path / "b"
    train(write_input(b, tiny_input()), restart=str(a / "model.ckpt-2.h5"), output_dir=str(b), log=lambda *_: None)
    _, rows_b = lcurve(b)
    assert rows_b == rows[2:]

    # restart in the interrupted run's own folder: rows after the checkpoint are not duplicated
    c = tmp_path / "c"
    c.mkdir()
    shutil.copytree(a, c, dirs_exist_ok=True)
    train(write_input(c, tiny_input()), restart=str(c / "model.ckpt-2.h5"), output_dir=str(c), log=lambda *_: None)
    _, rows_c = lcurve(c)
    assert rows_c == rows

    model_a = cli.freeze(str(a / "model.ckpt.h5"), str(a / "frozen.h5"))
    model_b = cli.freeze(str(b / "model.ckpt.h5"), str(b / "frozen.h5"))
    for pa, pb in zip(model_a.parameters(), model_b.parameters()):
        np.testing.assert_array_equal(pa.numpy(), pb.numpy())

    # `test` on two validation frames equals the frozen model evaluated here
    out = io.StringIO()
    [result] = cli.test_model(str(a / "frozen.h5"), str(WATER / "data_3"), numb_test=2, out=out)
    frozen = sp.deepmd.load_model(str(a / "frozen.h5"))
    system = sp.deepmd.load_system(WATER / "data_3")
    e, f, _ = sp.deepmd.evaluate_system(frozen, system, range(2))
    assert result["e_rmse_atom"] == pytest.approx(np.sqrt(np.mean((e - system.energy[:2]) ** 2)) / 192, rel=1e-12)
    assert result["f_rmse"] == pytest.approx(np.sqrt(np.mean((f - system.force[:2]) ** 2)), rel=1e-12)
    text = out.getvalue()
    assert "# number of test data : 2" in text and "Energy RMSE/Natoms" in text and "Force  RMSE" in text


def test_checkpoint_of_the_loop_before_sp_model_restarts_bit_for_bit(tmp_path):
    """A checkpoint in the layout written before training ran on sp.Model (no "kind"; the
    data-order RNG, the validation cursor and the parameters at the top level) is converted on
    load and continues as the uninterrupted run."""
    a = tmp_path / "a"
    trainer_a = train(write_input(a, tiny_input()), output_dir=str(a), log=lambda *_: None)
    _, rows = lcurve(a)
    new = sp.load(str(a / "model.ckpt-2.h5"))
    assert new["kind"] == "sampan.deepmd.TrainingCheckpoint" and new["step"] == 2
    old = {k: new[k] for k in ("step", "params", "davg", "dstd", "bias_atom_e", "optimizer", "scheduler",
                               "model_config")}
    old.update(format="sampan-deepmd-checkpoint", rng=new["loader"]["rngs"][0],
               valid_cursor=new["callbacks"]["LcurveWriter:0"]["valid_cursor"])
    sp.save(old, str(tmp_path / "old.h5"))
    b = tmp_path / "b"
    trainer_b = train(write_input(b, tiny_input()), restart=str(tmp_path / "old.h5"), output_dir=str(b),
                      log=lambda *_: None)
    assert lcurve(b)[1] == rows[2:]
    for pa, pb in zip(trainer_a.params, trainer_b.params):
        np.testing.assert_array_equal(pa.numpy(), pb.numpy())


def test_statistics_normalise_the_environment_matrix(tmp_path):
    trainer = Trainer(tiny_input(), output_dir=str(tmp_path))
    trainer.init_statistics()
    model = trainer.model
    cfg = model.config
    nnei = sum(cfg["sel"])
    rows = {0: [], 1: []}
    for system in trainer.train_systems:
        for f in range(2):
            ext = sp.deepmd.frame_input(model, system, f)
            em = sp.ops.deepmd.prod_env_mat_a(ext.coord, ext.types, ext.nlist, model.davg, model.dstd, cfg["rcut"],
                                              cfg["rcut_smth"])[0].numpy().reshape(192, nnei, 4)
            for t in (0, 1):
                rows[t].append(em[system.atom_types == t])
    for t in (0, 1):
        x = np.concatenate(rows[t])
        assert abs(x[..., 0].mean()) < 1e-10
        assert x[..., 0].std() == pytest.approx(1.0, rel=1e-10)
        assert np.sqrt((x[..., 1:] ** 2).mean() - x[..., 1:].mean() ** 2) == pytest.approx(1.0, rel=1e-10)
    # the energy bias reproduces the mean frame energy (every frame has 64 O + 128 H)
    energies = np.concatenate([s.energy for s in trainer.train_systems])
    assert 64 * model.bias_atom_e.numpy()[0] + 128 * model.bias_atom_e.numpy()[1] == pytest.approx(energies.mean(), rel=1e-10)


def test_force_loss_gradient_matches_finite_differences(tmp_path):
    if not GOLDEN.exists():
        pytest.skip(f"golden model not found at {GOLDEN}")
    model = sp.deepmd.load_model(str(GOLDEN))
    system = sp.deepmd.load_system(WATER / "data_3")
    ext = sp.deepmd.frame_input(model, system, 0)
    weights = sp.tensor(np.random.default_rng(3).normal(size=(192, 3)))
    params = model.parameters()
    names = model.parameter_names()

    def loss_value():
        out = model.evaluate(ext, True, False)
        return float((out["force"] * weights).sum().item())

    for p in params:
        p.requires_grad_(True)
    out = model.evaluate(ext, True, True)
    loss = (out["force"] * weights).sum()
    grads = sp.grad(loss, params, allow_unused=True)  # the output bias does not move forces
    checked = 0
    for name in ("embedding.1.layer.0.w", "embedding.0.layer.2.b", "fitting.0.layer.1.w", "fitting.1.layer.2.idt"):
        k = names.index(name)
        p, g = params[k], grads[k].numpy().ravel()
        view = p.detach().numpy().reshape(-1)
        i = int(np.argmax(np.abs(g)))
        old = view[i]
        h = 1e-5
        with sp.no_grad():
            view[i] = old + h
            plus = loss_value()
            view[i] = old - h
            minus = loss_value()
            view[i] = old
        assert g[i] == pytest.approx((plus - minus) / (2 * h), rel=1e-5, abs=1e-8), name
        checked += 1
    assert checked == 4


def test_cli_test_command_on_golden_model(capsys):
    if not GOLDEN.exists():
        pytest.skip(f"golden model not found at {GOLDEN}")
    from sampan.cli import main
    assert main(["deepmd", "test", "-m", str(GOLDEN), "-s", str(WATER / "data_3"), "-n", "1"]) == 0
    text = capsys.readouterr().out
    assert "Force  RMSE" in text and "Energy RMSE/Natoms" in text


def test_cli_test_detail_files_in_dp_test_layout(tmp_path):
    """`test -d PREFIX`: dp test's .e.out, .e_peratom.out, .f.out, .v.out, .v_peratom.out, the
    data columns equal the system's labels (zeros for the virial the water data lacks) and the
    predictions equal the model evaluated here."""
    if not GOLDEN.exists():
        pytest.skip(f"golden model not found at {GOLDEN}")
    from sampan.cli import main
    prefix = tmp_path / "detail"
    assert main(["deepmd", "test", "-m", str(GOLDEN), "-s", str(WATER / "data_3"), "-n", "2", "-d", str(prefix)]) == 0
    system = sp.deepmd.load_system(WATER / "data_3")
    e, f, v = sp.deepmd.evaluate_system(sp.deepmd.load_model(str(GOLDEN)), system, range(2))
    headers = {
        "e": "data_e pred_e", "e_peratom": "data_e pred_e", "f": "data_fx data_fy data_fz pred_fx pred_fy pred_fz",
        "v": " ".join([f"data_v{a}{b}" for a in "xyz" for b in "xyz"] + [f"pred_v{a}{b}" for a in "xyz" for b in "xyz"]),
    }
    headers["v_peratom"] = headers["v"]
    for name, columns in headers.items():
        path = tmp_path / f"detail.{name}.out"
        assert path.read_text().splitlines()[0] == f"# {system.path}: {columns}"
        assert not list(tmp_path.glob("*.tmp*"))
    np.testing.assert_allclose(np.loadtxt(tmp_path / "detail.e.out"), np.stack([system.energy[:2], e], 1), rtol=1e-15)
    np.testing.assert_allclose(np.loadtxt(tmp_path / "detail.e_peratom.out"), np.stack([system.energy[:2], e], 1) / 192,
                               rtol=1e-15)
    forces = np.loadtxt(tmp_path / "detail.f.out")
    assert forces.shape == (2 * 192, 6)
    np.testing.assert_allclose(forces, np.concatenate([system.force[:2].reshape(-1, 3), f.reshape(-1, 3)], 1),
                               rtol=1e-15)
    virials = np.loadtxt(tmp_path / "detail.v.out")
    assert virials.shape == (2, 18) and not virials[:, :9].any()
    np.testing.assert_allclose(virials[:, 9:], v, rtol=1e-15)
    np.testing.assert_allclose(np.loadtxt(tmp_path / "detail.v_peratom.out")[:, 9:], v / 192, rtol=1e-15)
