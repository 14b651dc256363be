"""dpdata interop: the deepmd/hdf5 and deepmd/npy formats both ways, and dpdata's driver="sampan".

The other tool is dpdata itself: its writers make the files sampan reads, and its readers check the
files sampan writes. Data: DeePMD-kit's water example (../shared/data/deepmd_water, its SOURCE.md)
and DeePMD-kit's reference frame for a model it wrote (../shared/data/deepmd_dpkit_models).
"""
import h5py
import numpy as np
import pytest

dpdata = pytest.importorskip("dpdata", reason="the optional extra 'dpdata' is not installed (pip install sampan[dpdata])")

from sampan.deepmd.data import System, load_system, load_systems, save_system  # noqa: E402
from sampan.deepmd.model import load_model  # noqa: E402
from shared_data import SHARED_DATA  # noqa: E402

WATER = SHARED_DATA / "deepmd_water" / "data_0"
DPKIT = SHARED_DATA / "deepmd_dpkit_models"
needs_water = pytest.mark.skipif(not WATER.exists(), reason=f"DeePMD water data not found at {WATER}")
needs_dpkit = pytest.mark.skipif(not (DPKIT / "reference.npz").exists(),
                                 reason=f"DeePMD-kit-written models not found at {DPKIT}")


def assert_same(ours: System, theirs, labels=("energy", "force")):
    """A sampan System and a dpdata (Labeled)System hold identical arrays."""
    assert ours.type_map == list(theirs["atom_names"])
    np.testing.assert_array_equal(ours.atom_types, theirs["atom_types"])
    np.testing.assert_array_equal(ours.coord, theirs["coords"])
    assert ours.periodic == (not theirs.nopbc)
    if ours.periodic:
        np.testing.assert_array_equal(ours.box, theirs["cells"])
    else:
        assert ours.box is None
    names = {"energy": "energies", "force": "forces", "virial": "virials"}
    for label in labels:
        np.testing.assert_array_equal(getattr(ours, label), theirs[names[label]])


def si_o_system(nframes=3, seed=0):
    """DeePMD-kit's 24-atom Si/O reference frame, jittered into a few frames, as a dpdata System."""
    ref = np.load(DPKIT / "reference.npz")
    rng = np.random.default_rng(seed)
    coord = ref["se_e2_a_two_side/coord"][None] + rng.normal(scale=0.05, size=(nframes, 24, 3))
    coord[0] = ref["se_e2_a_two_side/coord"]
    types = ref["se_e2_a_two_side/types"]
    return dpdata.System(data={"atom_names": ["Si", "O"], "atom_numbs": [int((types == 0).sum()), int((types == 1).sum())],
                               "atom_types": types, "coords": coord, "orig": np.zeros(3),
                               "cells": np.repeat(ref["se_e2_a_two_side/box"][None], nframes, axis=0)})


@needs_water
def test_sampan_reads_what_dpdata_writes_in_both_formats(tmp_path):
    theirs = dpdata.LabeledSystem(str(WATER), fmt="deepmd/npy")
    theirs.to("deepmd/hdf5", str(tmp_path / "water.hdf5"))
    theirs.to("deepmd/npy", str(tmp_path / "npy"), set_size=30)  # three sets: the concatenation is read
    from_hdf5 = load_system(tmp_path / "water.hdf5")
    from_npy = load_system(tmp_path / "npy")
    assert from_hdf5.nframes == 80 and from_hdf5.natoms == 192
    assert_same(from_hdf5, theirs)
    assert_same(from_npy, theirs)
    original = load_system(WATER)  # and what sampan reads from DeePMD-kit's own folder
    for field in ("coord", "box", "energy", "force"):
        np.testing.assert_array_equal(getattr(from_hdf5, field), getattr(original, field))
    assert from_hdf5.virial is None and from_hdf5.path == str(tmp_path / "water.hdf5")


@needs_water
@needs_dpkit
def test_a_multi_system_hdf5_file_reads_every_system_or_the_one_addressed(tmp_path):
    water = dpdata.LabeledSystem(str(WATER), fmt="deepmd/npy").sub_system(range(5))
    si_o = si_o_system().predict(DPKIT / "se_e2_a_two_side.yaml", driver="sampan")
    path = tmp_path / "multi.h5"
    multi = dpdata.MultiSystems(water, si_o)  # one type_map for both: [O, H, Si]
    multi.to("deepmd/hdf5", str(path))
    with h5py.File(path) as f:
        groups = sorted(f)
    assert len(groups) == 2
    systems = load_systems(path)
    assert [s.path for s in systems] == [f"{path}#/{g}" for g in groups]
    theirs = {s.get_natoms(): s for s in multi.systems.values()}
    for ours in systems:
        assert_same(ours, theirs[ours.natoms], labels=("energy", "force", "virial")[:2 + (ours.natoms == 24)])
    assert sorted(theirs) == [24, 192] and systems[0].type_map == ["O", "H", "Si"]
    with pytest.raises(ValueError, match="holds 2 systems"):
        load_system(path)
    one = load_system(f"{path}#{groups[0]}")
    np.testing.assert_array_equal(one.coord, systems[0].coord)
    with pytest.raises(OSError, match="has no group /nothing"):
        load_system(f"{path}#/nothing")


@needs_water
def test_dpdata_reads_what_sampan_writes_in_both_formats(tmp_path):
    ours = load_system(WATER)
    save_system(ours, tmp_path / "water.h5", fmt="deepmd/hdf5")
    save_system(ours, tmp_path / "npy", fmt="deepmd/npy", set_size=32)
    for fmt, path in (("deepmd/hdf5", tmp_path / "water.h5"), ("deepmd/npy", tmp_path / "npy")):
        theirs = dpdata.LabeledSystem(str(path), fmt=fmt)
        assert_same(ours, theirs)
        again = load_system(path)  # and sampan's own readers (the C++ one for the folder)
        for field in ("coord", "box", "energy", "force"):
            np.testing.assert_array_equal(getattr(again, field), getattr(ours, field))
    assert sorted(p.name for p in (tmp_path / "npy").iterdir()) == ["set.000", "set.001", "set.002", "type.raw",
                                                                   "type_map.raw"]
    # Overwriting replaces the folder and leaves no temporary behind.
    save_system(ours, tmp_path / "npy", fmt="deepmd/npy")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["npy", "water.h5"]
    assert sorted(p.name for p in (tmp_path / "npy").iterdir()) == ["set.000", "type.raw", "type_map.raw"]


@needs_dpkit
def test_open_boundaries_and_a_group_added_to_an_existing_file(tmp_path):
    labeled = si_o_system().predict(DPKIT / "se_e2_a_two_side.yaml", driver="sampan")
    labeled.data["nopbc"] = True
    path = tmp_path / "data.h5"
    labeled.to("deepmd/hdf5", f"{path}#/open")
    ours = load_system(f"{path}#/open")
    assert not ours.periodic and ours.box is None
    assert_same(ours, labeled, labels=("energy", "force", "virial"))
    # sampan adds a second group; the first stays, and dpdata reads both.
    save_system(ours, f"{path}#/copy/of/open", fmt="deepmd/hdf5")
    for group in ("open", "copy/of/open"):
        assert_same(load_system(f"{path}#/{group}"), dpdata.LabeledSystem(f"{path}#{group}", fmt="deepmd/hdf5"),
                    labels=("energy", "force", "virial"))
    save_system(ours, tmp_path / "npy", fmt="deepmd/npy")
    assert (tmp_path / "npy" / "nopbc").exists()
    assert dpdata.LabeledSystem(str(tmp_path / "npy"), fmt="deepmd/npy").nopbc


@needs_water
def test_type_map_round_trips_including_unused_types(tmp_path):
    ours = load_system(WATER)
    ours.type_map = ["O", "H", "C"]  # C: a type no atom has, kept as DeePMD-kit keeps it
    save_system(ours, tmp_path / "w.h5", fmt="deepmd/hdf5")
    theirs = dpdata.LabeledSystem(str(tmp_path / "w.h5"), fmt="deepmd/hdf5")
    assert theirs["atom_names"] == ["O", "H", "C"] and theirs["atom_numbs"] == [64, 128, 0]
    theirs.to("deepmd/hdf5", str(tmp_path / "back.h5"))
    assert load_system(tmp_path / "back.h5").type_map == ["O", "H", "C"]
    # The type order itself round-trips: dpdata reordered to [H, O] writes H as type 0.
    theirs.sort_atom_names(type_map=["H", "O", "C"])
    theirs.to("deepmd/npy", str(tmp_path / "sorted"))
    back = load_system(tmp_path / "sorted")
    assert back.type_map == ["H", "O", "C"]
    np.testing.assert_array_equal(np.array(back.type_map)[back.atom_types], np.array(ours.type_map)[ours.atom_types])


@needs_dpkit
def test_predict_with_the_sampan_driver_equals_direct_evaluation():
    model = load_model(DPKIT / "se_e2_a_two_side.yaml")
    system = si_o_system()
    labeled = system.predict(DPKIT / "se_e2_a_two_side.yaml", driver="sampan")
    assert isinstance(labeled, dpdata.LabeledSystem) and len(labeled) == 3
    for f in range(3):
        ext = model.extend(system["coords"][f].ravel().tolist(), system["atom_types"].tolist(),
                           system["cells"][f].ravel().tolist())
        out = model.evaluate(ext, True, False)
        assert abs(labeled["energies"][f] - out["energy"].item()) <= 1e-12
        np.testing.assert_allclose(labeled["forces"][f], out["force"].numpy().reshape(24, 3), rtol=0, atol=1e-12)
        np.testing.assert_allclose(labeled["virials"][f], out["virial"].numpy().reshape(3, 3), rtol=0, atol=1e-12)
    ref = np.load(DPKIT / "reference.npz")
    assert abs(labeled["energies"][0] - ref["se_e2_a_two_side/energy"][0]) <= 1e-12  # DeePMD-kit's own number
    # By name: the same atoms listed with the names in the other order give the same labels.
    reordered = system.copy()
    reordered.sort_atom_names(type_map=["O", "Si"])
    again = reordered.predict(model, driver="sampan")  # a DeepPot object as well as a path
    np.testing.assert_allclose(again["energies"], labeled["energies"], rtol=0, atol=1e-12)
    unknown = system.copy()
    unknown.data["atom_names"] = ["Ge", "O"]
    with pytest.raises(ValueError, match=r"\['Ge'\] have no model type"):
        unknown.predict(model, driver="sampan")
    renamed = unknown.predict(model, driver="sampan", type_map={"Ge": "Si", "O": "O"})
    np.testing.assert_allclose(renamed["energies"], labeled["energies"], rtol=0, atol=1e-12)


def test_bad_hdf5_input_names_the_dataset(tmp_path):
    path = tmp_path / "bad.h5"
    with h5py.File(path, "w") as f:
        f["type.raw"] = np.array([0, 1, 1])
        f["type_map.raw"] = np.array(["O", "H"], dtype="S")
        f["set.000/coord.npy"] = np.zeros((2, 8))
        f["set.000/box.npy"] = np.tile(np.eye(3).ravel() * 10, (2, 1))
    with pytest.raises(ValueError, match=r"bad.h5/set.000/coord.npy: shape \(2, 8\) has 8 values per frame; "
                                         r"expected 3 atoms x 3 = 9"):
        load_system(path)
    with h5py.File(path, "r+") as f:
        del f["set.000/coord.npy"], f["set.000/box.npy"]
        f["set.000/coord.npy"] = np.zeros((2, 9))
    with pytest.raises(OSError, match=r"missing .*set.000/box.npy \(required for a periodic system"):
        load_system(path)
    with h5py.File(path, "r+") as f:
        f["set.000/box.npy"] = np.zeros((2, 9))
    with pytest.raises(ValueError, match="frame 0: box is singular"):
        load_system(path)
    (tmp_path / "text.h5").write_text("not hdf5")
    with pytest.raises(OSError, match="text.h5 is not a readable HDF5 file"):
        load_system(tmp_path / "text.h5")
    good = System(path="mem", type_map=["O", "H"], atom_types=np.array([0, 1, 1]), periodic=False,
                  coord=np.zeros((2, 3, 3)), box=None, energy=np.zeros(2), force=None, virial=None)
    with pytest.raises(ValueError, match="fmt 'deepmd/raw'; expected one of"):
        save_system(good, tmp_path / "x", fmt="deepmd/raw")
    with pytest.raises(ValueError, match=r"energy has shape \(3,\), expected \(2,\)"):
        save_system(System(**dict(vars(good), energy=np.zeros(3))), tmp_path / "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.h5", "text.h5"]  # nothing written


@needs_water
def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    from sampan.deepmd import data
    ours = load_system(WATER)
    save_system(ours, tmp_path / "w.h5#/first", fmt="deepmd/hdf5")
    save_system(ours, tmp_path / "npy")
    before = (tmp_path / "w.h5").read_bytes()

    def fail(*args):
        raise RuntimeError("disk full")

    monkeypatch.setattr(data, "_write_hdf5_group", fail)
    monkeypatch.setattr(data, "_write_npy_folder", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        save_system(ours, tmp_path / "w.h5#/second", fmt="deepmd/hdf5")
    with pytest.raises(RuntimeError, match="disk full"):
        save_system(ours, tmp_path / "npy")
    assert (tmp_path / "w.h5").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["npy", "w.h5"]
    np.testing.assert_array_equal(load_system(tmp_path / "npy").coord, ours.coord)
