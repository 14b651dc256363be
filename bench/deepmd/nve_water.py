"""NVE energy conservation of a trained se_e2_a water model (issue 5 acceptance; on demand).

From one frame of a DeePMD water system (192 atoms), velocities drawn at T (seeded, zero
momentum), a short thermostatted equilibration (Berendsen or Langevin), then NVE by velocity
Verlet. Prints the total-energy drift per atom per ps (least-squares slope over the NVE run),
the fluctuation, the mean temperature, the O-O g(r) first peak and the closest O-O approach
(physical liquid water: first peak at about 2.8 Å, no O-O pair much closer than about 2.4 Å).

    python bench/deepmd/nve_water.py -m frozen_model.h5 -s .../deepmd_water/data_3 [--nve-ps 10]

Reference for scale: classical SPC/E water on the same box in LAMMPS (PPPM, SHAKE, dt 1 fs)
drifts by about 0.04 meV/atom over 10 ps (shared/reference/deepmd.md, section 9.1).
"""
import argparse
import os
import sys
import time

import numpy as np

import sampan as sp  # noqa: F401  (loads the extension)
from sampan.deepmd import md
from sampan.deepmd.data import load_system
from sampan.deepmd.md_cli import _masses
from sampan.deepmd.model import load_model


def neighbour_overflow(model, positions, types, cell):
    """Frames among ``positions`` [T, N, 3] whose neighbours exceed sel, and the most neighbours
    of each type seen (the model drops neighbours beyond sel: a discontinuity in MD)."""
    sel = model.config["sel"]
    most = np.zeros(len(sel), dtype=np.int64)
    bad = 0
    for x, c in zip(positions, cell):
        ext = model.extend(x.ravel().tolist(), types.tolist(), np.asarray(c).ravel().tolist())
        nlist = ext.nlist.numpy()
        start = 0
        for t, s in enumerate(sel):
            block = nlist[:, start:start + s]
            most[t] = max(most[t], int((block >= 0).sum(axis=1).max()))
            start += s
        bad += bool(ext.any_overflow())
    return bad, most


def read_thermo(path):
    """Rows (step, time, pe, ke, etotal, temperature, pressure) of md.run's printed thermo
    (headers of several runs skipped, repeated steps at chunk borders kept once)."""
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0].isdigit():
                rows[int(parts[0])] = [float(v) for v in parts]
    return np.array([rows[k] for k in sorted(rows)])


def analyse(out, model, types, type_map):
    """Drift, fluctuation, temperature, O-O g(r) and closest approach from ``out`` (also after an
    interrupted run: whatever thermo and trajectory chunks exist)."""
    th = read_thermo(os.path.join(out, "thermo_nve.txt"))
    n = len(types)
    t = th[:, 1] - th[:, 1][0]
    e = th[:, 4] / n
    slope, intercept = np.polyfit(t, e, 1)
    resid = e - (slope * t + intercept)
    ke_fluct = np.std(th[:, 3] / n)
    files = sorted(f for f in os.listdir(out) if f.startswith("nve_") and f.endswith(".h5"))
    pos, cells = [], []
    for f in files:
        tr = md.read_h5md(os.path.join(out, f))
        pos.append(tr["position"])
        cells.append(tr["cell"])
    pos, cells = np.concatenate(pos), np.concatenate(cells)
    o = types == type_map.index("O")
    r, g = md.radial_distribution(pos, cells, 6.0, nbins=300, types=types, pair=(0, 0))
    closest = np.inf
    for x, c in zip(pos, cells):
        nl = md.neighbor_list(x[o], md.box(c), 3.5)
        if len(nl["vectors"]):
            closest = min(closest, float(np.linalg.norm(nl["vectors"], axis=1).min()))
    bad, most = neighbour_overflow(model, pos, types, cells)
    print(f"nve_length_ps {t[-1]:.3f} ({len(th)} thermo rows, {len(pos)} trajectory frames)")
    print(f"drift_eV_per_atom_per_ps {slope:.3e}")
    print(f"drift_over_run_meV_per_atom {1e3 * slope * t[-1]:.4f}")
    print(f"etot_fluctuation_std_meV_per_atom {1e3 * np.std(e):.4f}  (detrended {1e3 * np.std(resid):.4f}; "
          f"KE per atom std {1e3 * ke_fluct:.2f} meV, ratio {np.std(resid) / ke_fluct:.2e})")
    print(f"etot_max_abs_dev_meV_per_atom {1e3 * np.abs(e - e[0]).max():.4f}")
    print(f"mean_temperature_K {th[:, 5].mean():.1f} +- {th[:, 5].std():.1f}")
    print(f"OO_rdf_first_peak_A {r[np.argmax(g)]:.2f} (g = {g.max():.2f})")
    print(f"OO_closest_approach_A {closest:.3f} (over {len(pos)} frames)")
    print(f"sel_overflow_frames {bad} of {len(pos)} (most neighbours per type {most.tolist()}, "
          f"sel {model.config['sel']})")
    print(f"RESULT: drift {slope:.2e} eV/atom/ps over {t[-1]:.1f} ps, fluct {1e3 * np.std(resid):.3f} meV/atom, "
          f"T {th[:, 5].mean():.0f} K, O-O peak {r[np.argmax(g)]:.2f} A, closest O-O {closest:.2f} A")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-m", "--model", required=True, help="frozen model (.h5) or DeePMD-kit YAML")
    p.add_argument("-s", "--system", required=True, help="DeePMD water system (e.g. data_3)")
    p.add_argument("--frame", type=int, default=0)
    p.add_argument("-T", "--temperature", type=float, default=300.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dt", type=float, default=0.5, help="fs")
    p.add_argument("--equil-ps", type=float, default=0.5)
    p.add_argument("--thermostat", choices=["berendsen", "langevin"], default="berendsen")
    p.add_argument("--tau", type=float, default=100.0, help="thermostat time constant, fs")
    p.add_argument("--nve-ps", type=float, default=10.0)
    p.add_argument("--chunk-ps", type=float, default=1.0, help="NVE trajectory chunk length, ps")
    p.add_argument("--thermo-every", type=int, default=10)
    p.add_argument("--traj-every", type=int, default=20)
    p.add_argument("--out", default=".", help="folder for the thermo logs and the nve_*.h5 trajectory chunks")
    p.add_argument("--analyse-only", action="store_true", help="only analyse what --out holds (a finished or "
                   "interrupted run)")
    args = p.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    system = load_system(args.system)
    potential = md.load_deeppot(args.model)
    model = load_model(args.model)
    types = np.asarray(system.atom_types)
    type_map = list(system.type_map)
    if args.analyse_only:
        analyse(args.out, model, types, type_map)
        return 0
    state = md.State(np.asarray(system.coord[args.frame]), types, _masses(type_map, []),
                     md.box(np.asarray(system.box[args.frame])))
    state.initialize_velocities(args.temperature, seed=args.seed)
    n = state.natoms
    equil_steps = int(round(args.equil_ps * 1000.0 / args.dt))
    nve_steps = int(round(args.nve_ps * 1000.0 / args.dt))
    print(f"# model {args.model}: {potential.describe()}")
    print(f"# {n} atoms from {args.system} frame {args.frame}; velocities at {args.temperature} K seed {args.seed}; "
          f"{args.thermostat} {args.equil_ps} ps (tau {args.tau} fs), then NVE {args.nve_ps} ps at dt {args.dt} fs "
          f"({nve_steps} steps)", flush=True)

    if args.thermostat == "berendsen":
        thermostat = md.Berendsen(args.dt, args.temperature, args.tau)
    else:
        thermostat = md.Langevin(args.dt, args.temperature, args.tau, args.seed)
    with open(os.path.join(args.out, "thermo_equil.txt"), "w") as log:
        t0 = time.perf_counter()
        eq = md.run(state, potential, thermostat, equil_steps, thermo_every=100, print_thermo=log)
        t_eq = time.perf_counter() - t0
    print(f"# equilibration: {equil_steps} steps in {t_eq:.0f} s; final T {eq['temperature'][-1]:.1f} K", flush=True)

    # NVE in 1 ps chunks (one H5MD file each), so that an interrupted run still analyses
    chunk = max(1, int(round(args.chunk_ps * 1000.0 / args.dt)))
    t0 = time.perf_counter()
    done = 0
    with open(os.path.join(args.out, "thermo_nve.txt"), "w") as log:
        k = 0
        while done < nve_steps:
            steps = min(chunk, nve_steps - done)
            md.run(state, potential, md.VelocityVerlet(args.dt), steps, thermo_every=args.thermo_every,
                   print_thermo=log, trajectory=os.path.join(args.out, f"nve_{k:03d}.h5"),
                   trajectory_every=args.traj_every, type_names=type_map)
            done += steps
            k += 1
            print(f"# NVE {done}/{nve_steps} steps, {time.perf_counter() - t0:.0f} s", flush=True)
    t_nve = time.perf_counter() - t0
    print(f"# NVE: {nve_steps} steps in {t_nve:.0f} s ({1e6 * t_nve / nve_steps / n:.0f} us/atom-step, "
          f"load average {os.getloadavg()[0]:.1f})")
    analyse(args.out, model, types, type_map)
    return 0


if __name__ == "__main__":
    sys.exit(main())
