"""sampan.deepmd.load_system against NumPy reading the same files (an independent reader)."""
from shared_data import SHARED_DATA
import os
from pathlib import Path

import numpy as np
import pytest

import sampan as sp

DATA = SHARED_DATA / "deepmd_water"
needs_water = pytest.mark.skipif(not DATA.exists(), reason=f"DeePMD water data not found at {DATA}")


@needs_water
def test_water_system_matches_numpy():
    system = sp.deepmd.load_system(DATA / "data_1")
    assert system.type_map == ["O", "H"]
    assert system.natoms == 192 and system.nframes == 160
    assert (system.atom_types == 0).sum() == 64
    sets = sorted((DATA / "data_1").glob("set.*"))
    coord = np.concatenate([np.load(s / "coord.npy") for s in sets]).reshape(-1, 192, 3)
    force = np.concatenate([np.load(s / "force.npy") for s in sets]).reshape(-1, 192, 3)
    energy = np.concatenate([np.load(s / "energy.npy") for s in sets])
    box = np.concatenate([np.load(s / "box.npy") for s in sets]).reshape(-1, 3, 3)
    np.testing.assert_array_equal(system.coord, coord.astype(np.float64))
    np.testing.assert_array_equal(system.force, force.astype(np.float64))
    np.testing.assert_array_equal(system.energy, energy.astype(np.float64))
    np.testing.assert_array_equal(system.box, box.astype(np.float64))
    assert system.virial is None and system.periodic


def test_raw_system_and_errors(tmp_path):
    (tmp_path / "type.raw").write_text("0\n1\n1\n")
    (tmp_path / "nopbc").write_text("")
    (tmp_path / "coord.raw").write_text("0 0 0 1 0 0 0 1 0\n0 0 0 1.5 0 0 0 1 0\n")
    (tmp_path / "energy.raw").write_text("-3\n-2.5\n")
    system = sp.deepmd.load_system(tmp_path)
    assert not system.periodic and system.box is None
    assert system.coord.shape == (2, 3, 3) and system.coord[1, 1, 0] == 1.5
    assert list(system.energy) == [-3.0, -2.5]
    (tmp_path / "force.raw").write_text("0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0\n")
    with pytest.raises(ValueError, match=r"force.raw: line 2 \(frame 1\): expected 3 atoms x 3 = 9 values, got 8"):
        sp.deepmd.load_system(tmp_path)
    with pytest.raises(OSError, match="not a directory"):
        sp.deepmd.load_system(tmp_path / "missing")
