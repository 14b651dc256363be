"""sampan.deepmd.ase.Calculator: an ASE calculator over a sampan DeepPot.

Checked against: the DeepPot evaluated directly (the same numbers, 1e-12), DeePMD-kit's own energies
(../shared/data/deepmd_dpkit_models, its SOURCE.md), central differences of the calculator's energy
in positions (forces) and in strain (ASE's numerical stress), a BFGS relaxation and an NVE run
under ASE's own integrator. Models: a DeePMD-kit-written Si/O model (perturbed weights), and for
the relaxation and MD an se_e2_a model whose weights make it a smooth repulsion (repulsive_model).
"""
import numpy as np
import pytest

ase = pytest.importorskip("ase", reason="the optional extra 'ase' is not installed (pip install sampan[ase])")
from ase import Atoms, units  # noqa: E402
from ase.calculators.calculator import PropertyNotImplementedError  # noqa: E402
from ase.calculators.fd import calculate_numerical_stress  # noqa: E402
from ase.md.verlet import VelocityVerlet  # noqa: E402
from ase.optimize import BFGS  # noqa: E402

import sampan as sp  # noqa: E402
from sampan.deepmd.ase import Calculator  # noqa: E402
from sampan.deepmd.model import DeepPot, load_model  # noqa: E402
from md_systems import fcc_lattice  # noqa: E402
from shared_data import SHARED_DATA  # noqa: E402

DPKIT = SHARED_DATA / "deepmd_dpkit_models"
needs_dpkit = pytest.mark.skipif(not (DPKIT / "reference.npz").exists(),
                                 reason=f"DeePMD-kit-written models not found at {DPKIT}")


def si_o_frame():
    """The DeePMD-kit reference frame (24 atoms, triclinic cell) and its model's type_map."""
    ref = np.load(DPKIT / "reference.npz")
    name = "se_e2_a_two_side"
    coord, box, types = ref[f"{name}/coord"], ref[f"{name}/box"], ref[f"{name}/types"]
    symbols = [["Si", "O"][t] for t in types]
    return Atoms(symbols, positions=coord, cell=box, pbc=True), ref, name


# One type, rcut 5 Å: the model repulsive_model() turns into a smooth many-body repulsion.
REPULSIVE = {"type_map": ["Ar"], "rcut": 5.0, "rcut_smth": 1.0, "sel": [60], "neuron": [4, 8], "axis_neuron": 4,
             "type_one_side": True, "resnet_dt": False, "fitting_neuron": [16, 16], "fitting_resnet_dt": True}


def repulsive_model():
    """An se_e2_a DeepPot with a real minimum to relax to (random weights have none: atoms collapse).

    Embedding weights 0 and biases 0.5 make G(s) a positive constant g, so with davg 0 and dstd 1 the
    descriptor is D_ab = g_a g_b [(sum_j s_ij)^2 + |sum_j s_ij r_ij / r_ij|^2] / N^2 (s = 1/r, smoothly
    switched off at rcut); the fitting net is tanh of a positive sum of D, scaled up: an atomic energy that
    rises whenever neighbours come closer.
    """
    model = DeepPot(REPULSIVE, 1)
    for name, p in zip(model.parameter_names(), model.parameters()):
        value = np.zeros(p.shape)
        if name.startswith("embedding") and name.endswith(".b"):
            value[:] = 0.5
        elif name == "fitting.0.layer.0.w":
            value[:] = 1.0
        elif name == "fitting.0.layer.2.w":  # the output layer
            value[:] = 50.0 / p.shape[0]
        elif name.endswith(".idt"):
            value[:] = 0.1
        p.copy_(sp.tensor(value))
    width = 4 * sum(REPULSIVE["sel"])
    model.davg = sp.tensor(np.zeros((1, width)))
    model.dstd = sp.tensor(np.ones((1, width)))
    model.validate()
    return model


def argon(jitter, seed):
    """32 atoms: a jittered fcc lattice (a = 5.3 Å) in a periodic cube."""
    x, _, cell = fcc_lattice(2, 5.3, jitter=jitter, seed=seed, two_types=False)
    return Atoms(["Ar"] * len(x), positions=x, cell=cell, pbc=True)


def direct(model, atoms, type_map):
    """Energy, atomic energies, forces, virial [3, 3] from the DeepPot itself (no calculator)."""
    types = [type_map.index(s) for s in atoms.get_chemical_symbols()]
    cell = atoms.cell.array.ravel().tolist() if atoms.pbc.all() else None
    ext = model.extend(atoms.positions.ravel().tolist(), types, cell)
    assert not ext.any_overflow()
    out = model.evaluate(ext, True, False)
    return (out["energy"].item(), out["atom_energy"].numpy().ravel(), out["force"].numpy().reshape(-1, 3),
            out["virial"].numpy().reshape(3, 3))


@needs_dpkit
def test_energy_forces_and_atomic_energies_are_the_deeppots_and_deepmd_kits():
    atoms, ref, name = si_o_frame()
    model = load_model(DPKIT / f"{name}.yaml")
    atoms.calc = Calculator(DPKIT / f"{name}.yaml")  # from a path
    e, atom_e, f, _ = direct(model, atoms, ["Si", "O"])
    assert abs(atoms.get_potential_energy() - e) <= 1e-12
    assert atoms.get_potential_energy(force_consistent=True) == atoms.get_potential_energy()
    np.testing.assert_allclose(atoms.get_potential_energies(), atom_e, rtol=0, atol=1e-12)
    np.testing.assert_allclose(atoms.get_forces(), f, rtol=0, atol=1e-12)
    # The other tool's numbers: DeePMD-kit's energy, atomic energies, and its finite-difference forces.
    assert abs(atoms.get_potential_energy() - ref[f"{name}/energy"][0]) <= 1e-12
    np.testing.assert_allclose(atoms.get_potential_energies(), ref[f"{name}/atom_energy"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(atoms.get_forces(), ref[f"{name}/force_fd"], rtol=0, atol=1e-9)
    assert np.ptp(atom_e) > 0.1 and np.abs(f).max() > 1e-3  # not vacuous


@needs_dpkit
def test_forces_are_minus_the_gradient_of_the_ase_energy():
    atoms, _, name = si_o_frame()
    atoms.calc = Calculator(load_model(DPKIT / f"{name}.yaml"))
    forces = atoms.get_forces()
    h, fd = 1e-5, np.zeros_like(forces)
    for i in range(len(atoms)):
        for k in range(3):
            energies = []
            for sign in (1, -1):
                moved = atoms.copy()
                moved.calc = atoms.calc
                moved.positions[i, k] += sign * h
                energies.append(moved.get_potential_energy())
            fd[i, k] = -(energies[0] - energies[1]) / (2 * h)
    np.testing.assert_allclose(forces, fd, rtol=0, atol=1e-8)
    assert np.abs(forces).max() > 1e-2


@needs_dpkit
def test_stress_is_the_strain_derivative_of_the_energy():
    atoms, _, name = si_o_frame()
    model = load_model(DPKIT / f"{name}.yaml")
    atoms.calc = Calculator(model)
    stress = atoms.get_stress()
    numerical = calculate_numerical_stress(atoms, eps=1e-6)
    np.testing.assert_allclose(stress, numerical, rtol=0, atol=1e-10)  # measured: 3e-12
    assert np.abs(stress).max() > 5e-5 and np.abs(stress[3:]).max() > 1e-6  # eV/Å^3 (measured 1.3e-4): not vacuous
    # ASE's sign: stress = -virial / V (DeePMD's virial is -dE/dstrain).
    virial = direct(model, atoms, ["Si", "O"])[3]
    full = atoms.get_stress(voigt=False)
    np.testing.assert_allclose(full, -(virial + virial.T) / 2 / atoms.get_volume(), rtol=0, atol=1e-14)


@needs_dpkit
def test_open_system_evaluates_and_refuses_stress():
    atoms, _, name = si_o_frame()
    atoms.pbc = False
    model = load_model(DPKIT / f"{name}.yaml")
    atoms.calc = Calculator(model)
    e, _, f, _ = direct(model, atoms, ["Si", "O"])
    assert abs(atoms.get_potential_energy() - e) <= 1e-12
    np.testing.assert_allclose(atoms.get_forces(), f, rtol=0, atol=1e-12)
    periodic, _, _ = si_o_frame()
    periodic.calc = Calculator(model)
    assert abs(periodic.get_potential_energy() - e) > 1e-6  # the images matter: pbc was honoured
    with pytest.raises(PropertyNotImplementedError, match="stress needs a periodic cell"):
        atoms.get_stress()
    atoms.pbc = [True, True, False]
    with pytest.raises(ValueError, match="fully periodic"):
        atoms.get_potential_energy()
    atoms.pbc, atoms.cell = True, None
    with pytest.raises(ValueError, match="the cell is singular"):
        atoms.get_potential_energy()


@needs_dpkit
def test_type_map_maps_symbols_and_names_the_missing_one():
    atoms, _, name = si_o_frame()
    model = load_model(DPKIT / f"{name}.yaml")
    atoms.calc = Calculator(model)
    reference = atoms.get_potential_energy()
    renamed = atoms.copy()
    renamed.set_chemical_symbols(["Ge" if s == "Si" else "S" for s in atoms.get_chemical_symbols()])
    for type_map in (["Ge", "S"], {"Ge": "Si", "S": "O"}, {"S": 1, "Ge": 0}):
        renamed.calc = Calculator(model, type_map=type_map)
        assert abs(renamed.get_potential_energy() - reference) <= 1e-12
    swapped = atoms.copy()
    swapped.calc = Calculator(model, type_map=["O", "Si"])  # Si atoms become model type O
    assert abs(swapped.get_potential_energy() - reference) > 1e-3
    renamed.calc = Calculator(model)
    with pytest.raises(ValueError, match=r"\['Ge', 'S'\] have no model type"):
        renamed.get_potential_energy()
    with pytest.raises(ValueError, match="type_map\\['Ge'\\]: model type 'C'"):
        Calculator(model, type_map={"Ge": "C"})


def test_bfgs_relaxation_lowers_the_energy_to_fmax():
    atoms = argon(jitter=0.3, seed=1)
    atoms.calc = Calculator(repulsive_model())
    start = atoms.get_potential_energy()
    fmax = 0.01
    assert np.linalg.norm(atoms.get_forces(), axis=1).max() > 10 * fmax  # a relaxation to do
    converged = BFGS(atoms, logfile=None).run(fmax=fmax, steps=300)
    assert converged and np.linalg.norm(atoms.get_forces(), axis=1).max() < fmax
    assert atoms.get_potential_energy() < start - 0.1
    distances = atoms.get_all_distances(mic=True)[np.triu_indices(len(atoms), 1)]
    assert distances.min() > 3.0  # a minimum of the repulsion, not a collapse


def _nve_energies(atoms, steps, dt_fs=0.5):
    energies = []
    dyn = VelocityVerlet(atoms, timestep=dt_fs * units.fs, logfile=None)
    dyn.attach(lambda: energies.append(atoms.get_potential_energy() + atoms.get_kinetic_energy()), interval=5)
    dyn.run(steps)
    return np.array(energies)


class _FlippedForces(Calculator):
    """The same model with the force sign broken: what the NVE test must catch."""

    def calculate(self, *args, **kwargs):
        super().calculate(*args, **kwargs)
        self.results["forces"] = -self.results["forces"]


def test_ase_velocity_verlet_conserves_energy():
    model = repulsive_model()

    def start(calc):
        atoms = argon(jitter=0.1, seed=2)
        atoms.calc = calc
        # Maxwell-Boltzmann momenta at 300 K, total momentum removed
        masses = atoms.get_masses()[:, None]
        momenta = np.sqrt(masses * units.kB * 300) * np.random.default_rng(7).normal(size=(len(atoms), 3))
        atoms.set_momenta(momenta - masses * momenta.sum(0) / masses.sum())
        return atoms

    atoms = start(Calculator(model))
    energies = _nve_energies(atoms, steps=100, dt_fs=2.0)  # 200 fs
    drift = np.abs(energies - energies[0]).max() / len(atoms)
    kinetic_scale = 1.5 * units.kB * 300  # eV per atom
    assert drift < 1e-3 * kinetic_scale, drift
    broken = _nve_energies(start(_FlippedForces(model)), steps=100, dt_fs=2.0)
    assert np.abs(broken - broken[0]).max() / len(atoms) > 10 * drift  # the bound does discriminate
    assert np.abs(broken - broken[0]).max() / len(atoms) > 1e-3 * kinetic_scale
