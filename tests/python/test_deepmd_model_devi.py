"""Model deviation (sampan deepmd model-devi, DeePMD-kit's model_devi.out): the formulas on a
case computed by hand, and the command on three perturbed models against the deviations
recomputed here atom by atom from each model's own forces."""
import numpy as np
import pytest

from shared_data import SHARED_DATA
from sampan.deepmd.model_devi import COLUMNS, deviation_rows

WATER = SHARED_DATA / "deepmd_water"
GOLDEN = SHARED_DATA / "deepmd_golden_se_e2_a" / "deeppot_sea.yaml"


def test_hand_computed_case():
    # 3 models, 1 frame, 2 atoms
    forces = np.zeros((3, 1, 2, 3))
    forces[0, 0, 0] = [1, 0, 0]
    forces[1, 0, 0] = [-1, 0, 0]        # atom 0: mean 0, mean |dF|^2 = 2/3; atom 1: no deviation
    forces[:, 0, 1] = [0.5, 2.0, -1.0]
    virials = np.zeros((3, 1, 9))
    virials[:, 0, 0] = [2, 4, 6]         # / 2 atoms -> 1, 2, 3: std sqrt(2/3)
    virials[:, 0, 4] = [0, 0, 6]         # -> 0, 0, 3: mean 1, std sqrt((1 + 1 + 4) / 3) = sqrt(2)
    energies = np.array([[2.0], [4.0], [6.0]])   # / 2 -> 1, 2, 3
    row = deviation_rows([7], energies, forces, virials, natoms=2)[0]
    expected = {"step": 7, "max_devi_v": np.sqrt(2), "min_devi_v": 0.0,
                "avg_devi_v": np.sqrt((2 / 3 + 2) / 9), "max_devi_f": np.sqrt(2 / 3), "min_devi_f": 0.0,
                "avg_devi_f": np.sqrt(2 / 3) / 2, "devi_e": np.sqrt(2 / 3)}
    assert row == pytest.approx([expected[c] for c in COLUMNS], rel=1e-14, abs=1e-15)


def small_system(folder, source, nframes):
    """The first nframes frames of a deepmd/npy system."""
    (folder / "set.000").mkdir(parents=True)
    for name in ("type.raw", "type_map.raw"):
        (folder / name).write_text((source / name).read_text())
    for name in ("coord", "box", "energy", "force"):
        np.save(folder / "set.000" / f"{name}.npy", np.load(source / "set.000" / f"{name}.npy")[:nframes])


def perturbed_models(tmp_path, count, scale=0.05):
    import sampan as sp
    paths = []
    for k in range(count):
        model = sp.deepmd.load_model(str(GOLDEN))
        rng = np.random.default_rng(k)
        with sp.no_grad():
            for p in model.parameters():
                view = p.detach().numpy().reshape(-1)
                view += scale * rng.normal(size=view.shape) * (k > 0)
        path = tmp_path / f"m{k}.h5"
        model.save(str(path))
        paths.append(str(path))
    return paths


@pytest.mark.skipif(not (WATER.exists() and GOLDEN.exists()), reason=f"water data or golden model not in {SHARED_DATA}")
def test_command_matches_deviations_recomputed_per_atom(tmp_path):
    import sampan as sp
    from sampan.cli import main
    small_system(tmp_path / "sys", WATER / "data_3", 3)
    models = perturbed_models(tmp_path, 3)
    out = tmp_path / "model_devi.out"
    assert main(["deepmd", "model-devi", "-m", *models, "-s", str(tmp_path / "sys"), "-o", str(out), "-f", "10"]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == f"# {tmp_path / 'sys'}"
    assert lines[1].lstrip("#").split() == list(COLUMNS)
    table = np.loadtxt(out)
    assert table.shape == (3, 8) and list(table[:, 0]) == [0, 10, 20]

    system = sp.deepmd.load_system(tmp_path / "sys")
    n = system.natoms
    results = [sp.deepmd.evaluate_system(sp.deepmd.load_model(m), system) for m in models]
    for f in range(3):
        per_atom = []
        for i in range(n):
            fi = [r[1][f, i] for r in results]
            mean = sum(fi) / 3
            per_atom.append(np.sqrt(sum(float(np.dot(x - mean, x - mean)) for x in fi) / 3))
        comps = []
        for c in range(9):
            w = [r[2][f, c] / n for r in results]
            comps.append(np.sqrt(sum((x - sum(w) / 3) ** 2 for x in w) / 3))
        e = [r[0][f] / n for r in results]
        expected = [max(comps), min(comps), np.sqrt(sum(s * s for s in comps) / 9),
                    max(per_atom), min(per_atom), sum(per_atom) / n, np.sqrt(sum((x - sum(e) / 3) ** 2 for x in e) / 3)]
        # the file holds 7 significant digits
        assert table[f, 1:] == pytest.approx(expected, rel=1e-6)
    assert table[:, 4].min() > 1e-4   # the perturbation moves the forces: a deviation to measure


def test_fewer_than_two_models_is_an_error(tmp_path):
    from sampan.deepmd.model_devi import make_model_devi
    with pytest.raises(ValueError, match="at least two models"):
        make_model_devi(["a.h5"], str(tmp_path), str(tmp_path / "out"))
