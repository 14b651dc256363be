"""Model compression (sampan deepmd compress, DeePMD-kit's dp compress) on the water se_e2_a model.

Checks: the tabulated embedding equals the net it replaces (value, first and second derivative
in s~, at random points of the table's range) and is held beyond it; energies and forces of a
compressed water model are within the issue's bounds (1e-6 eV/atom, 1e-5 eV/Å) of the
uncompressed one on data_3; the saved compressed model loads back bit for bit; force training
through the table (its second derivative) gives the fitting nets the uncompressed gradients.
The op pair's own derivatives to any order are checked by the deepmd registry audit (check_op).
"""
import json
import pathlib

import numpy as np
import pytest

import sampan as sp
from sampan.deepmd.model import DeepPot, evaluate_system, frame_input
from sampan.deepmd.train import compute_statistics
from shared_data import SHARED_DATA

REPO = pathlib.Path(__file__).resolve().parents[2]
WATER = SHARED_DATA / "deepmd_water"
pytestmark = pytest.mark.skipif(not WATER.exists(), reason=f"DeePMD water data not found at {WATER}")


def water_model(seed=3, **descriptor):
    """The water example's se_e2_a model (bench/deepmd/water_se_e2_a.json) with data_3's statistics."""
    cfg = json.loads((REPO / "bench" / "deepmd" / "water_se_e2_a.json").read_text())["model"]
    desc = cfg["descriptor"]
    desc.update(descriptor)
    config = {"type_map": cfg["type_map"], "rcut": desc["rcut"], "rcut_smth": desc["rcut_smth"], "sel": desc["sel"],
              "neuron": desc["neuron"], "axis_neuron": desc["axis_neuron"], "type_one_side": desc["type_one_side"],
              "resnet_dt": desc["resnet_dt"], "fitting_neuron": cfg["fitting_net"]["neuron"],
              "fitting_resnet_dt": cfg["fitting_net"]["resnet_dt"]}
    model = DeepPot(config, seed)
    system = sp.deepmd.load_system(WATER / "data_3")
    davg, dstd, bias = compute_statistics(model, [system], 2)
    model.davg, model.dstd = sp.tensor(davg), sp.tensor(dstd)
    model.bias_atom_e = sp.tensor(bias)
    return model, system


def min_distance(model, system, frames):
    """The smallest neighbour distance (Å) in the frames, from the formatted neighbour lists."""
    out = np.inf
    for f in frames:
        ext = frame_input(model, system, f)
        coord, nlist = ext.coord.numpy(), ext.nlist.numpy()
        centres = np.repeat(np.arange(ext.nloc), nlist.shape[1]).reshape(nlist.shape)
        filled = nlist >= 0
        d = np.linalg.norm(coord[nlist[filled]] - coord[centres[filled]], axis=1)
        out = min(out, d.min())
    return out


@pytest.fixture(scope="module")
def water():
    model, system = water_model()
    rmin = min_distance(model, system, range(system.nframes))
    return model, system, rmin


def compressed_copy(model, tmp_path, rmin, **kw):
    path = tmp_path / "plain.h5"
    model.save(str(path))
    c = DeepPot.load(str(path))
    c.compress(rmin, **kw)
    return c


def test_table_equals_the_net_with_its_first_two_derivatives(water, tmp_path):
    model, _, rmin = water
    c = compressed_copy(model, tmp_path, rmin)
    info = c.compression
    assert c.compressed and not model.compressed and len(info["tables"]) == 2
    rng = np.random.default_rng(5)
    for k, grid in enumerate(info["tables"]):
        # the table covers s~ of a neighbour at rmin for every centre type: (1/rmin - davg)/dstd
        assert grid["lower"] < grid["upper"] < grid["extrapolated"]
        x = rng.uniform(grid["lower"], grid["extrapolated"], size=(64, 1))
        s = sp.tensor(x, requires_grad=True)
        w = sp.tensor(rng.normal(size=(64, model.config["neuron"][-1])))
        outs = []
        for fn in (c.embedding, c.embedding_net):
            G = fn(k, s)
            (d1,) = sp.autograd.grad([sp.sum(G * w)], [s], create_graph=True)
            (d2,) = sp.autograd.grad([sp.sum(d1)], [s])
            outs.append((G.numpy(), d1.numpy(), d2.numpy()))
        (G_t, d1_t, d2_t), (G_n, d1_n, d2_n) = outs
        assert np.max(np.abs(G_t - G_n)) < 1e-9
        assert np.max(np.abs(d1_t - d1_n)) < 1e-7 * max(1.0, np.max(np.abs(d1_n)))
        assert np.max(np.abs(d2_t - d2_n)) < 1e-5 * max(1.0, np.max(np.abs(d2_n)))
        # beyond the table the value is held and the derivative is zero
        far = sp.tensor(np.array([[grid["lower"] - 3.0], [grid["extrapolated"] + 7.0]]), requires_grad=True)
        edge = sp.tensor(np.array([[grid["lower"]], [grid["extrapolated"] - 1e-12]]))
        G_far = c.embedding(k, far)
        assert np.allclose(G_far.numpy(), c.embedding(k, edge).numpy(), atol=1e-9)
        (g_far,) = sp.autograd.grad([sp.sum(G_far)], [far])
        assert np.all(g_far.numpy() == 0.0)


def test_compressed_water_model_energies_and_forces_on_data_3(water, tmp_path):
    model, system, rmin = water
    c = compressed_copy(model, tmp_path, rmin)
    frames = range(3)
    e0, f0, v0 = evaluate_system(model, system, frames)
    e1, f1, v1 = evaluate_system(c, system, frames)
    assert np.max(np.abs(e1 - e0)) / system.natoms < 1e-6
    assert np.max(np.abs(f1 - f0)) < 1e-5
    assert np.max(np.abs(v1 - v0)) / system.natoms < 1e-5
    # a coarse table is visibly worse: the comparison above measures the table, not a no-op
    coarse = compressed_copy(model, tmp_path, rmin, step=0.5)
    e2, f2, _ = evaluate_system(coarse, system, frames)
    assert np.max(np.abs(f2 - f0)) > 10 * np.max(np.abs(f1 - f0))


def test_saved_compressed_model_loads_back_bit_for_bit(water, tmp_path):
    model, system, rmin = water
    c = compressed_copy(model, tmp_path, rmin, step=0.02, extrapolate=3.0)
    path = tmp_path / "compressed.h5"
    c.save(str(path))
    back = DeepPot.load(str(path))
    assert back.compressed and back.compression == c.compression
    assert back.compression["step"] == 0.02 and back.compression["extrapolate"] == 3.0
    e_a, f_a, _ = evaluate_system(c, system, [0])
    e_b, f_b, _ = evaluate_system(back, system, [0])
    assert np.array_equal(e_a, e_b) and np.array_equal(f_a, f_b)


def test_force_training_through_the_table_gives_the_uncompressed_gradients(water, tmp_path):
    model, system, rmin = water
    c = compressed_copy(model, tmp_path, rmin)
    names = model.parameter_names()
    fitting = [i for i, n in enumerate(names) if n.startswith("fitting.")]
    grads = []
    for pot in (model, c):
        params = [pot.parameters()[i].requires_grad_() for i in fitting]
        ext = frame_input(pot, system, 0)
        out = pot.evaluate(ext, True, True)
        label = sp.tensor(system.force[0])
        loss = sp.sum((out["force"] - label) ** 2) + out["energy"] ** 2 * 1e-3
        grads.append([g.numpy() for g in sp.autograd.grad([loss], params)])
    for g_plain, g_comp in zip(*grads):
        scale = max(1.0, np.max(np.abs(g_plain)))
        assert np.max(np.abs(g_comp - g_plain)) < 1e-6 * scale


def test_compress_refuses_bad_settings(water, tmp_path):
    model, _, rmin = water
    c = compressed_copy(model, tmp_path, rmin)
    for kw, word in (({"min_dist": 0.0}, "min_dist"), ({"min_dist": rmin, "step": -1.0}, "step"),
                     ({"min_dist": rmin, "extrapolate": 0.5}, "extrapolate")):
        with pytest.raises(ValueError, match=word):
            c.compress(**kw)


def test_cli_compress_takes_the_smallest_distance_from_the_training_data(water, tmp_path, capsys):
    from sampan.cli import main

    model, system, _ = water
    plain = tmp_path / "plain.h5"
    model.save(str(plain))
    out = tmp_path / "compressed.h5"
    assert main(["deepmd", "compress", "-i", str(plain), "-o", str(out), "-t", str(WATER / "data_3"),
                 "-s", "0.02", "-e", "4"]) == 0
    c = DeepPot.load(str(out))
    # the distance found independently here from the model's own neighbour lists of every frame
    assert abs(c.compression["min_dist"] - min_distance(model, system, range(system.nframes))) < 1e-12
    assert c.compression["step"] == 0.02 and c.compression["extrapolate"] == 4.0
    assert "embedding 1" in capsys.readouterr().out
    e0, f0, _ = evaluate_system(model, system, [1])
    e1, f1, _ = evaluate_system(c, system, [1])
    assert np.max(np.abs(f1 - f0)) < 1e-5
    # an input.json names its training systems relative to its own folder
    (tmp_path / "input.json").write_text(json.dumps(
        {"training": {"training_data": {"systems": [str(WATER / "data_3")]}}}))
    out2 = tmp_path / "c2.h5"
    assert main(["deepmd", "compress", "-i", str(plain), "-o", str(out2), "-t", str(tmp_path / "input.json")]) == 0
    assert DeepPot.load(str(out2)).compression["min_dist"] == c.compression["min_dist"]
    # without a distance it says what to give; a compressed model is not compressed twice
    capsys.readouterr()
    assert main(["deepmd", "compress", "-i", str(plain), "-o", str(tmp_path / "x.h5")]) != 0
    assert "--min-dist" in capsys.readouterr().err
    assert main(["deepmd", "compress", "-i", str(out), "-o", str(tmp_path / "y.h5"), "--min-dist", "0.9"]) != 0
    assert "already compressed" in capsys.readouterr().err
    assert not (tmp_path / "x.h5").exists() and not (tmp_path / "y.h5").exists()
