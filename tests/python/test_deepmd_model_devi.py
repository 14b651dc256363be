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


def lammps_run(folder, models, ranks, out_freq=5, steps=20):
    """NVE with `pair_style sampan m0 m1 m2 out_freq N`; positions dumped every N steps."""
    import os
    import shutil
    import subprocess
    from pathlib import Path
    driver = Path(os.environ.get("SAMPAN_LMP_DRIVER", Path(__file__).resolve().parents[2] / "build" / "bin" / "sampan-lmp"))
    mpirun = shutil.which("mpirun")
    if not driver.exists() or mpirun is None:
        pytest.skip(f"sampan-lmp not built at {driver} or mpirun not found")
    (folder / "in.lmp").write_text(
        "units metal\natom_style atomic\nboundary p p p\natom_modify map array\nread_data ../data.lmp\n"
        f"pair_style sampan {' '.join(models)} out_freq {out_freq} out_file model_devi.out\npair_coeff * * O H\n"
        "timestep 0.0005\nfix 1 all nve\n"
        f"dump d all custom {out_freq} traj.dump id type x y z\ndump_modify d sort id format float %.17g\n"
        f"run {steps}\n")
    flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    cmd = [mpirun, "-n", str(ranks), *flags, str(driver), "in.lmp", "-log", "log.lammps", "-screen", "none"]
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    log = (folder / "log.lammps").read_text() if (folder / "log.lammps").exists() else ""
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:] + log[-2000:]
    return (folder / "model_devi.out").read_text()


def dumped_system(dump, folder, cell):
    """The frames of a LAMMPS dump (id type x y z, sorted) as a deepmd/npy system."""
    frames, types = [], None
    lines = dump.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("ITEM: NUMBER OF ATOMS"):
            n = int(lines[i + 1])
            rows = np.array([[float(v) for v in line.split()] for line in lines[i + 7: i + 7 + n]])
            frames.append(rows[:, 2:5])
            types = rows[:, 1].astype(int) - 1
            i += 7 + n
        else:
            i += 1
    (folder / "set.000").mkdir(parents=True)
    np.savetxt(folder / "type.raw", types, fmt="%d")
    (folder / "type_map.raw").write_text("O\nH\n")
    np.save(folder / "set.000" / "coord.npy", np.array(frames).reshape(len(frames), -1))
    np.save(folder / "set.000" / "box.npy", np.tile(np.asarray(cell, float).ravel(), (len(frames), 1)))
    return len(frames)


@pytest.mark.skipif(not (WATER.exists() and GOLDEN.exists()), reason=f"water data or golden model not in {SHARED_DATA}")
def test_lammps_pair_style_writes_the_deviation_of_the_python_command(tmp_path):
    from sampan.cli import main
    source = WATER / "data_3"
    coord = np.load(source / "set.000" / "coord.npy")[0].reshape(-1, 3).astype(float)
    cell = np.load(source / "set.000" / "box.npy")[0].reshape(3, 3).astype(float)
    L = cell[0, 0]
    coord = coord - np.floor(coord / L) * L   # the water cell is cubic
    types = np.loadtxt(source / "type.raw", dtype=int)
    lines = ["water", "", f"{len(coord)} atoms", "2 atom types", "", f"0 {L:.17g} xlo xhi", f"0 {L:.17g} ylo yhi",
             f"0 {L:.17g} zlo zhi", "", "Masses", "", "1 15.999", "2 1.008", "", "Atoms # atomic", ""]
    lines += [f"{i + 1} {t + 1} {p[0]:.17g} {p[1]:.17g} {p[2]:.17g}" for i, (t, p) in enumerate(zip(types, coord))]
    (tmp_path / "data.lmp").write_text("\n".join(lines) + "\n")
    models = perturbed_models(tmp_path, 3)
    texts = {}
    for ranks in (1, 2):
        (tmp_path / f"r{ranks}").mkdir()
        texts[ranks] = lammps_run(tmp_path / f"r{ranks}", models, ranks)
    assert "1 by 1 by 2 MPI" in (tmp_path / "r2" / "log.lammps").read_text() or \
        "1 by 2 by 1 MPI" in (tmp_path / "r2" / "log.lammps").read_text() or \
        "2 by 1 by 1 MPI" in (tmp_path / "r2" / "log.lammps").read_text()
    header = texts[1].splitlines()[0]
    assert header.lstrip("#").split() == list(COLUMNS[:7])
    lmp = np.loadtxt(tmp_path / "r1" / "model_devi.out")
    assert lmp.shape == (5, 7) and list(lmp[:, 0]) == [0, 5, 10, 15, 20]
    # under MPI (ghost forces of every model reverse-communicated, reductions over ranks): the same rows
    np.testing.assert_allclose(np.loadtxt(tmp_path / "r2" / "model_devi.out"), lmp, rtol=1e-6)

    nframes = dumped_system(tmp_path / "r1" / "traj.dump", tmp_path / "frames", cell)
    assert nframes == 5
    out = tmp_path / "python_devi.out"
    assert main(["deepmd", "model-devi", "-m", *models, "-s", str(tmp_path / "frames"), "-o", str(out), "-f", "5"]) == 0
    ours = np.loadtxt(out)
    np.testing.assert_allclose(lmp, ours[:, :7], rtol=2e-6)
    assert lmp[:, 4].min() > 1e-4


@pytest.mark.skipif(not GOLDEN.exists(), reason=f"golden model not found at {GOLDEN}")
def test_lammps_ensemble_errors_name_the_problem(tmp_path):
    import os
    import subprocess
    from pathlib import Path
    import sampan as sp
    driver = Path(os.environ.get("SAMPAN_LMP_DRIVER", Path(__file__).resolve().parents[2] / "build" / "bin" / "sampan-lmp"))
    if not driver.exists():
        pytest.skip(f"sampan-lmp not built at {driver}")
    models = perturbed_models(tmp_path, 2)
    other = sp.deepmd.load_model(str(GOLDEN))
    cfg = dict(other.config, type_map=["H", "O"])
    renamed = sp.deepmd.DeepPot(cfg, 1)
    renamed.save(str(tmp_path / "renamed.h5"))
    (tmp_path / "data.lmp").write_text("w\n\n1 atoms\n2 atom types\n\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\n"
                                       "Masses\n\n1 16\n2 1\n\nAtoms # atomic\n\n1 1 1 1 1\n")
    cases = {f"{models[0]} {models[1]} out_freq 0": "out_freq must be >= 1",
             f"{models[0]} {tmp_path / 'renamed.h5'}": "another cutoff or type map",
             f"{models[0]} {models[1]} out_fre 5": "no such file: out_fre"}  # taken as a model file
    for style, message in cases.items():
        (tmp_path / "in.lmp").write_text(f"units metal\natom_style atomic\nread_data data.lmp\npair_style sampan {style}\n")
        proc = subprocess.run([str(driver), "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0
        assert message in (tmp_path / "log.lammps").read_text() + proc.stdout + proc.stderr, style
