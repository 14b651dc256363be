"""Neighbour statistics of training data, as DeePMD-kit's ``dp neighbor-stat``, and the
``"sel": "auto[:FACTOR]"`` they imply (one function serves both).

For every atom of every frame: the number of neighbours of each type closer than rcut
(periodic images included), and the smallest distance between two atoms. DeePMD-kit's rule for
an "auto" sel (deepmd/utils/update_sel.py): the largest count of each neighbour type times the
factor (default 1.1), truncated to an integer, then rounded up to a multiple of 4.
"""
import itertools
import math
from dataclasses import dataclass
from typing import List

import numpy as np

DEFAULT_AUTO_FACTOR = 1.1


@dataclass
class NeighborStat:
    min_nbor_dist: float     # Å, over all pairs of atoms closer than rcut (inf when there are none)
    max_nbor_size: List[int]  # per neighbour type: the most neighbours of that type any atom has


def _images(coord, box, rcut):
    """Positions of the atoms wrapped into the cell and of their periodic images that can lie
    within rcut of an atom of the cell, the index of each one's atom, whether it is the unshifted
    copy, and the wrapped positions themselves (the centres)."""
    if box is None:
        return coord, np.arange(len(coord)), np.ones(len(coord), bool), coord
    frac = coord @ np.linalg.inv(box)
    wrapped = (frac - np.floor(frac)) @ box
    volume = abs(np.linalg.det(box))
    heights = [volume / np.linalg.norm(np.cross(box[(i + 1) % 3], box[(i + 2) % 3])) for i in range(3)]
    reach = [int(math.ceil(rcut / h)) for h in heights]
    shifts = np.array(list(itertools.product(*[range(-n, n + 1) for n in reach])), dtype=float)
    positions = (wrapped[None, :, :] + (shifts @ box)[:, None, :]).reshape(-1, 3)
    owner = np.tile(np.arange(len(coord)), len(shifts))
    zero = np.repeat(~shifts.any(axis=1), len(coord))
    return positions, owner, zero, wrapped


def frame_stat(coord, atom_types, box, rcut, ntypes, block_pairs=4_000_000):
    """(min distance, [natoms, ntypes] neighbour counts) of one frame; coord [natoms, 3], box
    [3, 3] with cell vectors as rows or None. Centres go in blocks of about block_pairs
    distances (bounded memory for large systems)."""
    positions, owner, zero, centres = _images(coord, box, rcut)
    neighbour_type = atom_types[owner]
    natoms = len(coord)
    counts = np.zeros((natoms, ntypes), dtype=int)
    nearest = math.inf
    step = max(1, block_pairs // max(1, len(positions)))
    for start in range(0, natoms, step):
        rows = np.arange(start, min(natoms, start + step))
        d2 = ((centres[rows, None, :] - positions[None, :, :]) ** 2).sum(-1)
        d2[zero[None, :] & (owner[None, :] == rows[:, None])] = np.inf  # an atom is not its own neighbour
        within = d2 < rcut * rcut
        for t in range(ntypes):
            counts[rows, t] = (within & (neighbour_type == t)[None, :]).sum(axis=1)
        if d2.size:
            nearest = min(nearest, float(np.sqrt(d2.min())))
    return nearest, counts


def neighbor_stat(systems, rcut, ntypes):
    """NeighborStat over every frame of the Systems (their atom types are indices below ntypes)."""
    if rcut <= 0:
        raise ValueError(f"rcut: expected a positive cutoff in Å, found {rcut}")
    nearest, largest = math.inf, np.zeros(ntypes, dtype=int)
    for system in systems:
        for f in range(system.nframes):
            box = None if system.box is None else system.box[f]
            d, counts = frame_stat(system.coord[f], system.atom_types, box, rcut, ntypes)
            nearest = min(nearest, d)
            largest = np.maximum(largest, counts.max(axis=0))
    return NeighborStat(min_nbor_dist=nearest, max_nbor_size=[int(n) for n in largest])


def auto_factor(sel, what="model.descriptor.sel"):
    """The factor of a sel "auto" or "auto:FACTOR"; None when sel is not such a string."""
    if not isinstance(sel, str):
        return None
    words = sel.split(":")
    if words[0] != "auto" or len(words) > 2:
        raise ValueError(f"{what}: expected a list of integers, \"auto\" or \"auto:FACTOR\", found {sel!r}")
    if len(words) == 1:
        return DEFAULT_AUTO_FACTOR
    try:
        factor = float(words[1])
    except ValueError:
        raise ValueError(f"{what}: expected \"auto:FACTOR\" with a number, found {sel!r}") from None
    if factor <= 0:
        raise ValueError(f"{what}: the factor of {sel!r} must be positive")
    return factor


def auto_sel(max_nbor_size, factor=DEFAULT_AUTO_FACTOR):
    """DeePMD-kit's sel from the largest neighbour counts: int(n * factor) rounded up to a multiple of 4."""
    return [4 * ((int(n * factor) + 3) // 4) for n in max_nbor_size]
