"""MD engine speed against LAMMPS: Lennard-Jones fluid, NVE, the same system and settings.

    .venv/bin/python bench/deepmd_md_bench.py [--cells 10] [--steps 200] [--threads 1 2] [--repeats 3]
        [--clock wall|cpu]

Argon-like LJ (eps 0.0104 eV, sigma 3.40 Å, rcut 8.5 Å shifted), fcc at a = 5.8 Å melted at
240 K, dt 5 fs, Verlet skin 1.0 Å (LAMMPS: neighbor 1.0 bin, check every step), thermo (energy)
only at the first and last step in both codes. For each thread count t: sampan with t OpenMP
threads, Debian's lmp on t MPI ranks (its build has no OPENMP package) with pair_style lj/cut and
with lj/cut/opt (LAMMPS's OPT package, `-sf opt`). Variants alternate, `--repeats` times; the best
of each is printed in microseconds per atom-step with the ratios sampan/LAMMPS and the energy
difference at the end (the trajectories agree to round-off for a while, then diverge as chaos does).

--clock cpu (one thread only) times by CPU time: sampan's by process time around the run, LAMMPS's
as the CPU time of `run N` minus that of `run 0` on the same input (the setup cancels), which a
loaded shared machine inflates far less than wall time.
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import tempfile
import time

import numpy as np

import sampan as sp
from sampan.deepmd import md


def fcc(n, a, seed=0):
    rng = np.random.default_rng(seed)
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    frac = np.array([(np.array([i, j, k]) + b) / n for i in range(n) for j in range(n) for k in range(n) for b in basis])
    return frac * n * a + rng.uniform(-0.2, 0.2, size=frac.shape), n * a


def write_lammps_input(d, x, v0, L, steps):
    n = len(x)
    with open(os.path.join(d, "data.lmp"), "w") as f:
        f.write(f"bench\n\n{n} atoms\n1 atom types\n\n0 {L:.17g} xlo xhi\n0 {L:.17g} ylo yhi\n0 {L:.17g} zlo zhi\n\n"
                "Masses\n\n1 39.948\n\nAtoms # atomic\n\n")
        f.writelines(f"{i + 1} 1 {r[0]:.17g} {r[1]:.17g} {r[2]:.17g}\n" for i, r in enumerate(x))
        f.write("\nVelocities\n\n")
        f.writelines(f"{i + 1} {u[0]:.17g} {u[1]:.17g} {u[2]:.17g}\n" for i, u in enumerate(v0))
    for name, nsteps in (("in.lmp", steps), ("in0.lmp", 0)):
        with open(os.path.join(d, name), "w") as f:
            f.write("units metal\natom_style atomic\nread_data data.lmp\npair_style lj/cut 8.5\npair_modify shift yes\n"
                    "pair_coeff 1 1 0.0104 3.40\nneighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\n"
                    "timestep 0.005\nfix 1 all nve\nthermo_style custom step etotal\nthermo_modify format float %.12f\n"
                    f"thermo {max(nsteps, 1)}\nrun {nsteps}\n")


def run_lammps(lmp, d, ranks, suffix, steps, clock):
    """(seconds of the run loop, total energy at the end)."""
    def launch(script):
        cmd = [lmp, "-in", script, "-log", "none"] + (["-sf", suffix] if suffix else [])
        if ranks > 1:
            cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks)] + cmd
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"lmp failed ({' '.join(cmd)}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        return proc.stdout, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    out, cpu = launch("in.lmp")
    energy = float(re.findall(rf"^\s*{steps}\s+(\S+)", out, re.M)[-1])
    if clock == "cpu":
        _, cpu0 = launch("in0.lmp")
        return cpu - cpu0, energy
    return float(re.search(r"Loop time of ([0-9.eE+-]+)", out).group(1)), energy


def run_sampan(x, v0, L, steps, threads, clock):
    n = len(x)
    sp.set_num_threads(threads)
    state = md.State(x, [0] * n, [39.948], md.box([L, L, L]))
    state.initialize_velocities(240.0, seed=1, units="lammps")
    assert np.array_equal(state.velocities, v0)
    lj = md.LennardJones(0.0104, 3.40, rcut=8.5, shift=True, skin=1.0)
    state.compute_forces(lj)
    clock_fn = time.process_time if clock == "cpu" else time.perf_counter
    t0 = clock_fn()
    th = md.run(state, lj, md.VelocityVerlet(5.0, units="lammps"), steps=steps, thermo_every=steps)
    return clock_fn() - t0, th["etotal"][-1]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cells", type=int, default=10)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = p.parse_args()
    if args.clock == "cpu" and args.threads != [1]:
        raise SystemExit("--clock cpu times one thread only (pass --threads 1)")
    x, L = fcc(args.cells, 5.8)
    n = len(x)
    probe = md.State(x, [0] * n, [39.948], md.box([L, L, L]))
    probe.initialize_velocities(240.0, seed=1, units="lammps")
    v0 = probe.velocities.copy()
    lmp = shutil.which("lmp")
    us = lambda t: 1e6 * t / (n * args.steps)  # noqa: E731
    print(f"LJ fluid {n} atoms, {args.steps} NVE steps, clock {args.clock}, best of {args.repeats}, "
          f"load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as d:
        if lmp is None:
            print("LAMMPS (lmp) not found: timing sampan alone (apt-get install lammps for the comparison)")
        else:
            write_lammps_input(d, x, v0, L, args.steps)
        for threads in args.threads:
            best = {}
            for _ in range(args.repeats):
                variants = [("sampan", lambda: run_sampan(x, v0, L, args.steps, threads, args.clock))]
                if lmp:
                    variants += [(f"LAMMPS lj/cut{'' if threads == 1 else f' x{threads} ranks'}",
                                  lambda: run_lammps(lmp, d, threads, None, args.steps, args.clock)),
                                 (f"LAMMPS lj/cut/opt{'' if threads == 1 else f' x{threads} ranks'}",
                                  lambda: run_lammps(lmp, d, threads, "opt", args.steps, args.clock))]
                for name, fn in variants:
                    t, e = fn()
                    if name not in best or t < best[name][0]:
                        best[name] = (t, e)
            ours, e_ours = best["sampan"]
            print(f"threads {threads}:")
            for name, (t, e) in best.items():
                ratio = "" if name == "sampan" else (f"   sampan/this = {ours / t:.2f}, "
                                                     f"|E_end - sampan's| = {abs(e - e_ours):.2e} eV")
                print(f"  {name:28s} {us(t):8.3f} us/atom-step ({t:.2f} s){ratio}")


if __name__ == "__main__":
    main()
