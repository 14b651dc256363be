"""dpdata driver "sampan": ``dpdata.System(...).predict(model, driver="sampan")`` labels frames with a
sampan DeepPot (energies eV, forces eV/Å, virials eV), like dpdata's own "dp" driver does with DeePMD-kit.

Found by dpdata through the entry point ``[project.entry-points."dpdata.plugins"]`` in pyproject.toml.
dpdata loads its plugins while ``import dpdata`` is still running, so this module imports only
``dpdata.driver`` (complete by then) at import time, and sampan's model code when a driver is made.
"""
import numpy as np
from dpdata.driver import Driver


@Driver.register("sampan")
class SampanDriver(Driver):
    """Labels a dpdata System with a sampan DeepPot.

    model: a DeepPot or a path (sampan frozen .h5, DeePMD-kit dpmodel .yaml). type_map: how the
    system's atom_names map to model types (sampan.deepmd.frame_labels.name_to_type; default: by name
    through the model's type_map).
    """

    def __init__(self, model, type_map=None):
        from .frame_labels import as_model, name_to_type
        self.model = as_model(model)
        self.mapping = name_to_type(self.model, type_map)

    def label(self, data: dict) -> dict:
        from .frame_labels import evaluate_frame, types_of
        names = [data["atom_names"][t] for t in data["atom_types"]]
        types = types_of(names, self.mapping, "dpdata system (atom_names)")
        periodic = not data.get("nopbc", False)
        nframes = len(data["coords"])
        labels = [evaluate_frame(self.model, data["coords"][f], types, data["cells"][f] if periodic else None)
                  for f in range(nframes)]
        out = dict(data)
        out["energies"] = np.array([lab["energy"] for lab in labels], dtype=np.float64).reshape(nframes)
        out["forces"] = np.array([lab["force"] for lab in labels], dtype=np.float64).reshape(nframes, -1, 3)
        out["virials"] = np.array([lab["virial"] for lab in labels], dtype=np.float64).reshape(nframes, 3, 3)
        return out
