"""The se_e2_a model in Python: a thin face of the C++ DeepPot (sampan/deepmd/deep_pot.h).

The same C++ object evaluates frames for training (gradients flow to its parameters through
sampan's autograd, forces included: double backward), for `sampan deepmd test`, and, saved with
``save`` (what ``sampan deepmd freeze`` writes), in the C++ MD engine without Python.
"""
import numpy as np

from .. import _C

DeepPot = _C.DeepPot


def model_config(input_json):
    """The DeepPot config from a DeePMD-kit input.json ``model`` section (se_e2_a + ener)."""
    model = input_json["model"]
    desc, fit = model["descriptor"], model["fitting_net"]
    if desc.get("type", "se_e2_a") not in ("se_e2_a", "se_a"):
        raise ValueError(f"model.descriptor.type: '{desc.get('type')}' is not supported (se_e2_a)")
    if fit.get("type", "ener") != "ener":
        raise ValueError(f"model.fitting_net.type: '{fit.get('type')}' is not supported (ener)")
    for key in ("activation_function",):
        for section, name in ((desc, "descriptor"), (fit, "fitting_net")):
            if section.get(key, "tanh") != "tanh":
                raise ValueError(f"model.{name}.{key}: only tanh is supported, got {section[key]!r}")
    sel = desc["sel"]
    if isinstance(sel, str):
        raise ValueError(f"model.descriptor.sel: '{sel}' must be resolved from the training data first "
                         "(sampan.deepmd.train.resolve_auto_sel; `sampan deepmd train` does it)")
    return {
        "type_map": list(model["type_map"]),
        "rcut": float(desc["rcut"]),
        "rcut_smth": float(desc["rcut_smth"]),
        "sel": [int(s) for s in sel],
        "neuron": [int(n) for n in desc.get("neuron", [10, 20, 40])],
        "axis_neuron": int(desc.get("axis_neuron", 4)),
        "type_one_side": bool(desc.get("type_one_side", False)),
        "resnet_dt": bool(desc.get("resnet_dt", False)),
        "fitting_neuron": [int(n) for n in fit.get("neuron", [120, 120, 120])],
        "fitting_resnet_dt": bool(fit.get("resnet_dt", True)),
    }


def load_model(path):
    """A DeepPot from a sampan model file (freeze / save) or a DeePMD-kit dpmodel YAML."""
    path = str(path)
    if path.endswith((".yaml", ".yml")):
        return DeepPot.from_deepmd_yaml(path)
    return DeepPot.load(path)


def frame_input(model, system, frame):
    """The extended system of one frame of a System for this model (raises on sel overflow)."""
    cell = None if system.box is None else system.box[frame].ravel()
    ext = model.extend(system.coord[frame].ravel(), system.atom_types, cell)
    if ext.any_overflow():
        raise ValueError(f"{system.path} frame {frame}: " + ext.overflow_message(model.config["sel"]) +
                         "; increase sel")
    return ext


def evaluate_system(model, system, frames=None):
    """Energies [nf], forces [nf, natoms, 3] and virials [nf, 9] (NumPy) of frames of a System."""
    frames = range(system.nframes) if frames is None else frames
    energy, force, virial = [], [], []
    for f in frames:
        out = model.evaluate(frame_input(model, system, f), True, False)
        energy.append(out["energy"].item())
        force.append(out["force"].cpu().numpy().copy())  # a model on the GPU gives GPU tensors
        virial.append(out["virial"].cpu().numpy().copy())
    return np.array(energy), np.array(force), np.array(virial)
