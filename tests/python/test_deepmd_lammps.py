"""The LAMMPS pair style sampan/deepmd (driver build/bin/sampan-lmp) against LAMMPS's own lj/cut
on the same system, under mpirun -n 2 (spatial decomposition with ghost atoms) and serially."""
from shared_data import SHARED_DATA
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DRIVER = pathlib.Path(os.environ.get("SAMPAN_LMP_DRIVER", REPO / "build" / "bin" / "sampan-lmp"))
MPIRUN = shutil.which("mpirun")

pytestmark = [
    pytest.mark.skipif(not DRIVER.exists(), reason=f"sampan-lmp not built at {DRIVER} (needs liblammps-dev, "
                                                   "libfmt-dev and MPI; set SAMPAN_LMP_DRIVER)"),
    pytest.mark.skipif(MPIRUN is None, reason="mpirun not found"),
]

PAIRS = {"sampan": "pair_style sampan/deepmd lj 8.0 shift yes\n",
         "ljcut": "pair_style lj/cut 8.0\npair_modify shift yes\n"}
COEFFS = "pair_coeff 1 1 0.0104 3.40\npair_coeff 1 2 0.0120 3.30\npair_coeff 2 2 0.0150 3.20\n"


def write_data(path, seed=3):
    rng = np.random.default_rng(seed)
    n, a = 4, 5.5
    L = n * a
    cell = np.array([[L, 0, 0], [1.5, L, 0], [-1.0, 0.8, L]])
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    frac = np.array([(np.array([i, j, k]) + b) / n for i in range(n) for j in range(n) for k in range(n)
                     for b in basis])
    x = frac @ cell + rng.uniform(-0.2, 0.2, frac.shape)
    v = rng.normal(0.0, 2.0, x.shape)
    types = [2 if i % 3 == 0 else 1 for i in range(len(x))]
    lines = ["sampan pair style test", "", f"{len(x)} atoms", "2 atom types", "",
             f"0 {L:.17g} xlo xhi", f"0 {L:.17g} ylo yhi", f"0 {L:.17g} zlo zhi",
             f"{cell[1, 0]:.17g} {cell[2, 0]:.17g} {cell[2, 1]:.17g} xy xz yz", "", "Masses", "",
             "1 39.948", "2 83.798", "", "Atoms # atomic", ""]
    lines += [f"{i + 1} {t} {p[0]:.17g} {p[1]:.17g} {p[2]:.17g}" for i, (t, p) in enumerate(zip(types, x))]
    lines += ["", "Velocities", ""] + [f"{i + 1} {u[0]:.17g} {u[1]:.17g} {u[2]:.17g}" for i, u in enumerate(v)]
    path.write_text("\n".join(lines) + "\n")
    return len(x)


def run(tmp, name, ranks):
    folder = tmp / f"{name}_{ranks}"
    folder.mkdir()
    write_data(folder / "data.lmp")
    (folder / "in.lmp").write_text(
        "units metal\natom_style atomic\nboundary p p p\natom_modify map array\nread_data data.lmp\n"
        + PAIRS[name] + COEFFS +
        "neighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\ntimestep 0.002\nfix 1 all nve\n"
        "thermo 10\nthermo_style custom step pe ke press\n"
        "variable e equal pe\nvariable k equal ke\nvariable p equal press\n"
        "fix p all print 10 \"$(step) ${e} ${k} ${p}\" file thermo.txt screen no\n"
        "dump d all custom 50 forces.dump id fx fy fz\ndump_modify d sort id format float %.17g\nrun 50\n")
    flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    cmd = [MPIRUN, "-n", str(ranks), *flags, str(DRIVER), "in.lmp", "-log", "log.lammps", "-screen", "none"]
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    log = (folder / "log.lammps").read_text() if (folder / "log.lammps").exists() else ""
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}{log[-2000:]}"
    thermo = np.loadtxt(folder / "thermo.txt")
    frames = [[]]
    for line in (folder / "forces.dump").read_text().splitlines():
        parts = line.split()
        if line.startswith("ITEM: TIMESTEP") and frames[-1]:
            frames.append([])
        if len(parts) == 4 and not line.startswith("ITEM"):
            frames[-1].append([float(p) for p in parts[1:]])
    return thermo, np.array(frames), log


def test_pair_style_matches_lj_cut_under_mpi(tmp_path):
    ours2, f_ours2, log = run(tmp_path, "sampan", 2)
    ref2, f_ref2, _ = run(tmp_path, "ljcut", 2)
    ours1, f_ours1, _ = run(tmp_path, "sampan", 1)
    assert "2 by 1 by 1 MPI" in log or "1 by 2 by 1 MPI" in log or "1 by 1 by 2 MPI" in log, log[:2000]
    assert ours2.shape == (6, 4) and f_ours2.shape == (2, 256, 3)
    # Step 0: the same energy, forces and pressure as lj/cut (to round-off).
    assert abs(ours2[0, 1] - ref2[0, 1]) < 1e-10
    np.testing.assert_allclose(f_ours2[0], f_ref2[0], atol=1e-10)
    assert abs(ours2[0, 3] - ref2[0, 3]) < 1e-6  # bar
    # 50 steps of NVE: the trajectories stay together (chaos has not amplified round-off yet).
    np.testing.assert_allclose(ours2[:, 1:3], ref2[:, 1:3], atol=1e-9)
    np.testing.assert_allclose(f_ours2[1], f_ref2[1], atol=1e-8)
    # Two ranks and one rank agree.
    np.testing.assert_allclose(ours2[:, 1:], ours1[:, 1:], atol=1e-9)
    assert np.abs(f_ours2[0]).max() > 0.01


GOLDEN = SHARED_DATA / "deepmd_golden_se_e2_a"
# Block 1 of DeePMD-kit's deeppot-testcase.yaml: 6 atoms (O H H O H H) in a 13 Å cube.
GOLDEN_COORD = np.array([12.83, 2.56, 2.18, 12.09, 2.87, 2.74, 0.25, 3.32, 1.68,
                         3.36, 3.00, 1.81, 3.51, 2.51, 2.60, 4.27, 3.22, 1.56]).reshape(6, 3)
GOLDEN_TYPES = [0, 1, 1, 0, 1, 1]


def compressed_golden(tmp_path):
    """The golden model compressed for neighbours no closer than 0.95 x the frame's closest pair, with
    a coarse step (0.5): at the default 0.01 its tables equal this small net to the last bit of the
    forces, and the test could not tell whether LAMMPS used them."""
    from sampan.deepmd.model import DeepPot
    L = 13.0
    d = GOLDEN_COORD[:, None, :] - GOLDEN_COORD[None, :, :]
    d -= L * np.round(d / L)
    r = np.linalg.norm(d, axis=-1)[np.triu_indices(len(GOLDEN_COORD), 1)]
    pot = DeepPot.from_deepmd_yaml(str(GOLDEN / "deeppot_sea.yaml"))
    pot.compress(0.95 * r.min(), 0.5)
    path = tmp_path / "compressed.h5"
    pot.save(str(path))
    return path


@pytest.mark.skipif(not (GOLDEN / "deeppot_sea.yaml").exists(), reason=f"golden model not found in {GOLDEN}")
@pytest.mark.parametrize("kind", ["deepmd-kit yaml", "compressed"])
def test_pair_style_runs_the_deepmd_model(tmp_path, kind):
    from sampan.deepmd import md
    model = GOLDEN / "deeppot_sea.yaml" if kind == "deepmd-kit yaml" else compressed_golden(tmp_path)
    L = 13.0
    lines = ["golden", "", "6 atoms", "2 atom types", "", f"0 {L} xlo xhi", f"0 {L} ylo yhi", f"0 {L} zlo zhi", "",
             "Masses", "", "1 15.999", "2 1.008", "", "Atoms # atomic", ""]
    lines += [f"{i + 1} {t + 1} {p[0]:.17g} {p[1]:.17g} {p[2]:.17g}"
              for i, (t, p) in enumerate(zip(GOLDEN_TYPES, GOLDEN_COORD))]
    (tmp_path / "data.lmp").write_text("\n".join(lines) + "\n")
    (tmp_path / "in.lmp").write_text(
        "units metal\natom_style atomic\nboundary p p p\natom_modify map array\nread_data data.lmp\n"
        f"pair_style sampan/deepmd model {model}\npair_coeff * * O H\n"
        "compute p all pressure NULL virial\nthermo_style custom step pe c_p[1] c_p[2] c_p[3] c_p[4] c_p[5] c_p[6]\n"
        "dump d all custom 1 forces.dump id fx fy fz\ndump_modify d sort id format float %.17g\nrun 0\n"
        "print \"$(pe:%.17g) $(c_p[1]:%.17g) $(c_p[2]:%.17g) $(c_p[3]:%.17g) $(c_p[4]:%.17g) $(c_p[5]:%.17g) "
        "$(c_p[6]:%.17g)\" file global.txt\n")
    cmd = [str(DRIVER), "in.lmp", "-log", "log.lammps", "-screen", "none"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    log = (tmp_path / "log.lammps").read_text() if (tmp_path / "log.lammps").exists() else ""
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:] + log[-2000:]
    g = np.loadtxt(tmp_path / "global.txt")
    forces = np.array([[float(v) for v in line.split()[1:]] for line in (tmp_path / "forces.dump").read_text()
                       .splitlines()[9:]])
    e, f, w = md.evaluate(md.load_deeppot(model), GOLDEN_COORD, GOLDEN_TYPES, md.box([L, L, L]))
    if kind == "compressed":  # the tables stand in for the nets, to the compression's accuracy
        e_net, f_net, _ = md.evaluate(md.load_deeppot(GOLDEN / "deeppot_sea.yaml"), GOLDEN_COORD, GOLDEN_TYPES,
                                      md.box([L, L, L]))
        assert abs(e - e_net) < 1e-6 * 6 and np.max(np.abs(f - f_net)) < 1e-5
        assert np.max(np.abs(f - f_net)) > 1e-9  # above the 1e-10 below: LAMMPS's numbers are the tables' ones
    assert abs(g[0] - e) < 1e-10
    np.testing.assert_allclose(forces, f, atol=1e-10)
    pv = w[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]] / L ** 3 * 1.6021765e6  # virial pressure, bar
    np.testing.assert_allclose(g[1:], pv, atol=1e-8)
    # Two ranks: the model's compute_local (owned atoms + ghosts; one rank may own none) gives the
    # same energy, forces and pressure as one rank.
    flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    proc = subprocess.run([MPIRUN, "-n", "2", *flags, *cmd], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    log = (tmp_path / "log.lammps").read_text()
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:] + log[-2000:]
    g2 = np.loadtxt(tmp_path / "global.txt")
    forces2 = np.array([[float(v) for v in line.split()[1:]] for line in (tmp_path / "forces.dump").read_text()
                        .splitlines()[9:]])
    assert abs(g2[0] - e) < 1e-10
    np.testing.assert_allclose(forces2, f, atol=1e-10)
    np.testing.assert_allclose(g2[1:], pv, atol=1e-8)
