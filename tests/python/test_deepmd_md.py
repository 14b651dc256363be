"""sampan.deepmd.md: MD from Python with C++ and Python potentials (incl. the LJ op)."""
from shared_data import SHARED_DATA
import numpy as np
import pytest

import sampan as sp
from sampan.deepmd import md
from md_systems import fcc_lattice

EPS = [[0.0104, 0.0120], [0.0120, 0.0150]]
SIGMA = [[3.40, 3.30], [3.30, 3.20]]


def fcc(n, a, tilt=(0.0, 0.0, 0.0), jitter=0.2, seed=0, two_types=True):
    """fcc_lattice with the cell as an md.Box."""
    x, types, cell = fcc_lattice(n, a, tilt, jitter, seed, two_types)
    return x, types, md.box(cell)


def test_neighbor_list_matches_numpy_brute_force():
    x, _, box = fcc(2, 5.0, tilt=(1.0, -0.5, 0.4), seed=1)
    nl = md.neighbor_list(x, box, 4.0)
    cell = np.asarray(box.cell).reshape(3, 3)
    # Brute force over images -2..2 (heights are ~10 Å, rcut 4 Å).
    found = set()
    rng = range(-2, 3)
    for i in range(len(x)):
        for j in range(len(x)):
            for n in [(a, b, c) for a in rng for b in rng for c in rng]:
                if i == j and n == (0, 0, 0):
                    continue
                d = x[j] - x[i] + np.array(n) @ cell
                if d @ d < 16.0:
                    found.add((i, j, n))
    ours = set()
    for i in range(len(x)):
        for p in range(nl["offsets"][i], nl["offsets"][i + 1]):
            ours.add((i, int(nl["neighbors"][p]), tuple(int(v) for v in nl["shifts"][p])))
            d = x[nl["neighbors"][p]] - x[i] + nl["shifts"][p] @ cell
            np.testing.assert_allclose(nl["vectors"][p], d, atol=1e-12)
    assert ours == found and len(found) > 100


def test_lj_op_potential_agrees_with_cpp_lennard_jones():
    x, types, box = fcc(2, 5.26, tilt=(0.8, 0.4, -0.6), seed=2)
    cpp = md.LennardJones(EPS, SIGMA, rcut=6.5)
    op = md.LjOpPotential(EPS, SIGMA, rcut=6.5)
    e1, f1, w1 = md.evaluate(cpp, x, types, box)
    e2, f2, w2 = md.evaluate(op, x, types, box)
    assert abs(e1) > 0.1
    assert abs(e1 - e2) < 1e-10
    np.testing.assert_allclose(f2, f1, atol=1e-10)
    np.testing.assert_allclose(w2, w1, atol=1e-10)
    assert abs(np.trace(w1)) > 1e-3


def test_nve_with_python_potential_follows_the_cpp_trajectory_and_writes_h5md(tmp_path):
    x, types, box = fcc(2, 5.26, seed=3)
    states = []
    # Shifted: the unshifted energy jumps by u(rcut) whenever a pair crosses the cutoff.
    for name, pot in (("cpp", md.LennardJones(EPS, SIGMA, rcut=6.5, shift=True, skin=1.0)),
                      ("op", md.LjOpPotential(EPS, SIGMA, rcut=6.5, shift=True))):
        s = md.State(x, types, masses=[39.948, 83.798], box=box)
        s.initialize_velocities(150.0, seed=4)
        np.testing.assert_allclose(s.total_momentum(), 0.0, atol=1e-10)
        path = tmp_path / f"{name}.h5"
        th = md.run(s, pot, md.VelocityVerlet(dt_fs=2.0), steps=20, thermo_every=5, trajectory=path,
                    trajectory_every=10, type_names=["Ar", "Kr"])
        states.append((s, th, path))
    (a, tha, pa), (b, thb, pb) = states
    # The same dynamics from the same start: only summation order differs.
    np.testing.assert_allclose(b.positions, a.positions, atol=1e-10)
    np.testing.assert_allclose(thb["etotal"], tha["etotal"], atol=1e-10)
    assert list(tha["step"]) == [0, 5, 10, 15, 20]
    assert np.ptp(tha["etotal"]) < 1e-5 * len(x)  # NVE: energy conserved over 40 fs
    traj = md.read_h5md(pa)
    assert list(traj["step"]) == [0, 10, 20]
    np.testing.assert_array_equal(traj["position"][-1], a.positions)
    assert traj["type_names"] == ["Ar", "Kr"] and traj["boundary"] == ["periodic"] * 3
    np.testing.assert_allclose(traj["observables"]["total_energy"], tha["etotal"][::2])
    xyz = tmp_path / "t.xyz"
    md.h5md_to_extxyz(pa, xyz)
    lines = xyz.read_text().splitlines()
    assert len(lines) == 3 * (len(x) + 2) and lines[2].split()[0] in ("Ar", "Kr")


def test_nose_hoover_from_python_reaches_the_target_temperature():
    x, types, box = fcc(3, 5.8, jitter=0.2, seed=5, two_types=False)
    s = md.State(x, types, masses=[39.948], box=box)
    s.initialize_velocities(50.0, seed=6)
    lj = md.LennardJones(0.0104, 3.40, rcut=8.5, shift=True, skin=1.0)
    th = md.run(s, lj, md.NoseHooverChain(dt_fs=5.0, temperature=150.0, tau_fs=250.0), steps=1500,
                thermo_every=10)
    mean = th["temperature"][len(th["temperature"]) // 3:].mean()
    assert abs(mean - 150.0) < 10.0  # 108 atoms: about 14 % per-sample fluctuation
    assert np.ptp(th["conserved"]) / len(x) < 2e-4


def test_python_potential_errors_are_clear():
    class Broken(md.Potential):
        def compute(self, positions, types, box):
            return 0.0, np.zeros((len(positions), 2)), None

        def cutoff(self):
            return 3.0

        def ntypes(self):
            return 1

    x, types, box = fcc(1, 5.0, seed=7, two_types=False)
    s = md.State(x, types, masses=[1.0], box=box)
    with pytest.raises(ValueError, match="forces"):
        md.run(s, Broken(), md.VelocityVerlet(1.0), steps=1)
    with pytest.raises(ValueError, match="shape"):
        md.State(np.zeros((4, 2)), [0] * 4, [1.0], box)
    with pytest.raises(ValueError, match="units"):
        md.VelocityVerlet(1.0, units="si")
    with pytest.raises(ValueError, match="symmetric"):
        md.LennardJones([[1, 2], [3, 4]], 1.0, rcut=2.0)


def test_nve_with_the_deepmd_model_conserves_energy():
    import os
    import pathlib
    golden = SHARED_DATA / "deepmd_golden_se_e2_a"
    if not (golden / "deeppot_sea.yaml").exists():
        pytest.skip(f"golden model not found in {golden}")
    pot = md.load_deeppot(golden / "deeppot_sea.yaml")
    assert pot.cutoff() == 6.0 and pot.ntypes() == 2
    # DeePMD-kit's 6-atom test configuration (O H H O H H) in a 13 Å cube, 300 K, dt 0.5 fs.
    x = np.array([12.83, 2.56, 2.18, 12.09, 2.87, 2.74, 0.25, 3.32, 1.68,
                  3.36, 3.00, 1.81, 3.51, 2.51, 2.60, 4.27, 3.22, 1.56]).reshape(6, 3)
    s = md.State(x, [0, 1, 1, 0, 1, 1], masses=[15.999, 1.008], box=md.box([13.0] * 3))
    s.initialize_velocities(300.0, seed=2)
    # The model object of sampan.deepmd (DeepPot) drives MD too, with the same numbers.
    from sampan.deepmd.model import load_model
    e1, f1, _ = md.evaluate(pot, x, [0, 1, 1, 0, 1, 1], md.box([13.0] * 3))
    e2, f2, _ = md.evaluate(load_model(golden / "deeppot_sea.yaml"), x, [0, 1, 1, 0, 1, 1], md.box([13.0] * 3))
    assert e1 == e2 and np.array_equal(f1, f2)
    th = md.run(s, pot, md.VelocityVerlet(dt_fs=0.5), steps=40, thermo_every=5)  # ~50 ms a step today
    assert np.isfinite(th["etotal"]).all()
    assert np.ptp(th["ke"]) > 1e-4  # the atoms move and exchange energy with the model
    assert np.ptp(th["etotal"]) < 0.02 * np.ptp(th["ke"]) + 1e-6


def test_radial_distribution_of_an_ideal_gas_is_one_and_fcc_has_twelve_neighbours():
    rng = np.random.default_rng(8)
    L = 20.0
    x = rng.uniform(0, L, size=(4, 800, 3))  # 4 frames of an ideal gas
    r, g = md.radial_distribution(x, np.eye(3) * L, rmax=8.0, nbins=20)
    inner = (r > 2.0)
    assert abs(g[inner].mean() - 1.0) < 0.03 and np.abs(g[inner] - 1.0).max() < 0.2
    # fcc, lattice a: 12 nearest neighbours at a / sqrt(2); the running coordination number
    # 4 pi rho int g r^2 dr reaches exactly 12 between the first and second shells (a).
    xf, types, b = fcc(3, 5.0, jitter=0.0, two_types=False)
    cell = np.asarray(b.cell).reshape(3, 3)
    r, g = md.radial_distribution(xf, cell, rmax=4.2, nbins=42)
    rho = (len(xf) - 1) / b.volume()  # g is normalised by the density of the other atoms
    shells = 4.0 / 3.0 * np.pi * np.diff(np.linspace(0, 4.2, 43) ** 3)
    coordination = np.cumsum(g * shells) * rho
    assert coordination[r < 3.3][-1] == pytest.approx(0.0, abs=1e-9)
    assert coordination[-1] == pytest.approx(12.0, abs=1e-9)
    assert r[np.argmax(g)] == pytest.approx(5.0 / np.sqrt(2), abs=0.1)
    # Type pairs: g_01 of the two-type crystal counts type-1 atoms around type-0 ones.
    xt, tt, bt = fcc(2, 5.0, jitter=0.0)
    r, g01 = md.radial_distribution(xt, np.asarray(bt.cell).reshape(3, 3), 4.0, nbins=40, types=tt, pair=(0, 1))
    assert np.isfinite(g01).all() and g01.max() > 0
    with pytest.raises(ValueError, match="needs types"):
        md.radial_distribution(xt, np.eye(3) * 10, 4.0, pair=(0, 1))


def test_cli_md_runs_the_model_from_a_deepmd_system(tmp_path):
    import os
    import pathlib
    import subprocess
    import sys
    golden = SHARED_DATA / "deepmd_golden_se_e2_a"
    if not (golden / "deeppot_sea.yaml").exists():
        pytest.skip(f"golden model not found in {golden}")
    system = tmp_path / "sys"
    (system / "set.000").mkdir(parents=True)
    (system / "type.raw").write_text("0\n1\n1\n0\n1\n1\n")
    (system / "type_map.raw").write_text("O\nH\n")
    x = np.array([12.83, 2.56, 2.18, 12.09, 2.87, 2.74, 0.25, 3.32, 1.68,
                  3.36, 3.00, 1.81, 3.51, 2.51, 2.60, 4.27, 3.22, 1.56])
    np.save(system / "set.000" / "coord.npy", x[None])
    np.save(system / "set.000" / "box.npy", (np.eye(3) * 13.0).reshape(1, 9))
    traj = tmp_path / "md.h5"
    proc = subprocess.run([sys.executable, "-m", "sampan", "deepmd", "md", "-m", str(golden / "deeppot_sea.yaml"),
                           "-s", str(system), "--steps", "10", "--dt", "0.5", "--thermo", "5", "--traj", str(traj),
                           "--traj-every", "5"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "conserved-energy drift" in proc.stdout and "Temp(K)" in proc.stdout
    t = md.read_h5md(traj)
    assert list(t["step"]) == [0, 5, 10] and t["type_names"] == ["O", "H"]
    np.testing.assert_allclose(t["mass"], [15.999, 1.008, 1.008, 15.999, 1.008, 1.008])
