"""``sampan deepmd md``: molecular dynamics with a DeePMD model from one frame of a DeePMD system.

    sampan deepmd md -m frozen_model.h5 -s data_3 --frame 0 --dt 0.5 --steps 20000 \\
        --ensemble nve -T 330 --thermo 200 --traj water.h5 --traj-every 20

``-m`` may also be a traced energy graph file (``sampan.deepmd.md.trace_potential`` + ``save``;
detected by its format key), replayed in C++. Initial velocities are drawn at -T (seeded); NVE reports the energy drift per atom per ps
(least-squares slope of the total energy over the thermo records).
"""
import sys

import numpy as np

# Standard atomic weights (IUPAC 2021, abridged), for type names that are element symbols.
ATOMIC_MASSES = {"H": 1.008, "He": 4.0026, "Li": 6.94, "C": 12.011, "N": 14.007, "O": 15.999, "F": 18.998,
                 "Na": 22.990, "Mg": 24.305, "Al": 26.982, "Si": 28.085, "P": 30.974, "S": 32.06, "Cl": 35.45,
                 "Ar": 39.948, "K": 39.098, "Ca": 40.078, "Ti": 47.867, "Fe": 55.845, "Cu": 63.546,
                 "Zn": 65.38, "Kr": 83.798}


def add_md_command(sub):
    p = sub.add_parser("md", help="run MD with a model from one frame of a DeePMD system (NVE, NVT, ...)")
    p.add_argument("-m", "--model", required=True,
                   help="a frozen model (.h5), a DeePMD-kit YAML model, or a traced energy graph file (sampan.jit: "
                        "energy(positions, types, box), detected by its format key)")
    p.add_argument("-s", "--system", required=True, help="a DeePMD system folder (positions, box, types)")
    p.add_argument("--frame", type=int, default=0, help="the frame to start from (default 0)")
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--dt", type=float, default=0.5, help="time step in fs (default 0.5)")
    p.add_argument("--ensemble", choices=["nve", "nvt", "langevin", "berendsen"], default="nve",
                   help="nve (velocity Verlet), nvt (Nose-Hoover chain), langevin (BAOAB), berendsen")
    p.add_argument("-T", "--temperature", type=float, default=300.0, help="K: initial velocities and thermostat")
    p.add_argument("--tau", type=float, default=100.0, help="thermostat time constant in fs (default 100)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--mass", action="append", default=[], metavar="NAME=AMU",
                   help="mass of a type by name (element symbols are known)")
    p.add_argument("--thermo", type=int, default=100, help="thermo output every N steps")
    p.add_argument("--traj", default=None, help="H5MD trajectory file")
    p.add_argument("--traj-every", type=int, default=10)
    p.add_argument("--xyz", default=None, help="extended XYZ file")
    p.add_argument("--xyz-every", type=int, default=100)
    p.set_defaults(run=_md)


def _masses(type_map, overrides):
    given = {}
    for item in overrides:
        name, _, value = item.partition("=")
        try:
            given[name] = float(value)
        except ValueError:
            raise SystemExit(f"sampan deepmd md: --mass expects NAME=AMU, got '{item}'")
    masses = []
    for name in type_map:
        if name in given:
            masses.append(given[name])
        elif name in ATOMIC_MASSES:
            masses.append(ATOMIC_MASSES[name])
        else:
            raise SystemExit(f"sampan deepmd md: no mass for type '{name}'; give --mass {name}=AMU")
    return masses


def run_md(args, out=None):
    out = sys.stdout if out is None else out
    from . import md
    from .data import load_system
    system = load_system(args.system)
    if not 0 <= args.frame < system.nframes:
        raise SystemExit(f"sampan deepmd md: {args.system} has {system.nframes} frames, --frame {args.frame}")
    potential = md.load_potential(args.model)
    names = list(getattr(potential, "type_map", []) or [])
    if names and list(system.type_map[:len(names)]) != names[:len(system.type_map)]:
        raise SystemExit(f"sampan deepmd md: {args.model} was traced for types {names}, but {args.system} has "
                         f"types {list(system.type_map)}")
    box = md.box(None) if system.box is None else md.box(np.asarray(system.box[args.frame]))
    state = md.State(np.asarray(system.coord[args.frame]), np.asarray(system.atom_types),
                     _masses(system.type_map, args.mass), box)
    state.initialize_velocities(args.temperature, seed=args.seed)
    if args.ensemble == "nve":
        integrator = md.VelocityVerlet(args.dt)
    elif args.ensemble == "nvt":
        integrator = md.NoseHooverChain(args.dt, args.temperature, args.tau)
    elif args.ensemble == "langevin":
        integrator = md.Langevin(args.dt, args.temperature, args.tau, args.seed)
    else:
        integrator = md.Berendsen(args.dt, args.temperature, args.tau)
    print(f"# {integrator.describe()}; {potential.describe()}; {state.natoms} atoms from {args.system} "
          f"frame {args.frame}", file=out)
    thermo = md.run(state, potential, integrator, args.steps, thermo_every=max(1, args.thermo), print_thermo=out,
                    trajectory=args.traj, trajectory_every=args.traj_every if args.traj else 0,
                    type_names=system.type_map, xyz=args.xyz, xyz_every=args.xyz_every if args.xyz else 0)
    if len(thermo["time"]) >= 2:
        slope = np.polyfit(thermo["time"], thermo["conserved"] / state.natoms, 1)[0]
        print(f"# conserved-energy drift: {slope:.3e} eV/atom/ps over {thermo['time'][-1]:.4g} ps "
              f"(max |E - E0| {np.abs(thermo['conserved'] - thermo['conserved'][0]).max() / state.natoms:.3e} "
              "eV/atom)", file=out)
    return thermo


def _md(args):
    run_md(args)
    return 0
