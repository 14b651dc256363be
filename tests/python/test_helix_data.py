"""helix featurization, readers, HDF5 cache, datasets and batching.

Expected values come from the references, not from the code under test: OGB's vocabularies and
its golden example (ogb/utils/features.py), the row and label counts stated in
shared/data/moleculenet/SOURCE.md, and per-molecule featurization compared with the batched one.
"""
from shared_data import SHARED_DATA
import gzip
import os
import warnings

import numpy as np
import pytest

import sampan
from sampan import helix

pytestmark = pytest.mark.skipif(not helix.native_available(),
                                reason="helix's C++ part is not built (RDKit's C++ libraries not found)")

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = str(SHARED_DATA)
MOLECULENET = os.path.join(DATA, "moleculenet")
NCI_SMI = "/usr/share/RDKit/Data/NCI/first_5K.smi"
NCI_SDF = "/usr/share/RDKit/Data/NCI/first_200.props.sdf"

needs_moleculenet = pytest.mark.skipif(not os.path.isdir(MOLECULENET),
                                       reason=f"MoleculeNet data folder not found ({MOLECULENET})")
needs_rdkit_data = pytest.mark.skipif(not os.path.exists(NCI_SMI),
                                      reason=f"Debian rdkit-data not installed ({NCI_SMI} missing)")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SAMPAN_HELIX_CACHE", str(tmp_path / "cache"))


def write(path, text):
    path.write_text(text)
    return str(path)


# ---------------------------------------------------------------------------------------------
# featurization
# ---------------------------------------------------------------------------------------------

def test_ogb_golden_example_and_layout():
    # ogb/utils/features.py: Cl[C@H](/C=C/C)Br, atom 1 -> [5, 2, 4, 5, 1, 0, 2, 0, 0]; bond 2
    # (the E double bond) -> [1, 2, 0]; edges 2k, 2k+1 are bond k in both directions.
    g = helix.smiles2graph("Cl[C@H](/C=C/C)Br")
    assert g["num_nodes"] == 6
    assert g["node_feat"].dtype == np.int64 and g["node_feat"].shape == (6, 9)
    assert g["edge_feat"].shape == (10, 3) and g["edge_index"].shape == (2, 10)
    assert g["node_feat"][1].tolist() == [5, 2, 4, 5, 1, 0, 2, 0, 0]
    assert g["edge_feat"][4].tolist() == [1, 2, 0] and g["edge_feat"][5].tolist() == [1, 2, 0]
    assert g["edge_index"][:, 4].tolist() == g["edge_index"][::-1, 5].tolist()
    # Every feature is within its vocabulary.
    atom_sizes, bond_sizes = helix.feature_sizes("ogb")
    assert atom_sizes == (119, 5, 12, 12, 10, 6, 6, 2, 2) and bond_sizes == (5, 6, 2)


def test_single_atom_molecule_has_no_edges():
    g = helix.smiles2graph("[Na+]")
    assert g["edge_index"].shape == (2, 0) and g["edge_feat"].shape == (0, 3)
    assert g["node_feat"][0].tolist() == [10, 0, 0, 6, 0, 0, 5, 0, 0]  # Na: z=11; charge +1 -> 6; S hybrid -> misc


def test_pretrain_gnns_featurizer():
    g = helix.smiles2graph("N[C@@H](C)C(=O)O", "pretrain_gnns")
    assert g["node_feat"].tolist() == [[6, 0], [5, 1], [5, 0], [5, 0], [7, 0], [7, 0]]
    assert g["edge_feat"].shape == (10, 2)
    assert helix.feature_sizes("pretrain_gnns") == ((119, 4), (5, 4))
    with pytest.raises(ValueError, match="unknown featurizer 'morgan'"):
        helix.featurize(["CC"], featurizer="morgan")


def test_invalid_smiles_are_skipped_with_a_warning():
    with pytest.warns(UserWarning, match=r"2 SMILES skipped.*'C1CC'"):
        ds = helix.featurize(["CCO", "C1CC", "c1ccccc1", "C(C)(C)(C)(C)C"], labels=[1, 2, 3, 4])
    assert len(ds) == 2
    assert ds.rows.tolist() == [0, 2]
    assert ds.y[:, 0].tolist() == [1, 3]
    assert [m["index"] for m in ds.invalid] == [1, 3]
    assert "valence" in ds.invalid[1]["reason"]


@needs_moleculenet
@pytest.mark.parametrize("name,rows,tasks", [
    ("bace.csv", 1513, 1), ("bbbp.csv", 2039, 1), ("clintox.csv", 1478, 2), ("tox21.csv", 7831, 12),
    ("toxcast.csv.gz", 8576, 617), ("sider.csv", 1427, 27), ("hiv.csv.gz", 41127, 1),
    ("delaney.csv", 1128, 1), ("freesolv.csv", 642, 1), ("lipo.csv", 4200, 1),
    pytest.param("muv.csv.gz", 93087, 17, marks=pytest.mark.skipif(
        not os.environ.get("SAMPAN_SLOW_TESTS"),
        reason="MUV's 93,087 molecules take ~25 s on the 2-core box; set SAMPAN_SLOW_TESTS=1")),
])
def test_every_moleculenet_molecule_featurizes(name, rows, tasks):
    # SOURCE.md: every row of the 11 files parses with RDKit 2022.09.3 (0 failures).
    ds = helix.read_dataset(os.path.join(MOLECULENET, name))
    assert len(ds) == rows and ds.invalid == []
    assert ds.num_tasks == tasks
    sizes = np.array(ds.atom_feature_sizes)
    assert (ds.atom_features >= 0).all() and (ds.atom_features < sizes).all()
    assert (ds.bond_features >= 0).all() and (ds.bond_features < np.array(ds.bond_feature_sizes)).all()
    if name == "hiv.csv.gz":
        # OGB ogbg-molhiv statistics: 25.5 atoms and 27.5 bonds per molecule on average.
        assert ds.num_nodes / len(ds) == pytest.approx(25.5, abs=0.05)
        assert ds.num_edges / 2 / len(ds) == pytest.approx(27.5, abs=0.05)


# ---------------------------------------------------------------------------------------------
# readers
# ---------------------------------------------------------------------------------------------

@needs_moleculenet
def test_csv_labels_match_the_counts_of_source_md():
    tox21 = helix.read_dataset(os.path.join(MOLECULENET, "tox21.csv"))
    # SOURCE.md: 5862 positive, 72084 negative, 16026 empty cells.
    assert int(tox21.y_mask.sum()) == 5862 + 72084
    assert int((~tox21.y_mask).sum()) == 16026
    assert int(tox21.y[tox21.y_mask].sum()) == 5862
    assert tox21.label_names[0] == "NR-AR" and tox21.label_names[-1] == "SR-p53"
    # BACE's SMILES column is named 'mol' (auto-detected); 691 positive / 822 negative.
    bace = helix.read_dataset(os.path.join(MOLECULENET, "bace.csv"))
    assert bace.label_names == ["Class"] and int(bace.y.sum()) == 691
    # SIDER: 27 column names, some quoted because they contain commas.
    sider = helix.read_dataset(os.path.join(MOLECULENET, "sider.csv"))
    assert "Injury, poisoning and procedural complications" in sider.label_names
    assert sider.num_tasks == 27 and bool(sider.y_mask.all())


def test_csv_options_and_quoting(tmp_path):
    path = write(tmp_path / "m.csv",
                 'name,"weird, column",smiles,y\r\n'
                 'ethanol,1.5,CCO,0\r\n'
                 '"benzene, ring","",c1ccccc1,1\r\n'
                 '\r\n'
                 'water,nan,O,\r\n')
    ds = helix.read_dataset(path, label_columns=["y", "weird, column"])
    assert ds.smiles == ["CCO", "c1ccccc1", "O"]
    assert ds.rows.tolist() == [2, 3, 5]  # file lines; the blank line 4 is skipped
    assert ds.label_names == ["y", "weird, column"]
    np.testing.assert_array_equal(ds.labels, [[0, 1.5], [1, np.nan], [np.nan, np.nan]])
    # Labels inferred: 'name' is an identifier (reported once, not per row), the numeric columns
    # are labels, and every row is kept.
    with pytest.warns(UserWarning, match=r"ignored columns: name \(identifier\)") as caught:
        inferred = helix.read_dataset(path, smiles_column="smiles")
    assert len(caught) == 1
    assert inferred.label_names == ["weird, column", "y"]
    assert len(inferred) == 3 and inferred.invalid == []
    # Naming a text column as a label makes every row bad, each reported.
    with pytest.warns(UserWarning, match=r"(?s)3 row\(s\) left out.*row 2, column 'name'"):
        everything = helix.read_dataset(path, tasks=["name", "y"])
    assert len(everything) == 0 and [m["row"] for m in everything.invalid] == [2, 3, 5]


def test_non_numeric_label_is_reported_and_the_run_goes_on(tmp_path):
    lines = ["smiles,a,b"] + [f"{'C' * (i % 5 + 1)},{i % 2},0.5" for i in range(1000)]
    lines[301] = "CCN,active,1"  # row 302 of the file
    path = write(tmp_path / "bad.csv", "\n".join(lines) + "\n")
    with pytest.warns(UserWarning, match=r"bad\.csv: row 302, column 'a': expected a number or an empty cell, got 'active'"):
        ds = helix.load_dataset(path)
    assert len(ds) == 999
    assert 302 not in ds.rows.tolist()
    with pytest.raises(ValueError, match=r"row 302, column 'a'"):
        helix.read_dataset(path, on_bad_row="raise")


def test_invalid_smiles_rows_are_named(tmp_path):
    path = write(tmp_path / "inv.csv", "smiles,y\nCCO,1\nC1CC,0\nc1ccccc1,1\n")
    with pytest.warns(UserWarning, match=r"inv\.csv: row 3: SMILES 'C1CC' skipped"):
        ds = helix.read_dataset(path)
    assert ds.rows.tolist() == [2, 4]
    assert ds.invalid[0]["row"] == 3


def test_file_level_errors_name_the_file(tmp_path):
    with pytest.raises(ValueError, match=r"empty\.csv: the file is empty"):
        helix.read_dataset(write(tmp_path / "empty.csv", ""))
    with pytest.raises(ValueError, match=r"header\.csv: the file has a header but no molecule rows"):
        helix.read_dataset(write(tmp_path / "header.csv", "smiles,y\n"))
    with pytest.raises(ValueError, match=r"nosmiles\.csv: no SMILES column found by name among the columns 'id', 'y'"):
        helix.read_dataset(write(tmp_path / "nosmiles.csv", "id,y\n1,2\n"))
    with pytest.raises(ValueError, match=r"no column 'structure'.*'smiles', 'y'"):
        helix.read_dataset(write(tmp_path / "m.csv", "smiles,y\nC,1\n"), smiles_column="structure")
    with pytest.raises(ValueError, match=r"no label column 'z'"):
        helix.read_dataset(str(tmp_path / "m.csv"), label_columns=["z"])
    with pytest.raises(ValueError, match=r"quote\.csv: row 2: a quoted field is never closed"):
        helix.read_dataset(write(tmp_path / "quote.csv", 'smiles,y\n"CC,1\n'))
    with pytest.raises(FileNotFoundError, match="nothere.csv"):
        helix.read_dataset(str(tmp_path / "nothere.csv"))
    with pytest.raises(ValueError, match="cannot tell the file type"):
        helix.read_dataset(write(tmp_path / "m.xyz", "C 0 0 0\n"))


def test_gzip_csv_reads_like_the_plain_file(tmp_path):
    text = "smiles,y\nCCO,1\nCCN,0\n"
    plain = write(tmp_path / "p.csv", text)
    packed = tmp_path / "p2.csv.gz"
    with gzip.open(packed, "wt") as f:
        f.write(text)
    a, b = helix.read_dataset(plain), helix.read_dataset(str(packed))
    np.testing.assert_array_equal(a.atom_features, b.atom_features)
    np.testing.assert_array_equal(a.labels, b.labels)


@needs_rdkit_data
def test_smiles_list_with_real_invalid_molecules():
    # NCI first_5K.smi (Debian rdkit-data): 4999 lines, 6 of them rejected by RDKit's sanitization
    # (hypervalent Sb, Al, N ...): reported with their lines, the rest kept.
    with pytest.warns(UserWarning, match=r"6 row\(s\) left out"):
        ds = helix.read_dataset(NCI_SMI)
    assert len(ds) == 4999 - 6
    assert 1826 in [m["row"] for m in ds.invalid]
    assert ds.num_tasks == 0


@needs_rdkit_data
def test_sdf_reader_with_properties():
    ds = helix.read_dataset(NCI_SDF, label_columns=["AMW", "NUM_HACCEPTORS", "P1"])
    assert len(ds) == 200 and ds.invalid == []
    # Record 1 (the first mol block of the file): AMW 122.12344, 2 H acceptors, no P1 property.
    assert ds.labels[0, 0] == pytest.approx(122.12344)
    assert ds.labels[0, 1] == 2
    assert int(ds.y_mask[:, 2].sum()) == 30  # P1 is present in 30 records
    # The same molecule from its SMILES featurizes identically (mol block vs SMILES route).
    same = helix.featurize([ds.smiles[0]])
    np.testing.assert_array_equal(ds.batch([0]).x, same.atom_features)


def test_sdf_text_property_is_a_row_error(tmp_path):
    record = ("\n  test\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"
              "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
              "M  END\n>  <y>\n{}\n\n$$$$\n")
    garbage = "\n  test\n\n  1  0  this is not a counts line\nM  END\n$$$$\n"
    path = write(tmp_path / "m.sdf", record.format("1.5") + record.format("high") + garbage + record.format("2") + "\n\n")
    with pytest.warns(UserWarning, match=r"record 2, property 'y': expected a number"):
        ds = helix.read_dataset(path, label_columns=["y"])
    assert ds.labels[:, 0].tolist() == [1.5, 2.0]
    assert ds.rows.tolist() == [1, 4]
    assert [m["row"] for m in ds.invalid] == [2, 3]


# ---------------------------------------------------------------------------------------------
# cache
# ---------------------------------------------------------------------------------------------

def test_cache_is_reused_keyed_by_content_and_rebuilt_when_corrupt(tmp_path, monkeypatch):
    path = write(tmp_path / "c.csv", "smiles,y\nCCO,1\nc1ccccc1,0\n")
    first = helix.load_dataset(path)
    cache_file, _, _ = helix.data.cache_path_for(path)
    assert os.path.exists(cache_file)

    calls = []
    real = helix.data.read_dataset
    monkeypatch.setattr(helix.data, "read_dataset", lambda *a, **k: calls.append(a) or real(*a, **k))
    again = helix.load_dataset(path)
    assert calls == []  # served from the cache
    np.testing.assert_array_equal(first.atom_features, again.atom_features)
    assert again.smiles == first.smiles and again.rows.tolist() == first.rows.tolist()

    # Another featurizer: another cache file, read from the source.
    helix.load_dataset(path, featurizer="pretrain_gnns")
    assert len(calls) == 1

    # Changed content -> a new key -> re-read.
    write(tmp_path / "c.csv", "smiles,y\nCCO,1\nc1ccccc1,0\nCCN,1\n")
    assert len(helix.load_dataset(path)) == 3 and len(calls) == 2

    # A corrupt cache file is reported and rebuilt (atomically replaced).
    cache_file, _, _ = helix.data.cache_path_for(path)
    with open(cache_file, "wb") as f:
        f.write(b"not an hdf5 file")
    with pytest.warns(UserWarning, match="cannot be used.*rebuilding"):
        rebuilt = helix.load_dataset(path)
    assert len(rebuilt) == 3 and len(calls) == 3
    assert len(helix.load_dataset(path)) == 3 and len(calls) == 3


def test_dataset_save_load_round_trip(tmp_path):
    ds = helix.featurize(["CCO", "c1ccccc1", "[Na+].[Cl-]"], labels=[[1, np.nan], [0, 1], [np.nan, 0]],
                         label_names=["a", "b"])
    out = str(tmp_path / "d.h5")
    ds.save(out)
    back = helix.MoleculeDataset.load(out)
    for name in ("atom_features", "bond_features", "edge_index", "node_offsets", "edge_offsets", "y", "y_mask", "rows"):
        np.testing.assert_array_equal(getattr(back, name), getattr(ds, name))
    assert back.smiles == ds.smiles and back.label_names == ["a", "b"]
    sampan.save({"format": "something else"}, str(tmp_path / "other.h5"))
    with pytest.raises(ValueError, match="not a sampan helix dataset"):
        helix.MoleculeDataset.load(str(tmp_path / "other.h5"))


# ---------------------------------------------------------------------------------------------
# batching and loading
# ---------------------------------------------------------------------------------------------

SMILES = ["CCO", "c1ccccc1", "[Na+]", "N[C@@H](C)C(=O)O", "F/C=C/F", "C1CC1C(=O)[O-]", "O"]


def test_batch_is_the_disjoint_union_of_the_molecules():
    ds = helix.featurize(SMILES, labels=np.arange(len(SMILES) * 2, dtype=float).reshape(-1, 2))
    pick = [5, 0, 2, 3]
    b = ds.batch(pick)
    assert b.num_graphs == 4 and len(b.smiles) == 4
    offset = 0
    edge_offset = 0
    for g, i in enumerate(pick):
        single = helix.smiles2graph(SMILES[i])
        n, e = single["num_nodes"], single["edge_index"].shape[1]
        np.testing.assert_array_equal(b.x[offset:offset + n], single["node_feat"])
        np.testing.assert_array_equal(b.edge_attr[edge_offset:edge_offset + e], single["edge_feat"])
        np.testing.assert_array_equal(b.edge_index[:, edge_offset:edge_offset + e], single["edge_index"] + offset)
        assert (b.batch[offset:offset + n] == g).all()
        assert b.counts[g] == n and b.node_offsets[g] == offset
        offset += n
        edge_offset += e
    assert offset == b.num_nodes and edge_offset == b.num_edges
    assert b.edge_index.dtype == np.int64 and b.batch.dtype == np.int64
    np.testing.assert_array_equal(b.y, ds.y[pick])
    assert b.y_mask.dtype == np.bool_


def test_missing_labels_are_masked_not_nan():
    ds = helix.featurize(["C", "CC"], labels=[[1.0, np.nan], [np.nan, 0.0]])
    b = ds.batch([0, 1])
    assert not np.isnan(b.y).any()
    assert b.y_mask.tolist() == [[True, False], [False, True]]


def test_subset_indexing():
    ds = helix.featurize(SMILES, labels=np.arange(len(SMILES), dtype=float))
    sub = ds[np.array([4, 1])]
    assert isinstance(sub, helix.MoleculeDataset) and sub.smiles == [SMILES[4], SMILES[1]]
    np.testing.assert_array_equal(sub.batch([0, 1]).x, ds.batch([4, 1]).x)
    np.testing.assert_array_equal(sub.batch([0, 1]).edge_index, ds.batch([4, 1]).edge_index)
    assert ds[1:3].smiles == SMILES[1:3]
    mask = np.zeros(len(SMILES), bool)
    mask[[0, 6]] = True
    assert ds[mask].smiles == ["CCO", "O"]
    assert ds[-1].smiles == ["O"]
    with pytest.raises(IndexError, match="index 7 is out of range for 7 molecules"):
        ds[np.array([0, 7])]


def test_dataloader_epochs_cover_every_molecule_once_and_are_seeded():
    ds = helix.featurize(SMILES * 10, labels=np.arange(70, dtype=float))
    loader = helix.DataLoader(ds, batch_size=16, shuffle=True, seed=3)
    assert len(loader) == 5
    epoch1 = [b.indices for b in loader]
    epoch2 = [b.indices for b in loader]
    seen = np.concatenate(epoch1)
    assert sorted(seen.tolist()) == list(range(70))
    assert not np.array_equal(seen, np.concatenate(epoch2))  # a new order each epoch
    again = helix.DataLoader(ds, batch_size=16, shuffle=True, seed=3)
    assert all(np.array_equal(a, b.indices) for a, b in zip(epoch1, again))
    for b in loader:
        np.testing.assert_array_equal(b.y[:, 0], b.indices)
    ordered = [b.indices for b in helix.DataLoader(ds, batch_size=32)]
    assert np.concatenate(ordered).tolist() == list(range(70))
    assert [len(b) for b in helix.DataLoader(ds, batch_size=32, drop_last=True)] == [32, 32]
