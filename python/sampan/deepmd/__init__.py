"""sampan.deepmd: DeePMD-style machine-learned potentials (se_e2_a) on sampan's ops.

Units throughout: energy eV, length Å, force eV/Å, virial eV, mass amu, time ps (MD time steps
in fs). The ops live in ``sp.ops.deepmd``; the model is the C++ DeepPot.
"""
from .data import System, load_system  # noqa: F401
from .model import DeepPot, evaluate_system, frame_input, load_model, model_config  # noqa: F401
