"""MD engine speed against LAMMPS: Lennard-Jones fluid, NVE, the same system and settings.

    OMP_NUM_THREADS=1 .venv/bin/python bench/deepmd_md_bench.py [--cells 10] [--steps 200]

Argon-like LJ (eps 0.0104 eV, sigma 3.40 Å, rcut 8.5 Å shifted), fcc at a = 5.8 Å melted at
240 K, dt 5 fs, Verlet skin 1.0 Å (LAMMPS: neighbor 1.0 bin, check every step). Prints
microseconds per atom-step for sampan (C++ run loop driven from Python) and Debian's lmp, their
ratio, and the energy difference at the end (the trajectories agree to round-off for a while).
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile
import time

import numpy as np

from sampan.deepmd import md


def fcc(n, a, seed=0):
    rng = np.random.default_rng(seed)
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    frac = np.array([(np.array([i, j, k]) + b) / n for i in range(n) for j in range(n) for k in range(n) for b in basis])
    return frac * n * a + rng.uniform(-0.2, 0.2, size=frac.shape), n * a


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cells", type=int, default=10)
    p.add_argument("--steps", type=int, default=200)
    args = p.parse_args()
    x, L = fcc(args.cells, 5.8)
    n = len(x)
    state = md.State(x, [0] * n, [39.948], md.box([L, L, L]))
    state.initialize_velocities(240.0, seed=1, units="lammps")
    v0 = state.velocities.copy()
    lmp = shutil.which("lmp")
    loop = e_lmp = None
    with tempfile.TemporaryDirectory() as d:
        if lmp is None:
            print("LAMMPS (lmp) not found: timing sampan alone (apt-get install lammps for the comparison)")
        else:
            with open(os.path.join(d, "data.lmp"), "w") as f:
                f.write(f"bench\n\n{n} atoms\n1 atom types\n\n0 {L:.17g} xlo xhi\n0 {L:.17g} ylo yhi\n0 {L:.17g} zlo zhi\n\n"
                        "Masses\n\n1 39.948\n\nAtoms # atomic\n\n")
                f.writelines(f"{i + 1} 1 {r[0]:.17g} {r[1]:.17g} {r[2]:.17g}\n" for i, r in enumerate(x))
                f.write("\nVelocities\n\n")
                f.writelines(f"{i + 1} {u[0]:.17g} {u[1]:.17g} {u[2]:.17g}\n" for i, u in enumerate(v0))
            with open(os.path.join(d, "in.lmp"), "w") as f:
                f.write("units metal\natom_style atomic\nread_data data.lmp\npair_style lj/cut 8.5\npair_modify shift yes\n"
                        "pair_coeff 1 1 0.0104 3.40\nneighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\n"
                        "timestep 0.005\nfix 1 all nve\nthermo_style custom step etotal\nthermo_modify format float %.12f\n"
                        f"thermo {args.steps}\nrun {args.steps}\n")
            proc = subprocess.run([lmp, "-in", "in.lmp", "-log", "none"], cwd=d, capture_output=True, text=True)
            out = proc.stdout
            if proc.returncode != 0:
                raise SystemExit(f"lmp failed:\n{out[-2000:]}{proc.stderr[-2000:]}")
            loop = float(re.search(r"Loop time of ([0-9.eE+-]+)", out).group(1))
            e_lmp = float(re.findall(rf"^\s*{args.steps}\s+(\S+)", out, re.M)[-1])
    lj = md.LennardJones(0.0104, 3.40, rcut=8.5, shift=True, skin=1.0)
    state.compute_forces(lj)
    t0 = time.perf_counter()
    th = md.run(state, lj, md.VelocityVerlet(5.0, units="lammps"), steps=args.steps, thermo_every=args.steps)
    ours = time.perf_counter() - t0
    us = lambda t: 1e6 * t / (n * args.steps)  # noqa: E731
    print(f"LJ fluid {n} atoms, {args.steps} NVE steps, threads={os.environ.get('OMP_NUM_THREADS', 'all')}")
    print(f"  sampan  {us(ours):8.3f} us/atom-step   ({ours:.2f} s)")
    if loop is not None:
        print(f"  LAMMPS  {us(loop):8.3f} us/atom-step   ({loop:.2f} s loop time)")
        print(f"  ratio sampan/LAMMPS = {ours / loop:.2f}; |E_end - E_end(LAMMPS)| = "
              f"{abs(th['etotal'][-1] - e_lmp):.2e} eV")


if __name__ == "__main__":
    main()
