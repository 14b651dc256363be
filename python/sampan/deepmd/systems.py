"""Finding DeePMD systems as DeePMD-kit does, and reading them in a model's type order.

A system is a folder holding type.raw. A path given as systems (input.json's ``systems``, the
``-s`` of the commands) is searched recursively: the folder itself and every folder below it
that holds type.raw, in sorted order. A list of paths is the concatenation. A file (a
deepmd/hdf5 file, or ``file.h5#/group``) is passed on as it is: data.py reads its systems.
"""
import dataclasses
import os

import numpy as np

from . import data


def find_systems(spec, base=".", what="systems"):
    """The system folders under a path or list of paths (relative ones are taken from `base`).
    `what` names the setting in errors (e.g. ``training.training_data.systems``)."""
    paths = [spec] if isinstance(spec, (str, os.PathLike)) else spec
    if not isinstance(paths, (list, tuple)) or not paths:
        raise ValueError(f"{what}: expected a folder or a list of folders, found {spec!r}")
    found = []
    for p in paths:
        if not isinstance(p, (str, os.PathLike)):
            raise ValueError(f"{what}: expected folder names, found {p!r}")
        path = os.fspath(p)
        path = path if os.path.isabs(path) else os.path.join(base, path)
        if os.path.isfile(path.split("#")[0]):
            found.append(path)
            continue
        if not os.path.isdir(path):
            raise ValueError(f"{what}: {path} is not a folder")
        here = []
        for root, dirs, files in os.walk(path):
            dirs.sort()
            if "type.raw" in files:
                here.append(root)
        if not here:
            raise ValueError(f"{what}: no DeePMD system (a folder holding type.raw) in {path}")
        found.extend(here)
    return found


def in_type_map(system, type_map):
    """The System with its atom types renumbered to `type_map`'s order (by the names of its
    type_map.raw; without one its types are taken as indices into type_map)."""
    types = system.atom_types
    if system.type_map:
        missing = [name for name in system.type_map if name not in type_map]
        if missing:
            raise ValueError(f"{system.path}: type '{missing[0]}' of type_map.raw is not in the model's "
                             f"type_map {list(type_map)}")
        if types.size and types.max() >= len(system.type_map):
            raise ValueError(f"{system.path}: type.raw has type {int(types.max())} but type_map.raw names "
                             f"{len(system.type_map)} types")
        index = np.array([list(type_map).index(name) for name in system.type_map], dtype=types.dtype)
        types = index[types]
    elif types.size and types.max() >= len(type_map):
        raise ValueError(f"{system.path}: atom type {int(types.max())} but the model has {len(type_map)} types "
                         f"{list(type_map)}")
    return dataclasses.replace(system, atom_types=types, type_map=list(type_map))


def _read(path):
    if os.path.isfile(path.split("#")[0]):
        return data.load_systems(path)  # deepmd/hdf5: every system of the file or group
    return [data.load_system(path)]


def read_stored(spec, base=".", what="systems"):
    """Every system under `spec` (find_systems), its types as its type.raw stores them."""
    return [s for path in find_systems(spec, base, what) for s in _read(path)]


def read_systems(spec, type_map, base=".", what="systems"):
    """Every system under `spec` (find_systems), in `type_map`'s type order."""
    return [in_type_map(s, type_map) for s in read_stored(spec, base, what)]
