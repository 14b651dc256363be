"""An OGB dataset folder (mapping/mol.csv.gz, split/scaffold/*.csv.gz, as OGB writes them) built
here from a few dozen hiv.csv.gz molecules: the dataset holds those molecules with OGB's task
column (every column but smiles and mol_id), and `sampan helix finetune --dataset <folder>` trains and tests on
exactly the molecules the split files name."""
import csv
import gzip
import json
import os
import warnings

import numpy as np
import pytest

from shared_data import SHARED_DATA
from sampan import cli, helix
from sampan.helix import ogb_folder

pytestmark = pytest.mark.skipif(not helix.native_available(),
                                reason="helix's C++ part is not built (RDKit's C++ libraries not found)")
HIV = os.path.join(str(SHARED_DATA), "moleculenet", "hiv.csv.gz")
needs_hiv = pytest.mark.skipif(not os.path.exists(HIV), reason=f"MoleculeNet HIV file not found ({HIV})")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SAMPAN_HELIX_CACHE", str(tmp_path / "cache"))


def _hiv_sample(count):
    """`count` molecules of hiv.csv.gz, positives included (every 30th row, plus the first actives)."""
    with gzip.open(HIV, "rt", newline="") as f:
        rows = list(csv.reader(f))[1:]
    actives = [r for r in rows if r[1] == "1"][:count // 4]
    others = [r for r in rows[::30] if r[1] == "0"][:count - len(actives)]
    sample = actives + others
    np.random.default_rng(0).shuffle(sample)
    return sample


def _write_gz_lines(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with gzip.open(path, "wt") as f:
        f.write("".join(f"{line}\n" for line in lines))


def _ogb_folder(tmp_path, count=48):
    """OGB's layout: mol.csv.gz with columns HIV_active, smiles, mol_id; split indices one per line."""
    root = tmp_path / "dataset" / "ogbg_molhiv"
    sample = _hiv_sample(count)
    lines = ["HIV_active,smiles,mol_id"] + [f"{y},{s},{i}" for i, (s, y) in enumerate(sample)]
    _write_gz_lines(str(root / "mapping" / "mol.csv.gz"), lines)
    order = np.random.default_rng(1).permutation(count)  # not a scaffold split: any split is used as written
    parts = {"train": order[: count * 6 // 10], "valid": order[count * 6 // 10: count * 8 // 10],
             "test": order[count * 8 // 10:]}
    for name, idx in parts.items():
        _write_gz_lines(str(root / "split" / "scaffold" / f"{name}.csv.gz"), [str(i) for i in idx])
    return str(root), sample, parts


@needs_hiv
def test_folder_reads_molecules_and_official_split(tmp_path):
    root, sample, parts = _ogb_folder(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # OGB's layout names the tasks: nothing to report
        dataset, split = helix.load_ogb_folder(root)
    assert dataset.label_names == ["HIV_active"]
    assert dataset.smiles == [s for s, _ in sample]
    np.testing.assert_array_equal(dataset.labels[:, 0], [float(y) for _, y in sample])
    for got, name in zip(split, ogb_folder.SPLIT_PARTS):
        np.testing.assert_array_equal(got, parts[name])  # every molecule parses: positions = file rows


@needs_hiv
def test_finetune_uses_the_split_files_as_written(tmp_path, capsys):
    root, sample, parts = _ogb_folder(tmp_path)
    out = tmp_path / "m.json"
    assert cli.main(["helix", "finetune", "--dataset", root, "--epochs", "1", "--seeds", "0", "--layers", "1",
                     "--emb-dim", "8", "--no-progress", "--threads", "1", "--featurizer", "ogb",
                     "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    for name in ogb_folder.SPLIT_PARTS:
        assert record["split_indices"][name] == parts[name].tolist()
    assert record["split_sizes"] == [len(parts[n]) for n in ogb_folder.SPLIT_PARTS]
    assert record["split"].startswith("scaffold (official")
    assert record["task_names"] == ["HIV_active"]
    assert "warning" not in capsys.readouterr().err


@needs_hiv
def test_bad_split_files_are_named(tmp_path):
    root, sample, parts = _ogb_folder(tmp_path, count=40)
    test_file = os.path.join(root, "split", "scaffold", "test.csv.gz")
    _write_gz_lines(test_file, ["3", "x7"])
    with pytest.raises(ValueError, match=r"test\.csv\.gz: line 2: expected a row index .* found 'x7'"):
        ogb_folder.read_split(root)
    _write_gz_lines(test_file, ["3", "40"])
    with pytest.raises(ValueError, match=r"line 2: row index 40 is outside 0\.\.39"):
        ogb_folder.read_split(root)
    _write_gz_lines(test_file, [str(parts["train"][0])])
    with pytest.raises(ValueError, match="appears more than once"):
        ogb_folder.read_split(root)
    with pytest.raises(ValueError, match=r"no split/random/train\.csv\.gz; the splits there: scaffold"):
        ogb_folder.read_split(root, "random")
    os.remove(os.path.join(root, "mapping", "mol.csv.gz"))
    with pytest.raises(ValueError, match="not an OGB dataset folder"):
        helix.load_ogb_folder(root)
    assert cli.main(["helix", "finetune", "--dataset", root, "--epochs", "1"]) == 2
