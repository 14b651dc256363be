"""Traced potentials in the MD engine, the md CLI and LAMMPS: energy(positions, types, box)
written with ops and traced by sp.jit (md.trace_potential), replayed in C++ (md.GraphPotential:
forces and virial by sp.grad through the replay).

(a) Lennard-Jones of a custom op (the module's deepmd::lj_energy; the example op library's
    md::lj_energy where built), (b) a pair potential of core ops only, (c) the DeePMD model
    (DeepPot.energy, the neighbour search the op deepmd::extended_system). Each replayed graph
    drives MD along the trajectory of the eager function it was traced from (the same ops in the
    same order), at another atom count than the trace too, and the traced DeePMD model equals
    DeepPot to 1e-12 in energy, forces and virial."""
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import sampan as sp
from sampan.deepmd import md
from sampan.deepmd.model import load_model
from shared_data import SHARED_DATA
from md_systems import fcc_lattice

REPO = pathlib.Path(__file__).resolve().parents[2]
DPKIT = SHARED_DATA / "deepmd_dpkit_models"
GOLDEN = SHARED_DATA / "deepmd_golden_se_e2_a"
LJ_LIBRARY = REPO / "build" / "examples" / "lennard_jones" / "libsampan_lj.so"
DRIVER = pathlib.Path(os.environ.get("SAMPAN_LMP_DRIVER", REPO / "build" / "bin" / "sampan-lmp"))
needs_dpkit = pytest.mark.skipif(not (DPKIT / "reference.npz").exists(),
                                 reason=f"DeePMD-kit-written models not found at {DPKIT}")
needs_golden = pytest.mark.skipif(not (GOLDEN / "deeppot_sea.yaml").exists(),
                                  reason=f"golden model not found in {GOLDEN}")

EPS = [[0.0104, 0.0120], [0.0120, 0.0150]]
SIGMA = [[3.40, 3.30], [3.30, 3.20]]
RCUT = 6.5


fcc = fcc_lattice


def lj_custom_op(positions, types, box):
    """(a) the module's Lennard-Jones op over the op-made pair list."""
    pairs, images = sp.ops.deepmd.pair_list(positions, box, RCUT, True)
    return sp.ops.deepmd.lj_energy(positions, types, pairs, sp.matmul(images, box), np.ravel(EPS).tolist(),
                                   np.ravel(SIGMA).tolist(), RCUT, True)


def lj_core_ops(positions, types, box):
    """(b) the same shifted lj/cut with core ops only (one pair table lookup by index)."""
    pairs, images = sp.ops.deepmd.pair_list(positions, box, RCUT, True)
    i, j = pairs.select(1, 0), pairs.select(1, 1)
    d = sp.index_select(positions, 0, j) - sp.index_select(positions, 0, i) + sp.matmul(images, box)
    r2 = (d * d).sum([1])
    pair_type = sp.index_select(types, 0, i) * 2 + sp.index_select(types, 0, j)
    eps = sp.index_select(sp.tensor(np.ravel(EPS)), 0, pair_type)
    sigma2 = sp.index_select(sp.tensor(np.ravel(SIGMA) ** 2), 0, pair_type)
    sr6 = (sigma2 / r2) ** 3
    src6 = (sigma2 / RCUT ** 2) ** 3
    return (eps * 4.0 * (sr6 * sr6 - sr6 - (src6 * src6 - src6))).sum()


def run_nve(potential, x, types, cell, steps=30, dt=2.0, seed=4):
    s = md.State(x, types, masses=[39.948, 83.798], box=md.box(cell))
    s.initialize_velocities(150.0, seed=seed)
    th = md.run(s, potential, md.VelocityVerlet(dt_fs=dt), steps=steps, thermo_every=5)
    return s, th


@pytest.mark.parametrize("energy", [lj_custom_op, lj_core_ops], ids=["custom_op", "core_ops"])
def test_traced_lj_runs_md_along_the_eager_trajectory(energy):
    x, types, cell = fcc(2, 5.26, tilt=(0.8, -0.5, 0.3), seed=3)  # 32 atoms, rcut 6.5 > half box
    graph = md.trace_potential(energy, x, types, cell)
    assert graph.inputs[0]["dims"] == ["atoms", None] and graph.inputs[1]["dims"] == ["atoms"]
    ops = set(graph.ops)
    assert "deepmd::pair_list" in ops
    if energy is lj_core_ops:
        assert all(op.startswith("core::") for op in ops - {"deepmd::pair_list"}), ops
    # Energy, forces, virial of the replay against the eager function and the C++ lj/cut.
    cpp = md.LennardJones(EPS, SIGMA, rcut=RCUT, shift=True)
    e_ref, f_ref, w_ref = md.evaluate(cpp, x, types, md.box(cell))
    e_g, f_g, w_g = md.evaluate(graph, x, types, md.box(cell))
    e_e, f_e, w_e = md.evaluate(md.FunctionPotential(energy), x, types, md.box(cell))
    assert abs(e_g - e_e) <= 1e-12 and np.abs(f_g - f_e).max() <= 1e-12 and np.abs(w_g - w_e).max() <= 1e-12
    assert abs(e_g - e_ref) < 1e-12 and np.abs(f_g - f_ref).max() < 1e-12 and np.abs(w_g - w_ref).max() < 1e-11
    assert np.abs(f_ref).max() > 1e-3 and np.abs(w_ref - w_ref.T).max() < 1e-12
    # MD: the replay follows the eager function's trajectory; NVE conserves the energy.
    s_g, th_g = run_nve(graph, x, types, cell)
    s_e, th_e = run_nve(md.FunctionPotential(energy), x, types, cell)
    np.testing.assert_allclose(s_g.positions, s_e.positions, rtol=0, atol=1e-12)
    np.testing.assert_allclose(th_g["etotal"], th_e["etotal"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(th_g["pressure"], th_e["pressure"], rtol=1e-12, atol=1e-9)
    assert np.ptp(th_g["ke"]) > 1e-3 and np.ptp(th_g["etotal"]) < 1e-5 * len(x)
    # Another atom count than the trace: a 3x3x3 box of 108 atoms, against lj/cut.
    x3, t3, c3 = fcc(3, 5.26, seed=5)
    e3, f3, w3 = md.evaluate(graph, x3, t3, md.box(c3))
    e3r, f3r, w3r = md.evaluate(cpp, x3, t3, md.box(c3))
    assert len(x3) == 108 and abs(e3 - e3r) < 1e-12 and np.abs(f3 - f3r).max() < 1e-12


@pytest.mark.skipif(not LJ_LIBRARY.exists(), reason=f"the example op library {LJ_LIBRARY} is not built")
def test_traced_example_library_op_runs_md_from_its_graph_file(tmp_path):
    """(a) with a user's op library: md::lj_energy (reduced units, orthorhombic minimum image).
    In a child process: this one may hold another build of the example's ops already (op names
    are unique in a process; test_cpp_extension.py builds the example just in time)."""
    here = pathlib.Path(__file__).resolve().parent
    code = (f"import sys; sys.path.insert(0, {str(here)!r}); import test_deepmd_traced as t; "
            f"t.example_library_md(t.pathlib.Path({str(tmp_path)!r}))")
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr


def example_library_md(tmp_path):
    sp.load_op_library(str(LJ_LIBRARY))

    def energy(positions, types, box):
        pairs, _ = sp.ops.deepmd.pair_list(positions, box, 2.5, True)
        return sp.ops.md.lj_energy(positions, pairs, sp.diagonal(box), 1.0, 1.0, 2.5)

    rng = np.random.default_rng(1)
    n, a = 4, 1.35
    grid = np.array([[i, j, k] for i in range(n) for j in range(n) for k in range(n)], dtype=float) * a
    x = grid + rng.uniform(-0.1, 0.1, grid.shape)
    cell = np.eye(3) * n * a  # 5.4 > 2 x 2.5: one image per pair
    types = np.zeros(len(x), dtype=np.int64)
    graph = md.trace_potential(energy, x, types, cell)
    path = tmp_path / "lj_library.h5"
    graph.save(path)
    assert md.is_graph_file(path) and [name for name, _ in graph.libraries] == [str(LJ_LIBRARY)]
    s_file = md.State(x, types, masses=[1.0], box=md.box(cell))
    s_eager = md.State(x, types, masses=[1.0], box=md.box(cell))
    th_f = md.run(s_file, str(path), md.VelocityVerlet(dt_fs=0.5), steps=20, thermo_every=5)
    th_e = md.run(s_eager, md.FunctionPotential(energy), md.VelocityVerlet(dt_fs=0.5), steps=20, thermo_every=5)
    np.testing.assert_allclose(s_file.positions, s_eager.positions, rtol=0, atol=1e-12)
    np.testing.assert_allclose(th_f["etotal"], th_e["etotal"], rtol=0, atol=1e-12)
    assert np.ptp(th_f["ke"]) > 1e-4


def dpkit_frame(name):
    ref = np.load(DPKIT / "reference.npz")
    return ref[f"{name}/coord"].reshape(-1, 3), ref[f"{name}/types"], ref[f"{name}/box"].reshape(3, 3)


@needs_dpkit
@pytest.mark.parametrize("name", ["se_e2_a_two_side", "se_e2_a_four_types"])
def test_traced_deepmd_model_equals_deeppot(name, tmp_path):
    model = load_model(DPKIT / f"{name}.yaml")
    x, types, cell = dpkit_frame(name)  # 24 atoms, triclinic
    graph = md.trace_potential(model.energy, x, types, cell)
    assert "deepmd::extended_system" in graph.ops and "deepmd::prod_env_mat_a" in graph.ops
    path = tmp_path / "traced.h5"
    md.save_potential(graph, path, cutoff=model.config["rcut"], type_map=model.config["type_map"])
    loaded = md.load_potential(path)
    assert loaded.cutoff() == model.config["rcut"] and loaded.type_map == model.config["type_map"]
    # The trace's frame, a 2x supercell (48 atoms: another atom count) and open boundaries.
    x2 = np.concatenate([x, x + cell[0]])
    cell2 = cell.copy()
    cell2[0] *= 2
    cases = [(x, types, md.box(cell)), (x2, np.concatenate([types, types]), md.box(cell2)),
             (x, types, md.box(None))]
    worst = [0.0, 0.0, 0.0]
    for xs, ts, box in cases:
        e0, f0, w0 = md.evaluate(model, xs, ts, box)
        for pot in (graph, loaded):
            e1, f1, w1 = md.evaluate(pot, xs, ts, box)
            worst = [max(worst[0], abs(e1 - e0)), max(worst[1], np.abs(f1 - f0).max()),
                     max(worst[2], np.abs(w1 - w0).max())]
        assert np.abs(f0).max() > 1e-3 and np.abs(w0).max() > 1e-3  # not vacuous
    assert worst[0] <= 1e-12 and worst[1] <= 1e-12 and worst[2] <= 1e-12, worst
    e_big = md.evaluate(model, x2, np.concatenate([types, types]), md.box(cell2))[0]
    assert abs(e_big - 2 * md.evaluate(model, x, types, md.box(cell))[0]) < 1e-10  # the supercell is the same crystal


@needs_golden
def test_traced_deepmd_model_runs_md_like_deeppot():
    model = load_model(GOLDEN / "deeppot_sea.yaml")
    x = np.array([12.83, 2.56, 2.18, 12.09, 2.87, 2.74, 0.25, 3.32, 1.68,
                  3.36, 3.00, 1.81, 3.51, 2.51, 2.60, 4.27, 3.22, 1.56]).reshape(6, 3)
    types = [0, 1, 1, 0, 1, 1]
    graph = md.trace_potential(model.energy, x, types, np.eye(3) * 13.0)
    runs = []
    for pot in (model, graph):
        s = md.State(x, types, masses=[15.999, 1.008], box=md.box([13.0] * 3))
        s.initialize_velocities(300.0, seed=2)
        th = md.run(s, pot, md.VelocityVerlet(dt_fs=0.5), steps=20, thermo_every=5)
        runs.append((s, th))
    (s0, th0), (s1, th1) = runs
    np.testing.assert_allclose(s1.positions, s0.positions, rtol=0, atol=1e-12)
    np.testing.assert_allclose(th1["etotal"], th0["etotal"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(th1["pressure"], th0["pressure"], rtol=1e-10, atol=1e-8)
    assert np.ptp(th0["ke"]) > 1e-4


def test_a_graph_that_does_not_fit_is_refused_naming_what_it_expected(tmp_path):
    two_inputs = sp.jit.trace(lambda x, y: (x * y).sum(), (sp.tensor(np.ones((4, 3))), sp.tensor(np.ones((4, 3)))))
    with pytest.raises(ValueError, match=r"the graph takes 2 inputs \(x: float64 \[4, 3\], y: float64 \[4, 3\]\); "
                                         r"an MD potential's graph takes 3: positions float64 \[N, 3\], types int64"):
        md.graph_potential(two_inputs)
    path = tmp_path / "two.h5"
    two_inputs.save(path)
    s = md.State(np.zeros((4, 3)) + np.arange(4)[:, None], [0] * 4, masses=[1.0], box=md.box([9.0] * 3))
    with pytest.raises(ValueError, match=r"two\.h5': the graph takes 2 inputs"):
        md.run(s, str(path), md.VelocityVerlet(1.0), steps=1)
    wrong_dtype = sp.jit.trace(lambda p, t, b: (p * p).sum(),
                               (sp.tensor(np.ones((4, 3))), sp.tensor(np.ones(4)), sp.tensor(np.eye(3))),
                               input_names=["positions", "types", "box"])
    with pytest.raises(ValueError, match=r"graph input 1 is types: float64 \[4\], expected types int64 \[N\]"):
        md.graph_potential(wrong_dtype)
    # A graph traced at a fixed atom count refuses another one, naming the input.
    fixed = sp.jit.trace(lj_core_ops, (sp.tensor(np.random.default_rng(0).uniform(0, 9, (4, 3))),
                                      sp.tensor(np.zeros(4, dtype=np.int64)), sp.tensor(np.eye(3) * 9.0)),
                         input_names=["positions", "types", "box"])
    with pytest.raises(ValueError, match=r"input 'positions': dimension 0 was fixed at 4 when traced, got 5"):
        md.evaluate(fixed, np.random.default_rng(1).uniform(0, 9, (5, 3)), [0] * 5, md.box([9.0] * 3))


def write_system(folder, x, cell, types, type_map):
    (folder / "set.000").mkdir(parents=True)
    (folder / "type.raw").write_text("".join(f"{t}\n" for t in types))
    (folder / "type_map.raw").write_text("".join(f"{n}\n" for n in type_map))
    np.save(folder / "set.000" / "coord.npy", np.asarray(x).reshape(1, -1))
    np.save(folder / "set.000" / "box.npy", np.asarray(cell).reshape(1, 9))


@needs_golden
def test_cli_md_runs_a_traced_graph_file_like_the_model(tmp_path):
    model = load_model(GOLDEN / "deeppot_sea.yaml")
    x = np.array([12.83, 2.56, 2.18, 12.09, 2.87, 2.74, 0.25, 3.32, 1.68,
                  3.36, 3.00, 1.81, 3.51, 2.51, 2.60, 4.27, 3.22, 1.56]).reshape(6, 3)
    types = [0, 1, 1, 0, 1, 1]
    # Traced on 3 atoms, run on the 6-atom system.
    graph = md.trace_potential(model.energy, x[:3], types[:3], np.eye(3) * 13.0)
    traced = tmp_path / "traced.h5"
    md.save_potential(graph, traced, cutoff=6.0, type_map=["O", "H"])
    write_system(tmp_path / "sys", x, np.eye(3) * 13.0, types, ["O", "H"])
    outs = []
    for m in (traced, GOLDEN / "deeppot_sea.yaml"):
        traj = tmp_path / f"{m.stem}.h5"
        proc = subprocess.run([sys.executable, "-m", "sampan", "deepmd", "md", "-m", str(m), "-s",
                               str(tmp_path / "sys"), "--steps", "10", "--dt", "0.5", "--thermo", "5", "--traj",
                               str(traj), "--traj-every", "5"], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(REPO / "python")})
        assert proc.returncode == 0, proc.stderr
        outs.append((proc.stdout, md.read_h5md(traj)))
    assert "traced graph" in outs[0][0] and "conserved-energy drift" in outs[0][0]
    np.testing.assert_allclose(outs[0][1]["position"], outs[1][1]["position"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(outs[0][1]["observables"]["total_energy"], outs[1][1]["observables"]["total_energy"],
                               rtol=0, atol=1e-12)


@pytest.mark.skipif(not DRIVER.exists(), reason=f"sampan-lmp not built at {DRIVER} (needs liblammps-dev, "
                                               "libfmt-dev and MPI; set SAMPAN_LMP_DRIVER)")
@needs_golden
def test_lammps_pair_style_runs_a_traced_graph(tmp_path):
    model = load_model(GOLDEN / "deeppot_sea.yaml")
    x = np.array([12.83, 2.56, 2.18, 12.09, 2.87, 2.74, 0.25, 3.32, 1.68,
                  3.36, 3.00, 1.81, 3.51, 2.51, 2.60, 4.27, 3.22, 1.56]).reshape(6, 3)
    types = [0, 1, 1, 0, 1, 1]
    L = 13.0
    graph = md.trace_potential(model.energy, x[:4], types[:4], np.eye(3) * L)  # another atom count
    graph.save(tmp_path / "traced.h5")  # no metadata: the cutoff and types come from the input script
    lines = ["golden", "", "6 atoms", "2 atom types", "", f"0 {L} xlo xhi", f"0 {L} ylo yhi", f"0 {L} zlo zhi", "",
             "Masses", "", "1 15.999", "2 1.008", "", "Atoms # atomic", ""]
    lines += [f"{i + 1} {t + 1} {p[0]:.17g} {p[1]:.17g} {p[2]:.17g}" for i, (t, p) in enumerate(zip(types, x))]
    (tmp_path / "data.lmp").write_text("\n".join(lines) + "\n")
    (tmp_path / "in.lmp").write_text(
        "units metal\natom_style atomic\nboundary p p p\natom_modify map array\nread_data data.lmp\n"
        "pair_style sampan/deepmd traced.h5 cutoff 6.0\npair_coeff * *\n"
        "compute p all pressure NULL virial\nthermo_style custom step pe c_p[1] c_p[2] c_p[3] c_p[4] c_p[5] c_p[6]\n"
        "dump d all custom 1 forces.dump id fx fy fz\ndump_modify d sort id format float %.17g\nrun 0\n"
        "print \"$(pe:%.17g) $(c_p[1]:%.17g) $(c_p[2]:%.17g) $(c_p[3]:%.17g) $(c_p[4]:%.17g) $(c_p[5]:%.17g) "
        "$(c_p[6]:%.17g)\" file global.txt\n")
    proc = subprocess.run([str(DRIVER), "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    log = (tmp_path / "log.lammps").read_text() if (tmp_path / "log.lammps").exists() else ""
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:] + log[-2000:]
    g = np.loadtxt(tmp_path / "global.txt")
    forces = np.array([[float(v) for v in line.split()[1:]] for line in (tmp_path / "forces.dump").read_text()
                       .splitlines()[9:]])
    e, f, w = md.evaluate(model, x, types, md.box([L, L, L]))
    assert abs(g[0] - e) < 1e-10
    np.testing.assert_allclose(forces, f, rtol=0, atol=1e-10)
    pv = w[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]] / L ** 3 * 1.6021765e6  # virial pressure, bar
    np.testing.assert_allclose(g[1:], pv, atol=1e-8)
    assert np.abs(f).max() > 1e-3
    # Two ranks: a graph has no atomic-energy decomposition, so the pair style refuses by name.
    mpirun = shutil.which("mpirun")
    if mpirun:
        flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
        proc = subprocess.run([mpirun, "-n", "2", *flags, str(DRIVER), "in.lmp", "-log", "log2.lammps", "-screen",
                               "none"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        text = proc.stdout + proc.stderr + ((tmp_path / "log2.lammps").read_text()
                                            if (tmp_path / "log2.lammps").exists() else "")
        assert proc.returncode != 0 and "runs on one MPI rank only" in text, text[-2000:]
