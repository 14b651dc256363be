"""Neighbour statistics (sampan deepmd neighbor-stat, the rule behind "sel": "auto").

Checked against closed forms (counts of the simple cubic lattice's neighbour shells, in cubic,
small and sheared cells), the measurement of the water data in the reference note (LAMMPS
compute coord/atom at 6 Å over all 400 frames: at most 38 O and 72 H neighbours), and the C++
neighbour list of a model (sel equal to the counts does not overflow, one less does).
"""
import re

import numpy as np
import pytest

from shared_data import SHARED_DATA
from sampan.deepmd.data import System
from sampan.deepmd.neighbor_stat import auto_factor, auto_sel, neighbor_stat

WATER = SHARED_DATA / "deepmd_water"
needs_water = pytest.mark.skipif(not WATER.exists(), reason=f"DeePMD water data not found at {WATER}")


def lattice_system(n, cell, checkerboard):
    """A simple cubic lattice (spacing 1) of n^3 points in `cell`; types by the parity of i+j+k."""
    points = np.array([(i, j, k) for i in range(n) for j in range(n) for k in range(n)], dtype=float)
    types = (points.sum(axis=1).astype(int) % 2) if checkerboard else np.zeros(len(points), dtype=int)
    return System(path="lattice", type_map=["A", "B"], atom_types=types, periodic=True, coord=points[None],
                  box=np.asarray(cell, dtype=float)[None], energy=None, force=None, virial=None)


@pytest.mark.parametrize("n, cell", [
    (4, np.diag([4.0, 4.0, 4.0])),                        # cell wider than twice rcut
    (2, np.diag([2.0, 2.0, 2.0])),                        # rcut beyond half the cell: images count
    (4, [[4.0, 0, 0], [1.0, 4.0, 0], [0, -2.0, 4.0]]),   # the same lattice in a sheared cell
])
def test_counts_of_the_simple_cubic_shells(n, cell):
    one_type = neighbor_stat([lattice_system(n, cell, False)], 1.5, 2)
    assert one_type.max_nbor_size == [6 + 12, 0]          # shells at 1 (6 points) and sqrt(2) (12)
    assert one_type.min_nbor_dist == pytest.approx(1.0, abs=1e-12)
    two_types = neighbor_stat([lattice_system(n, cell, True)], 1.8, 2)
    # shells 1 (6, other type), sqrt(2) (12, same), sqrt(3) (8, other): 12 same + 14 other
    assert two_types.max_nbor_size == [14, 14]


def test_open_boundaries_count_only_the_atoms_given():
    coord = np.array([[0.0, 0, 0], [1.0, 0, 0], [0, 2.5, 0]])
    s = System(path="open", type_map=["A"], atom_types=np.zeros(3, dtype=int), periodic=False, coord=coord[None],
               box=None, energy=None, force=None, virial=None)
    stat = neighbor_stat([s], 2.0, 1)
    assert stat.max_nbor_size == [1] and stat.min_nbor_dist == pytest.approx(1.0)


def test_auto_sel_rule():
    # int(n * factor), then up to a multiple of 4 (DeePMD-kit's update_sel)
    assert auto_sel([38, 72]) == [44, 80]      # 41.8 -> 41 -> 44, 79.2 -> 79 -> 80
    assert auto_sel([38, 72], 1.0) == [40, 72]
    assert auto_sel([0, 4], 2.0) == [0, 8]
    assert auto_factor("auto") == 1.1 and auto_factor("auto:1.5") == 1.5 and auto_factor([4, 8]) is None
    for bad in ("automatic", "auto:x", "auto:1:2", "auto:-1"):
        with pytest.raises(ValueError, match="model.descriptor.sel"):
            auto_factor(bad)


@needs_water
def test_water_counts_match_the_reference_measurement(capsys):
    from sampan.cli import main
    assert main(["deepmd", "neighbor-stat", "-s", str(WATER), "-r", "6.0", "-t", "O", "H"]) == 0
    text = capsys.readouterr().out
    counts = [int(x) for x in re.search(r"max_nbor_size: \[(\d+), (\d+)\]", text).groups()]
    assert counts == [38, 72]
    assert re.search(r'sel "auto" \(factor 1.1\): \[44, 80\]', text)
    assert "systems: 4, frames: 400" in text
    # the O-H bond (about 0.96-1.0 Å) is the shortest distance in liquid water
    assert 0.8 < float(re.search(r"min_nbor_dist: ([0-9.]+)", text).group(1)) < 1.0


@needs_water
def test_counts_are_the_least_sel_the_model_neighbour_list_holds():
    from sampan.deepmd.model import DeepPot
    from sampan.deepmd.systems import read_systems
    system = read_systems(WATER / "data_0", ["O", "H"])[0]
    counts = neighbor_stat([system], 6.0, 2).max_nbor_size

    def overflows(sel):
        cfg = {"type_map": ["O", "H"], "rcut": 6.0, "rcut_smth": 0.5, "sel": sel, "neuron": [2, 4],
               "axis_neuron": 2, "type_one_side": True, "resnet_dt": False, "fitting_neuron": [4],
               "fitting_resnet_dt": True}
        model = DeepPot(cfg, 1)
        return any(model.extend(system.coord[f].ravel(), system.atom_types, system.box[f].ravel()).any_overflow()
                   for f in range(system.nframes))

    assert not overflows(counts)
    assert overflows([counts[0] - 1, counts[1]]) and overflows([counts[0], counts[1] - 1])


def test_blocks_of_centres_give_the_counts_of_one_block():
    from sampan.deepmd.neighbor_stat import frame_stat
    rng = np.random.default_rng(5)
    coord = rng.uniform(0, 7.0, size=(40, 3))
    types = rng.integers(0, 3, size=40)
    cell = np.array([[7.0, 0, 0], [0.5, 7.0, 0], [0, 0, 7.0]])
    whole = frame_stat(coord, types, cell, 3.0, 3)
    blocked = frame_stat(coord, types, cell, 3.0, 3, block_pairs=1)   # one centre at a time
    assert whole[0] == blocked[0]
    np.testing.assert_array_equal(whole[1], blocked[1])
    # and both equal a brute-force count over the 27 neighbouring cells (rcut < every cell height)
    shifts = np.array([(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)]) @ cell
    brute = np.zeros((40, 3), dtype=int)
    for i in range(40):
        for j in range(40):
            d = np.linalg.norm(coord[j] + shifts - coord[i], axis=1)
            brute[i, types[j]] += int(((d < 3.0) & (d > 0)).sum())
    np.testing.assert_array_equal(whole[1], brute)
