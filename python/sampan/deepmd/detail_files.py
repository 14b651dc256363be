"""The detail files of ``sampan deepmd test -d PREFIX``, in ``dp test -d``'s layout.

Per system tested, each file gets a block: a header line ``# SYSTEM: COLUMNS`` then rows
(NumPy savetxt's default %.18e, space separated):

- PREFIX.e.out: data_e pred_e (one row per frame; eV); PREFIX.e_peratom.out: the same / natoms;
- PREFIX.f.out: data_fx data_fy data_fz pred_fx pred_fy pred_fz (one row per atom per frame; eV/Å);
- PREFIX.v.out: 9 data then 9 predicted virial components, xx xy xz yx yy yz zx zy zz (eV);
  PREFIX.v_peratom.out: the same / natoms.

A label that the system lacks is written as zeros, as dp test does.
"""
import os

import numpy as np

_VIRIAL = ("xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz")
COLUMNS = {
    ".e.out": "data_e pred_e",
    ".e_peratom.out": "data_e pred_e",
    ".f.out": "data_fx data_fy data_fz pred_fx pred_fy pred_fz",
    ".v.out": " ".join([f"data_v{c}" for c in _VIRIAL] + [f"pred_v{c}" for c in _VIRIAL]),
    ".v_peratom.out": " ".join([f"data_v{c}" for c in _VIRIAL] + [f"pred_v{c}" for c in _VIRIAL]),
}


def system_tables(system, nframes, energy, force, virial):
    """{suffix: [rows, ncols]} of one system's first nframes frames (predictions energy [nf],
    force [nf, natoms, 3], virial [nf, 9])."""
    def label(values, shape):
        return np.zeros(shape) if values is None else np.asarray(values[:nframes], dtype=float).reshape(shape)

    n = system.natoms
    e = np.stack([label(system.energy, (nframes,)), np.asarray(energy, dtype=float)], axis=1)
    f = np.concatenate([label(system.force, (nframes * n, 3)), np.asarray(force, dtype=float).reshape(-1, 3)], axis=1)
    v = np.concatenate([label(system.virial, (nframes, 9)), np.asarray(virial, dtype=float).reshape(-1, 9)], axis=1)
    return {".e.out": e, ".e_peratom.out": e / n, ".f.out": f, ".v.out": v, ".v_peratom.out": v / n}


def write_detail_files(prefix, blocks):
    """Writes PREFIX + each suffix of COLUMNS from blocks [(system path, system_tables(...))],
    each file to a temp file in its folder, then renamed."""
    for suffix, columns in COLUMNS.items():
        path = f"{prefix}{suffix}"
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            for system_path, tables in blocks:
                np.savetxt(f, tables[suffix], header=f"{system_path}: {columns}")
        os.replace(tmp, path)
