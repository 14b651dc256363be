"""One frame's labels from a DeepPot for the bridges (sampan.deepmd.ase, sampan.deepmd.dpdata_driver).

Labels: energy (eV), per-atom energies (eV), forces [n, 3] (eV/Å) and the virial [3, 3] (eV,
-dE/dstrain, DeePMD's sign). Both bridges take a model as a file path or a DeepPot, and map their
element names to the model's types the same way; that lives here, once.
"""
import os

import numpy as np


def as_model(model):
    """A DeepPot from a DeepPot or a model path (sampan frozen .h5, DeePMD-kit dpmodel .yaml)."""
    from .model import DeepPot, load_model
    if isinstance(model, DeepPot):
        return model
    if isinstance(model, (str, os.PathLike)):
        return load_model(model)
    raise TypeError(f"model: expected a sampan DeepPot or a model file path (.h5 from freeze, DeePMD-kit .yaml), "
                    f"got {type(model).__name__}")


def name_to_type(model, type_map=None):
    """{element name: model type index}.

    type_map: None (the model's own type_map), a list of names in the model's type order, or a
    dict {name: model type name or index}.
    """
    model_types = list(model.config["type_map"])
    if type_map is None:
        return {name: i for i, name in enumerate(model_types)}
    if isinstance(type_map, dict):
        out = {}
        for name, target in type_map.items():
            if isinstance(target, str):
                if target not in model_types:
                    raise ValueError(f"type_map[{name!r}]: model type {target!r} is not in the model's type_map "
                                     f"{model_types}")
                out[name] = model_types.index(target)
            elif isinstance(target, (int, np.integer)) and 0 <= target < len(model_types):
                out[name] = int(target)
            else:
                raise ValueError(f"type_map[{name!r}]: expected a model type name or an index in "
                                 f"0..{len(model_types) - 1}, got {target!r}")
        return out
    names = list(type_map)
    if len(names) > len(model_types):
        raise ValueError(f"type_map: {len(names)} names {names} but the model has {len(model_types)} types "
                         f"{model_types}")
    if len(set(names)) != len(names):
        raise ValueError(f"type_map: names repeat in {names}")
    return {name: i for i, name in enumerate(names)}


def types_of(names, mapping, source):
    """Model type indices (int64) of per-atom element names; the error names what the model lacks."""
    missing = [n for n in dict.fromkeys(names) if n not in mapping]
    if missing:
        raise ValueError(f"{source}: element(s) {missing} have no model type; the type map knows "
                         f"{list(mapping)} (pass type_map= to map them)")
    return np.array([mapping[n] for n in names], dtype=np.int64)


def evaluate_frame(model, coord, types, cell):
    """Labels of one frame: coord [n, 3] Å, types [n] model indices, cell [3, 3] rows (Å) or None (open)."""
    coord = np.ascontiguousarray(coord, dtype=np.float64).reshape(-1)
    cell = None if cell is None else np.ascontiguousarray(cell, dtype=np.float64).reshape(-1)
    ext = model.extend(coord, np.asarray(types, dtype=np.int64), cell)
    if ext.any_overflow():
        raise ValueError(ext.overflow_message(model.config["sel"]) + "; the model's sel is too small for this frame")
    out = model.evaluate(ext, True, False)
    n = len(types)
    return {"energy": float(out["energy"].item()),
            "atom_energy": np.array(out["atom_energy"].numpy(), dtype=np.float64).reshape(n),
            "force": np.array(out["force"].numpy(), dtype=np.float64).reshape(n, 3),
            "virial": np.array(out["virial"].numpy(), dtype=np.float64).reshape(3, 3)}
