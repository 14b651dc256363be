"""An ASE calculator over a sampan DeepPot: ``atoms.calc = sampan.deepmd.ase.Calculator("model.h5")``.

Properties: energy and free_energy (eV, the same number: the model has no electronic entropy),
energies (per atom, eV), forces (eV/Å), stress (Voigt xx yy zz yz xz xy, eV/Å^3, periodic cells only).
The stress is ASE's (1/V) dE/dstrain = -virial / V, with DeePMD's virial = -dE/dstrain.
"""
import numpy as np

try:
    from ase.calculators.calculator import Calculator as _AseCalculator, PropertyNotImplementedError, all_changes
    from ase.stress import full_3x3_to_voigt_6_stress
except ImportError as e:  # the bridge only: sampan itself never needs ASE
    raise ImportError("sampan.deepmd.ase needs the optional extra 'ase' (pip install sampan[ase])") from e

from .frame_labels import as_model, evaluate_frame, name_to_type, types_of


class Calculator(_AseCalculator):
    """ASE calculator for a sampan se_e2_a DeepPot.

    model: a DeepPot or a path (sampan frozen .h5, DeePMD-kit dpmodel .yaml). type_map: ASE chemical
    symbols to model types: None (the model's type_map names are the symbols), a list of symbols in the
    model's type order, or a dict {symbol: model type name or index}. Systems are fully periodic
    (atoms.pbc all True) or open (all False); mixed boundaries are refused.
    """

    implemented_properties = ["energy", "free_energy", "energies", "forces", "stress"]

    def __init__(self, model, type_map=None, **kwargs):
        super().__init__(**kwargs)
        self.model = as_model(model)
        self.mapping = name_to_type(self.model, type_map)

    def calculate(self, atoms=None, properties=("energy",), system_changes=all_changes):
        super().calculate(atoms, properties, system_changes)
        atoms = self.atoms
        pbc = np.asarray(atoms.pbc, dtype=bool)
        if pbc.any() and not pbc.all():
            raise ValueError(f"sampan.deepmd.ase.Calculator: atoms.pbc = {pbc.tolist()}; the model supports fully "
                             f"periodic (all True) or open (all False) systems only")
        periodic = bool(pbc.all())
        if periodic and abs(atoms.cell.volume) < 1e-12:
            raise ValueError(f"sampan.deepmd.ase.Calculator: atoms.pbc is all True but the cell is singular "
                             f"(volume {atoms.cell.volume} Å^3); give the atoms a cell or set pbc=False")
        if "stress" in properties and not periodic:
            raise PropertyNotImplementedError("sampan.deepmd.ase.Calculator: stress needs a periodic cell; "
                                              "these atoms have pbc = [False, False, False]")
        types = types_of(atoms.get_chemical_symbols(), self.mapping, "sampan.deepmd.ase.Calculator: atoms")
        labels = evaluate_frame(self.model, atoms.positions, types, atoms.cell.array if periodic else None)
        self.results = {"energy": labels["energy"], "free_energy": labels["energy"],
                        "energies": labels["atom_energy"], "forces": labels["force"]}
        if periodic:
            self.results["stress"] = full_3x3_to_voigt_6_stress(-labels["virial"] / atoms.get_volume())
