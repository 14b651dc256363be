"""Label columns inferred from a molecule CSV: every MoleculeNet file of shared/data keeps all its
task columns (compared with SOURCE.md's table and a count with Python's csv module), DeepChem's
layout (num, name, p_np, smiles) loads with p_np as the only task, identifier columns are reported
once, and tasks= overrides the rule."""
import csv
import gzip
import os
import warnings

import numpy as np
import pytest

from shared_data import SHARED_DATA
from sampan import cli, helix
from sampan.helix import csv_columns

pytestmark = pytest.mark.skipif(not helix.native_available(),
                                reason="helix's C++ part is not built (RDKit's C++ libraries not found)")

MOLECULENET = os.path.join(str(SHARED_DATA), "moleculenet")
needs_moleculenet = pytest.mark.skipif(not os.path.isdir(MOLECULENET),
                                       reason=f"MoleculeNet data folder not found ({MOLECULENET})")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SAMPAN_HELIX_CACHE", str(tmp_path / "cache"))


def _rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        return list(csv.reader(f))


# SOURCE.md's table: the SMILES column of each file (every other column is a task).
SMILES_COLUMN = {"bace.csv": "mol"}
FILES = ["bace.csv", "bbbp.csv", "clintox.csv", "tox21.csv", "toxcast.csv.gz", "sider.csv", "hiv.csv.gz",
         "delaney.csv", "freesolv.csv", "lipo.csv",
         pytest.param("muv.csv.gz", marks=pytest.mark.skipif(
             not os.environ.get("SAMPAN_SLOW_TESTS"),
             reason="MUV's 93,087 molecules take ~25 s on the 2-core box; set SAMPAN_SLOW_TESTS=1"))]


@needs_moleculenet
@pytest.mark.parametrize("name", FILES)
def test_moleculenet_files_load_with_every_task_column(name):
    path = os.path.join(MOLECULENET, name)
    rows = _rows(path)
    smiles = SMILES_COLUMN.get(name, "smiles")
    want_tasks = [c for c in rows[0] if c != smiles]
    want_count = sum(1 for r in rows[1:] if r)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no column is ignored, no row is left out
        ds = helix.read_dataset(path)
    assert ds.label_names == want_tasks
    assert len(ds) == want_count
    # The labels are the file's cells (empty = missing).
    column = rows[0].index(want_tasks[-1])
    cells = [r[column] for r in rows[1:] if r]
    expect = np.array([float(c) if c.strip() else np.nan for c in cells], dtype=np.float32)  # y is float32
    np.testing.assert_array_equal(ds.labels[:, -1], expect)


def _deepchem_bbbp(tmp_path):
    """bbbp.csv rewritten in DeepChem's layout: num (1..n), name, p_np, smiles."""
    rows = _rows(os.path.join(MOLECULENET, "bbbp.csv"))
    path = tmp_path / "BBBP.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["num", "name", "p_np", "smiles"])
        for i, (smiles, label) in enumerate(rows[1:], 1):
            writer.writerow([i, f"compound-{i}, batch {i % 7}", label, smiles])
    return str(path), rows[1:]


@needs_moleculenet
def test_deepchem_bbbp_layout_loads_every_molecule_with_label_p_np(tmp_path):
    # SOURCE.md: RDKit parses every SMILES of bbbp.csv (chemprop dropped the 11 it could not).
    path, rows = _deepchem_bbbp(tmp_path)
    parsed = [(s, float(y)) for s, y in rows]
    assert len(parsed) == 2039
    with pytest.warns(UserWarning) as caught:
        ds = helix.load_dataset(path)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1  # reported once, not per row
    assert "ignored columns: num (identifier), name (identifier)" in messages[0]
    assert ds.label_names == ["p_np"]
    assert len(ds) == len(parsed) and ds.smiles == [s for s, _ in parsed]
    np.testing.assert_array_equal(ds.labels[:, 0], [y for _, y in parsed])


@needs_moleculenet
def test_finetune_cli_on_deepchem_bbbp_prints_the_warning_without_source(tmp_path, capsys):
    path, rows = _deepchem_bbbp(tmp_path)
    out = tmp_path / "m.json"
    assert cli.main(["helix", "finetune", "--dataset", path, "--max-molecules", "60", "--epochs", "1",
                     "--seeds", "0", "--layers", "1", "--emb-dim", "8", "--no-progress", "--threads", "1",
                     "--out", str(out)]) == 0
    captured = capsys.readouterr()
    warning_lines = [line for line in captured.err.splitlines() if line.strip()]
    assert warning_lines == [f"sampan helix finetune: warning: {path}: ignored columns: num (identifier), "
                             f"name (identifier); they are not labels. Name the labels with tasks=[...] "
                             f"(--tasks A,B) to choose them yourself"]
    assert f"{path}: 60 molecules, 1 tasks" in captured.out


def test_python_warning_points_at_the_callers_line(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("id,smiles,y\n7,CCO,1\n9,CCN,0\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        helix.load_dataset(str(path))
    assert len(caught) == 1 and caught[0].filename == os.path.abspath(__file__)


def test_row_counter_and_text_columns_are_not_labels(tmp_path):
    lines = ["k,smiles,note,score,active"]
    for i in range(12):
        lines.append(f"{i},{'C' * (i + 1)},{'long' if i % 2 else 'short'},{0.5 * i},{i % 2}")
    path = tmp_path / "m.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.warns(UserWarning, match=r"ignored columns: k \(row numbers\), note \(text\)"):
        ds = helix.read_dataset(str(path))
    assert ds.label_names == ["score", "active"]
    np.testing.assert_array_equal(ds.labels, [[0.5 * i, i % 2] for i in range(12)])
    # Fewer rows than COUNTER_MIN_ROWS: a short 0, 1, 2 column is a label.
    short = tmp_path / "short.csv"
    short.write_text("smiles,y\nC,0\nCC,1\nCCC,2\n")
    assert helix.read_dataset(str(short)).label_names == ["y"]
    assert csv_columns.COUNTER_MIN_ROWS > 3


def test_identifier_names_are_matched_loosely():
    for name in ("num", "Compound ID", "mol_id", "MOL-ID", " Name ", "index"):
        assert csv_columns.is_identifier_name(name), name
    for name in ("p_np", "HIV_active", "logp", "number_of_rings"):
        assert not csv_columns.is_identifier_name(name), name


def test_tasks_override_the_rule(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("num,smiles,a,b\n1,CCO,1,0.5\n2,CCN,0,1.5\n")
    ds = helix.read_dataset(str(path), tasks=["b", "num"])
    assert ds.label_names == ["b", "num"]
    np.testing.assert_array_equal(ds.labels, [[0.5, 1], [1.5, 2]])
    with pytest.raises(ValueError, match="disagree"):
        helix.read_dataset(str(path), tasks=["a"], label_columns=["b"])
    with pytest.raises(TypeError, match="list of column names"):
        helix.read_dataset(str(path), tasks="a")


def test_a_rare_text_cell_in_a_label_column_drops_only_its_row(tmp_path):
    lines = ["smiles,y"] + [f"{'C' * (i % 4 + 1)},{i % 2}" for i in range(200)]
    lines[50] = "CCO,inactive"  # file row 51
    path = tmp_path / "m.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.warns(UserWarning, match=r"row 51, column 'y'"):
        ds = helix.read_dataset(str(path))
    assert ds.label_names == ["y"] and len(ds) == 199


def test_featurize_cli_tasks_option(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text("num,smiles,a,b\n1,CCO,1,0.5\n2,CCN,0,1.5\n")
    out = tmp_path / "d.h5"
    assert cli.main(["helix", "featurize", str(path), "-o", str(out), "--tasks", "b", "--quiet"]) == 0
    assert helix.load_dataset(str(out)).label_names == ["b"]
