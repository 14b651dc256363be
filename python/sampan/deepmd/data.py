"""DeePMD-kit training data: systems in the deepmd/npy and raw formats.

Units (DeePMD / LAMMPS ``metal``): coordinates and cells in Å, energies in eV, forces in eV/Å,
virials in eV.
"""
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from .. import _C


@dataclass
class System:
    """One DeePMD system, all sets concatenated (arrays are NumPy float64; types int64).

    coord [nframes, natoms, 3] Å (as stored: often unwrapped); box [nframes, 3, 3] Å with cell
    vectors as rows, or None without periodic boundaries; energy [nframes] eV; force
    [nframes, natoms, 3] eV/Å; virial [nframes, 3, 3] eV. Labels that the system lacks are None.
    """

    path: str
    type_map: List[str]
    atom_types: np.ndarray
    periodic: bool
    coord: np.ndarray
    box: Optional[np.ndarray]
    energy: Optional[np.ndarray]
    force: Optional[np.ndarray]
    virial: Optional[np.ndarray]

    @property
    def nframes(self) -> int:
        return int(self.coord.shape[0])

    @property
    def natoms(self) -> int:
        return int(self.atom_types.shape[0])

    def __repr__(self):
        labels = [n for n in ("energy", "force", "virial") if getattr(self, n) is not None]
        return (f"System({self.path!r}, {self.nframes} frames, {self.natoms} atoms, "
                f"type_map={self.type_map}, periodic={self.periodic}, labels={labels})")


def _numpy(t):
    return None if t is None else np.array(t.numpy(), copy=True)


def load_system(path) -> System:
    """Reads a DeePMD system folder (``set.*/coord.npy ...`` or ``coord.raw ...``).

    Errors (OSError / ValueError) name the file, the frame or line, and the mismatch.
    """
    d = _C.deepmd_load_system(str(path))
    return System(path=d["path"], type_map=list(d["type_map"]), atom_types=_numpy(d["atom_types"]),
                  periodic=bool(d["periodic"]), coord=_numpy(d["coord"]), box=_numpy(d["box"]),
                  energy=_numpy(d["energy"]), force=_numpy(d["force"]), virial=_numpy(d["virial"]))
