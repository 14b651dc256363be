"""sampan.deepmd.md: molecular dynamics with any potential, from Python.

The engine is C++ (deepmd_bridge/src/md); this module shapes its inputs and outputs as NumPy
arrays. Units (LAMMPS ``metal``): positions and cells in Å, velocities Å/ps, masses amu, energies
eV, forces eV/Å, virials eV, temperature K, pressure bar, time ps; time steps are given in fs.
The virial is W = -dE/d(strain) (positive for repulsion); P = (2 KE + trace W) / (3 V).

Example::

    from sampan.deepmd import md
    box = md.box([23.2, 23.2, 23.2])
    lj = md.LennardJones(eps=0.0104, sigma=3.40, rcut=8.5, shift=True, skin=1.0)
    state = md.State(positions, types=[0] * n, masses=[39.948], box=box)
    state.initialize_velocities(120.0, seed=1)
    thermo = md.run(state, lj, md.NoseHooverChain(dt_fs=5.0, temperature=120.0, tau_fs=500.0),
                    steps=1000, thermo_every=100, trajectory="argon.h5", trajectory_every=10)

Potentials: ``LennardJones`` (C++), ``LjOpPotential`` (the op ``sp.ops.deepmd.lj_energy`` with
autograd forces), the DeePMD model once frozen, or any subclass of ``Potential`` written in
Python (define ``compute(positions, types, box) -> (energy, forces, virial or None)``,
``cutoff()`` and ``ntypes()``). An energy function ``energy(positions, types, box)`` written with
ops runs eagerly as ``FunctionPotential`` or, traced (``trace_potential``, ``sp.jit.trace``), as a
graph replayed in C++ with no Python (``GraphPotential``; a graph file's path works too)::

    graph = md.trace_potential(energy, positions, types, box)   # any atom count on replay
    graph.save("traced.h5")
    md.run(state, "traced.h5", md.VelocityVerlet(2.0), steps=100)
"""
import os
import sys

import numpy as np

from .. import _C
from ..jit import TracedGraph
from ..jit import trace as jit_trace

_md = _C.deepmd_md

Box = _md.Box
VelocityVerlet = _md.VelocityVerlet
NoseHooverChain = _md.NoseHooverChain
Langevin = _md.Langevin
Berendsen = _md.Berendsen

GraphPotential = _md.GraphPotential

__all__ = ["Box", "box", "neighbor_list", "Potential", "LennardJones", "LjOpPotential", "load_deeppot", "State",
           "GraphPotential", "graph_potential", "load_potential", "save_potential", "trace_potential",
           "FunctionPotential", "box_tensor", "is_graph_file",
           "VelocityVerlet", "NoseHooverChain", "Langevin", "Berendsen", "run", "read_h5md",
           "h5md_to_extxyz", "radial_distribution", "evaluate"]


def box(cell=None, periodic=True):
    """A simulation box. ``cell``: None (open boundaries), three edge lengths (orthorhombic), or
    a 3x3 matrix whose rows are the lattice vectors (Å). ``periodic``: one flag or three."""
    if cell is None:
        return Box(np.eye(3).ravel().tolist(), [False] * 3)
    cell = np.asarray(cell, dtype=np.float64)
    if cell.shape == (3,):
        cell = np.diag(cell)
    if cell.shape != (3, 3):
        raise ValueError(f"box: cell must be None, 3 lengths or a 3x3 matrix, got shape {cell.shape}")
    flags = [bool(periodic)] * 3 if np.ndim(periodic) == 0 else [bool(p) for p in periodic]
    return Box(cell.ravel().tolist(), flags)


def _positions(x, name="positions"):
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 3:
        raise ValueError(f"{name} must have shape [N, 3], got {x.shape}")
    return x


def neighbor_list(positions, box, rcut, half=False):
    """Neighbours within ``rcut`` (Å) by cell lists: a dict of NumPy arrays ``offsets`` [N+1],
    ``neighbors`` [P], ``shifts`` [P, 3] (integer image shifts n) and ``vectors`` [P, 3] with
    r_ij = x_j - x_i + n . cell. Full list unless ``half``."""
    x = _positions(positions)
    d = _md.neighbor_list(x.ravel().tolist(), box, float(rcut), bool(half))
    return {"offsets": np.frombuffer(d["offsets"], dtype=np.int64).copy(),
            "neighbors": np.frombuffer(d["neighbors"], dtype=np.int64).copy(),
            "shifts": np.frombuffer(d["shifts"], dtype=np.int32).reshape(-1, 3).copy(),
            "vectors": np.frombuffer(d["vectors"], dtype=np.float64).reshape(-1, 3).copy()}


class Potential(_md.Potential):
    """Base class of potentials written in Python.

    Define ``compute(positions, types, box)`` returning ``(energy, forces, virial)`` (eV; [N, 3]
    eV/Å; [3, 3] eV or None when unknown, which makes the pressure the kinetic part only),
    ``cutoff()`` (Å) and ``ntypes()``. ``positions`` is a read-only [N, 3] float64 view, valid
    only during the call.
    """

    def __init__(self):
        super().__init__()

    def _compute_buffers(self, positions, types, box):
        energy, forces, virial = self.compute(np.asarray(positions), np.asarray(types), box)
        forces = np.ascontiguousarray(forces, dtype=np.float64)
        if virial is not None:
            virial = np.ascontiguousarray(virial, dtype=np.float64)
        return float(energy), forces, virial

    def compute(self, positions, types, box):
        raise NotImplementedError("a Potential must define compute(positions, types, box)")

    def describe(self):
        return type(self).__name__

    def __call__(self, positions, types, box):
        """(energy, forces [N, 3], virial [3, 3]) at ``positions``."""
        return _evaluate(self, positions, types, box)


def _as_potential(potential):
    """Any potential the engine accepts: md potentials, DeepPot models of sampan.deepmd, traced
    graphs (sampan.jit.TracedGraph) and paths of graph or model files."""
    if isinstance(potential, _md.Potential):
        return potential
    if isinstance(potential, TracedGraph):
        return graph_potential(potential)
    if isinstance(potential, (str, os.PathLike)):
        return load_potential(potential)
    deep_pot = getattr(_C, "DeepPot", None)
    if deep_pot is not None and isinstance(potential, deep_pot):
        return _md.deeppot_as_potential(potential)
    inner = getattr(potential, "_model", None) or getattr(potential, "_cpp", None)
    if inner is not None and deep_pot is not None and isinstance(inner, deep_pot):
        return _md.deeppot_as_potential(inner)
    raise TypeError(f"not a potential: {type(potential).__name__} (use md.LennardJones, md.load_deeppot, a "
                    "DeepPot, a traced graph (md.trace_potential), a graph or model file's path, or subclass "
                    "md.Potential)")


def _evaluate(potential, positions, types, box):
    potential = _as_potential(potential)
    x = _positions(positions)
    e, f, w = _md.Potential.evaluate(potential, x.ravel().tolist(), [int(t) for t in np.asarray(types).ravel()], box)
    return e, np.asarray(f).reshape(-1, 3), np.asarray(w).reshape(3, 3)


def _table(value, ntypes, name):
    a = np.asarray(value, dtype=np.float64)
    if a.ndim == 0:
        a = np.full((ntypes, ntypes), float(a))
    if a.shape != (ntypes, ntypes):
        raise ValueError(f"{name} must be a number or a [{ntypes}, {ntypes}] table, got shape {a.shape}")
    return a.ravel().tolist()


def LennardJones(eps, sigma, rcut, shift=False, skin=0.0, ntypes=None):
    """The Lennard-Jones potential (LAMMPS pair_style lj/cut, metal units) in C++. ``eps`` (eV)
    and ``sigma`` (Å): numbers for one type or symmetric [T, T] tables; ``shift``: energy shifted
    to 0 at ``rcut``; ``skin`` (Å): Verlet-list skin (the results do not depend on it)."""
    if ntypes is None:
        ntypes = 1 if np.ndim(eps) == 0 and np.ndim(sigma) == 0 else int(np.shape(eps if np.ndim(eps) else sigma)[0])
    lj = _md.LennardJones(ntypes, _table(eps, ntypes, "eps"), _table(sigma, ntypes, "sigma"), float(rcut),
                          bool(shift), float(skin))
    return lj


def load_deeppot(path):
    """The DeePMD model (se_e2_a) as a potential for MD: DeePMD-kit's backend-neutral YAML
    serialization (``.yaml``) or a model file written by sampan (``sampan deepmd freeze``)."""
    return _md.load_deeppot(str(path))


def is_graph_file(path):
    """True when ``path`` is a sampan graph file (top-level key format = "sampan-graph")."""
    return bool(os.path.isfile(str(path)) and GraphPotential.is_graph_file(str(path)))


def load_potential(path):
    """A potential from a file: a sampan graph file (a traced energy, detected by its format key)
    as a ``GraphPotential``, else the DeePMD model (``load_deeppot``)."""
    path = str(path)
    if is_graph_file(path):
        return GraphPotential.load(path)
    return load_deeppot(path)


def graph_potential(graph, cutoff=None, type_map=None):
    """A traced energy graph (``sp.jit.TracedGraph``, or a graph file's path) as a potential: its
    replay and ``sp.grad`` through it in C++ (forces -dE/dpositions, virial from the positions'
    and the box's gradients). The graph takes (positions float64 [N, 3], types int64 [N], box
    float64 [3, 3]) and returns the energy; a graph with other inputs is refused naming them.
    ``cutoff`` (Å) and ``type_map`` are optional metadata (LAMMPS's ghost shell, type names)."""
    if isinstance(graph, (str, os.PathLike)):
        pot = GraphPotential.load(str(graph))
    elif isinstance(graph, TracedGraph):
        pot = GraphPotential(graph._graph, 0.0, [], "traced graph")
    else:
        raise TypeError(f"graph_potential: expected a sampan.jit.TracedGraph or a graph file's path, got "
                        f"{type(graph).__name__}")
    if cutoff is not None:
        pot.set_cutoff(float(cutoff))
    if type_map is not None:
        pot.type_map = [str(t) for t in type_map]
    return pot


def save_potential(graph, path, cutoff=None, type_map=None, embed_libraries=False):
    """Writes a traced energy graph as a graph file with the potential's metadata (cutoff in Å,
    type names): what ``sampan deepmd md -m`` and ``pair_style sampan/deepmd FILE`` read."""
    graph_potential(graph, cutoff, type_map).save(str(path), bool(embed_libraries))


def box_tensor(box):
    """The box as an energy function's input: a [3, 3] float64 tensor of lattice vectors (rows),
    all zeros for open boundaries (an md.Box, None, three lengths or a 3x3 matrix)."""
    import sampan as sp
    if box is None:
        return sp.zeros([3, 3], dtype=sp.float64)
    if isinstance(box, Box):
        if not any(box.periodic):
            return sp.zeros([3, 3], dtype=sp.float64)
        if not all(box.periodic):
            raise NotImplementedError("box_tensor: mixed periodic/open boundaries have no [3, 3] cell form")
        return sp.tensor(np.asarray(box.cell, dtype=np.float64).reshape(3, 3))
    cell = np.asarray(box, dtype=np.float64)
    return sp.tensor(np.diag(cell) if cell.shape == (3,) else cell.reshape(3, 3))


def trace_potential(energy, positions, types, box):
    """Traces ``energy(positions, types, box)`` (a function or a DeepPot's ``energy``, written with
    ops; the neighbour search as the ops ``sp.ops.deepmd.pair_list`` / ``extended_system``) into a
    graph with inputs named positions, types, box and the atom count symbolic ("atoms"), so the
    graph replays at any system size. ``positions`` [N, 3], ``types`` [N], ``box`` as for
    ``box_tensor``; returns the ``sp.jit.TracedGraph``."""
    import sampan as sp
    pos = sp.tensor(_positions(positions))
    typ = sp.tensor(np.asarray(types, dtype=np.int64).ravel())
    dims = {"positions": {0: "atoms"}, "types": {0: "atoms"}}
    return jit_trace(energy, (pos, typ, box_tensor(box)), dynamic_dims=dims,
                      input_names=["positions", "types", "box"])


class FunctionPotential(Potential):
    """An energy function ``energy(positions, types, box)`` of tensors run eagerly, forces and virial
    by ``sp.grad`` as ``GraphPotential`` computes them from its trace: the eager twin of a traced
    potential (Python per step)."""

    def __init__(self, energy, cutoff=0.0, ntypes=0):
        super().__init__()
        self.energy = energy
        self._cutoff = float(cutoff)
        self._ntypes = int(ntypes)

    def cutoff(self):
        return self._cutoff

    def ntypes(self):
        return self._ntypes

    def describe(self):
        return f"function {getattr(self.energy, '__name__', type(self.energy).__name__)}"

    def compute(self, positions, types, box):
        import sampan as sp
        x = np.array(positions, dtype=np.float64)
        pos = sp.tensor(x, requires_grad=True)
        cell = box_tensor(box).requires_grad_()
        e = self.energy(pos, sp.tensor(np.asarray(types, dtype=np.int64)), cell)
        g_pos, g_cell = sp.grad(e, [pos, cell], allow_unused=True)
        g_pos = np.zeros_like(x) if g_pos is None else g_pos.numpy()
        g_cell = np.zeros((3, 3)) if g_cell is None else g_cell.numpy()
        h = box_tensor(box).numpy()
        return float(e.item()), -g_pos, -(g_pos.T @ x + g_cell.T @ h)


def evaluate(potential, positions, types, box):
    """(energy eV, forces [N, 3] eV/Å, virial [3, 3] eV) of any potential at ``positions``."""
    return _evaluate(potential, positions, types, box)


class LjOpPotential(Potential):
    """Lennard-Jones through the registered op ``sp.ops.deepmd.lj_energy`` and autograd: the
    neighbour list gives pairs and Cartesian image shifts, forces are -dE/dpos, and the virial
    is W = -(X^T dE/dX + S^T dE/dS) (the strain derivative through positions X and shifts S).
    Slower than ``LennardJones`` (Python per step); it shows that any differentiable op graph can
    drive the MD engine."""

    def __init__(self, eps, sigma, rcut, shift=False, ntypes=None):
        super().__init__()
        if ntypes is None:
            ntypes = 1 if np.ndim(eps) == 0 else int(np.shape(eps)[0])
        self._ntypes = ntypes
        self.eps = _table(eps, ntypes, "eps")
        self.sigma = _table(sigma, ntypes, "sigma")
        self.rcut = float(rcut)
        self.shift = bool(shift)

    def cutoff(self):
        return self.rcut

    def ntypes(self):
        return self._ntypes

    def describe(self):
        return f"lj_energy op, rcut={self.rcut}"

    def compute(self, positions, types, box):
        import sampan as sp
        nl = neighbor_list(positions, box, self.rcut, half=True)
        counts = np.diff(nl["offsets"])
        first = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        pairs = np.stack([first, nl["neighbors"]], axis=1)
        cell = np.asarray(box.cell).reshape(3, 3)
        shifts = nl["shifts"].astype(np.float64) @ cell
        pos = sp.tensor(np.array(positions, dtype=np.float64), requires_grad=True)
        sh = sp.tensor(shifts.reshape(-1, 3), requires_grad=True)
        energy = sp.ops.deepmd.lj_energy(pos, sp.tensor(np.asarray(types, dtype=np.int64)),
                                         sp.tensor(pairs.reshape(-1, 2)), sh, self.eps, self.sigma,
                                         self.rcut, self.shift)
        g_pos, g_sh = sp.grad(energy, [pos, sh])
        g_pos, g_sh = g_pos.numpy(), g_sh.numpy()
        virial = -(np.asarray(positions).T @ g_pos + shifts.reshape(-1, 3).T @ g_sh)
        return float(energy.item()), -g_pos, virial


class State:
    """Positions, velocities, types, masses and box of a simulation (NumPy in, NumPy out).

    ``masses``: one per type (indexed by ``types``) or one per atom (amu). ``velocities``: Å/ps
    (zeros when omitted; see ``initialize_velocities``). Positions stay unwrapped during MD."""

    def __init__(self, positions, types, masses, box, velocities=None):
        x = _positions(positions)
        types = np.asarray(types, dtype=np.int64).ravel()
        if types.shape[0] != x.shape[0]:
            raise ValueError(f"State: {x.shape[0]} positions but {types.shape[0]} types")
        masses = np.asarray(masses, dtype=np.float64).ravel()
        if masses.shape[0] != x.shape[0]:
            if types.size and types.max() >= masses.shape[0]:
                raise ValueError(f"State: type {types.max()} has no mass (masses for {masses.shape[0]} types)")
            masses = masses[types]
        v = [] if velocities is None else _positions(velocities, "velocities").ravel().tolist()
        self._s = _md.State(x.ravel().tolist(), types.tolist(), masses.tolist(), box, v)

    @property
    def natoms(self):
        return len(self._s.types)

    @property
    def positions(self):
        return np.asarray(self._s.positions).reshape(-1, 3)

    @positions.setter
    def positions(self, x):
        self._s.positions = _positions(x).ravel().tolist()

    @property
    def velocities(self):
        return np.asarray(self._s.velocities).reshape(-1, 3)

    @velocities.setter
    def velocities(self, v):
        self._s.velocities = _positions(v, "velocities").ravel().tolist()

    @property
    def forces(self):
        return np.asarray(self._s.forces).reshape(-1, 3)

    @property
    def types(self):
        return np.asarray(self._s.types, dtype=np.int64)

    @property
    def masses(self):
        return np.asarray(self._s.masses)

    @property
    def box(self):
        return self._s.box

    @property
    def step(self):
        return self._s.step

    @property
    def time(self):
        """ps"""
        return self._s.time

    @property
    def potential_energy(self):
        return self._s.potential_energy

    @property
    def virial(self):
        return np.asarray(self._s.virial).reshape(3, 3)

    def initialize_velocities(self, temperature, seed, units="codata2018"):
        """Maxwell-Boltzmann velocities at ``temperature`` (K), seeded, zero total momentum,
        scaled to the temperature exactly (3N - 3 degrees of freedom)."""
        self._s.initialize_velocities(float(temperature), int(seed), units)

    def compute_forces(self, potential):
        self._s.compute_forces(potential)

    def thermo(self, units="codata2018"):
        """dict: step, time (ps), pe, ke, etotal (eV), temperature (K), pressure (bar)."""
        return self._s.thermo(units)

    def total_momentum(self):
        """amu Å/ps, [3]."""
        return np.asarray(self._s.total_momentum())


_COLUMNS = ("step", "time", "pe", "ke", "etotal", "temperature", "pressure", "conserved")


def run(state, potential, integrator, steps, thermo_every=0, print_thermo=False, trajectory=None,
        trajectory_every=0, velocities=True, forces=False, type_names=(), xyz=None, xyz_every=0):
    """Runs ``steps`` MD steps of ``integrator`` with ``potential`` from ``state`` (updated in
    place). Returns the thermo records (every ``thermo_every`` steps, the first and the last) as a
    dict of NumPy arrays: step, time (ps), pe, ke, etotal (eV), temperature (K), pressure (bar),
    conserved (eV; the integrator's conserved quantity). ``print_thermo``: True (stdout) or a
    file object gets a table as the run goes. ``trajectory``: an H5MD file (written atomically)
    every ``trajectory_every`` steps (with velocities, optionally forces); ``xyz``: extended XYZ.
    """
    if not isinstance(state, State):
        raise TypeError(f"run: state must be a sampan.deepmd.md.State, got {type(state).__name__}")
    rows = []
    out = sys.stdout if print_thermo is True else (print_thermo or None)
    if out is not None and thermo_every:
        print(f"{'Step':>10} {'Time(ps)':>10} {'PotEng(eV)':>16} {'KinEng(eV)':>14} {'TotEng(eV)':>16} "
              f"{'Temp(K)':>10} {'Press(bar)':>12}", file=out)

    def on_thermo(t, conserved):
        rows.append(tuple(t[c] for c in _COLUMNS[:-1]) + (conserved,))
        if out is not None:
            print(f"{t['step']:>10d} {t['time']:>10.4f} {t['pe']:>16.8f} {t['ke']:>14.8f} {t['etotal']:>16.8f} "
                  f"{t['temperature']:>10.3f} {t['pressure']:>12.3f}", file=out, flush=True)

    potential = _as_potential(potential)
    _md.run(state._s, potential, integrator, int(steps), int(thermo_every), on_thermo if thermo_every else None,
            str(trajectory) if trajectory else "", int(trajectory_every) if trajectory else 0, bool(velocities),
            bool(forces), list(type_names), str(xyz) if xyz else "", int(xyz_every) if xyz else 0)
    table = np.array(rows, dtype=np.float64).reshape(-1, len(_COLUMNS))
    result = {c: table[:, k] for k, c in enumerate(_COLUMNS)}
    result["step"] = result["step"].astype(np.int64)
    return result


def read_h5md(path):
    """An H5MD trajectory (as written by ``run``) as NumPy arrays: step [T], time [T] (ps),
    position [T, N, 3], velocity / force [T, N, 3] (None if absent), cell [T, 3, 3], species
    [N], mass [N], boundary, type_names, observables {name: [T]}. No h5py needed."""
    d = _md.read_h5md(str(path))
    n = d["natoms"]

    def frames(key):
        return np.asarray(d[key], dtype=np.float64).reshape(-1, n, 3) if d[key] else None

    return {"natoms": n, "step": np.asarray(d["step"], dtype=np.int64), "time": np.asarray(d["time"]),
            "position": frames("position"), "velocity": frames("velocity"), "force": frames("force"),
            "cell": np.asarray(d["cell"]).reshape(-1, 3, 3), "species": np.asarray(d["species"], dtype=np.int64),
            "mass": np.asarray(d["mass"]), "boundary": list(d["boundary"]), "type_names": list(d["type_names"]),
            "observables": {k: np.asarray(v) for k, v in d["observables"].items()}}


def radial_distribution(positions, cells, rmax, nbins=100, types=None, pair=None, periodic=True):
    """The radial distribution function g(r) of one frame or averaged over frames.

    positions: [N, 3] or [T, N, 3] (Å); cells: one 3x3 cell (rows: lattice vectors) or [T, 3, 3]
    (e.g. ``read_h5md(path)["cell"]``); rmax (Å) may exceed half the box (all images count).
    ``pair=(a, b)`` with ``types`` [N]: g_ab(r) counting b atoms around a atoms (the O-O RDF of
    water is ``pair=(0, 0)``); None: all atoms. Normalised so that an ideal gas gives 1:
    g(r) = <count in shell> / (N_a (N_b - delta_ab) / V * shell volume). Returns (r [nbins] bin
    centres, g [nbins]).
    """
    x = np.asarray(positions, dtype=np.float64)
    if x.ndim == 2:
        x = x[None]
    cells = np.asarray(cells, dtype=np.float64)
    if cells.ndim == 2:
        cells = np.broadcast_to(cells, (x.shape[0], 3, 3))
    if cells.shape != (x.shape[0], 3, 3):
        raise ValueError(f"radial_distribution: cells must be [3, 3] or [T, 3, 3] for {x.shape[0]} frames, "
                         f"got {cells.shape}")
    n = x.shape[1]
    if pair is None:
        a_mask = b_mask = np.ones(n, dtype=bool)
        same = True
    else:
        if types is None:
            raise ValueError("radial_distribution: pair=(a, b) needs types")
        t = np.asarray(types).ravel()
        a_mask, b_mask, same = t == pair[0], t == pair[1], pair[0] == pair[1]
    na, nb = int(a_mask.sum()), int(b_mask.sum())
    if na == 0 or nb - (1 if same else 0) <= 0:
        raise ValueError(f"radial_distribution: no atoms of the pair {pair}")
    edges = np.linspace(0.0, float(rmax), nbins + 1)
    hist = np.zeros(nbins)
    norm = 0.0
    for frame, cell in zip(x, cells):
        b = box(cell, periodic)
        nl = neighbor_list(frame, b, rmax)
        first = np.repeat(np.arange(n), np.diff(nl["offsets"]))
        keep = a_mask[first] & b_mask[nl["neighbors"]]
        r = np.linalg.norm(nl["vectors"][keep], axis=1)
        hist += np.histogram(r, bins=edges)[0]
        norm += na * (nb - (1 if same else 0)) / b.volume()
    shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    return 0.5 * (edges[1:] + edges[:-1]), hist / (norm * shell)


def h5md_to_extxyz(h5md_path, xyz_path, type_names=()):
    """Writes every frame of an H5MD trajectory as extended XYZ (atomically)."""
    _md.h5md_to_extxyz(str(h5md_path), str(xyz_path), list(type_names))
