"""The same NVE with the water model in LAMMPS (sampan-lmp, pair_style sampan/deepmd) and in
sampan's MD engine, from the same positions and velocities (on demand).

    python bench/deepmd/nve_water_lammps.py -m frozen_model.h5 -s .../deepmd_water/data_3 [--steps 200]

Both use LAMMPS's metal constants and velocity Verlet at dt; LAMMPS rebuilds its neighbour list
with a 2 Å skin (checked every step), sampan's DeepPot recomputes its neighbours every step.
Prints the total-energy drift and fluctuation of each and their largest difference per step.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import sampan as sp  # noqa: F401
from sampan.deepmd import md
from sampan.deepmd.data import load_system
from sampan.deepmd.md_cli import _masses

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-m", "--model", required=True)
    p.add_argument("-s", "--system", required=True)
    p.add_argument("--frame", type=int, default=0)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--dt", type=float, default=0.5, help="fs")
    p.add_argument("-T", "--temperature", type=float, default=300.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--driver", default=os.path.join(ROOT, "build", "bin", "sampan-lmp"))
    args = p.parse_args(argv)
    if not os.path.exists(args.driver):
        print(f"nve_water_lammps: {args.driver} not built (needs liblammps-dev, libfmt-dev, MPI)")
        return 2

    system = load_system(args.system)
    types = np.asarray(system.atom_types)
    type_map = list(system.type_map)
    masses = _masses(type_map, [])
    cell = np.asarray(system.box[args.frame]).reshape(3, 3)
    assert np.allclose(cell, np.diag(np.diag(cell))), "orthorhombic boxes only here"
    L = np.diag(cell)
    x = np.mod(np.asarray(system.coord[args.frame]).reshape(-1, 3), L)  # wrapped for read_data
    state = md.State(x, types, masses, md.box(cell))
    state.initialize_velocities(args.temperature, seed=args.seed, units="lammps")
    v = state.velocities.copy()
    n = len(types)

    work = tempfile.mkdtemp(prefix="sampan_nve_lmp_")
    lines = ["water from a DeePMD system", "", f"{n} atoms", f"{len(type_map)} atom types", "",
             f"0 {L[0]:.17g} xlo xhi", f"0 {L[1]:.17g} ylo yhi", f"0 {L[2]:.17g} zlo zhi", "", "Masses", ""]
    lines += [f"{t + 1} {m}" for t, m in enumerate(masses)]
    lines += ["", "Atoms # atomic", ""]
    lines += [f"{i + 1} {t + 1} {p[0]:.17g} {p[1]:.17g} {p[2]:.17g}" for i, (t, p) in enumerate(zip(types, x))]
    lines += ["", "Velocities", ""] + [f"{i + 1} {u[0]:.17g} {u[1]:.17g} {u[2]:.17g}" for i, u in enumerate(v)]
    with open(os.path.join(work, "data.lmp"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(work, "in.lmp"), "w") as f:
        f.write("units metal\natom_style atomic\nboundary p p p\natom_modify map array\nread_data data.lmp\n"
                f"pair_style sampan/deepmd model {os.path.abspath(args.model)}\npair_coeff * * {' '.join(type_map)}\n"
                "neighbor 2.0 bin\nneigh_modify every 1 delay 0 check yes\n"
                f"timestep {args.dt / 1000.0:.17g}\nfix 1 all nve\nthermo 100\n"
                "variable e equal pe\nvariable k equal ke\n"
                "fix p all print 10 \"$(step) ${e} ${k}\" file thermo.txt screen no\n"
                f"run {args.steps}\n")
    mpirun = shutil.which("mpirun")
    flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    cmd = ([mpirun, "-n", "1", *flags] if mpirun else []) + [args.driver, "in.lmp", "-log", "log.lammps",
                                                              "-screen", "none"]
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    if proc.returncode != 0:
        log = open(os.path.join(work, "log.lammps")).read() if os.path.exists(os.path.join(work, "log.lammps")) else ""
        print(f"nve_water_lammps: {' '.join(cmd)} failed in {work}:\n{proc.stderr[-2000:]}{log[-2000:]}")
        return 1
    lmp = np.loadtxt(os.path.join(work, "thermo.txt"))

    ours = md.run(state, md.load_deeppot(args.model), md.VelocityVerlet(args.dt, units="lammps"), args.steps,
                  thermo_every=10)
    e_lmp = (lmp[:, 1] + lmp[:, 2]) / n
    e_ours = ours["etotal"] / n
    t = ours["time"]
    print(f"# {n} atoms, {args.steps} NVE steps at {args.dt} fs from the same state; work folder {work}")
    print(f"max |PE_lammps - PE_sampan| {np.abs(lmp[:, 1] - ours['pe']).max():.3e} eV, "
          f"max |KE diff| {np.abs(lmp[:, 2] - ours['ke']).max():.3e} eV")
    for name, e in (("lammps", e_lmp), ("sampan", e_ours)):
        slope = np.polyfit(t, e, 1)[0]
        print(f"{name}: drift {slope:.3e} eV/atom/ps, max |E - E0| {1e3 * np.abs(e - e[0]).max():.4f} meV/atom, "
              f"std {1e3 * np.std(e):.4f} meV/atom")
    return 0


if __name__ == "__main__":
    sys.exit(main())
