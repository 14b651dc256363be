"""`sampan helix featurize` and chunked featurization (what its progress bar drives)."""
import numpy as np
import pytest

from sampan import cli, helix
from sampan.helix.featurize import featurize_graphs

pytestmark = pytest.mark.skipif(not helix.native_available(),
                                reason="helix's C++ part is not built (RDKit's C++ libraries not found)")


def test_chunked_featurization_equals_one_call():
    smiles = ["CCO", "C1CC", "c1ccccc1", "[Na+].[Cl-]", "N[C@@H](C)C(=O)O", "C(C)(C)(C)(C)C", "O"] * 5
    whole = featurize_graphs(smiles, "ogb", rows=np.arange(len(smiles)) + 2)
    done = []
    chunked = featurize_graphs(smiles, "ogb", rows=np.arange(len(smiles)) + 2, progress=done.append, chunk_size=4)
    assert sum(done) == len(smiles) and len(done) == 9
    for key in ("node_offsets", "edge_offsets", "atom_features", "edge_source", "edge_target", "bond_features",
                "source_index"):
        np.testing.assert_array_equal(chunked[key], whole[key], err_msg=key)
    assert chunked["invalid"] == whole["invalid"]
    # 'C1CC' (input 1, 8, ...) and pentavalent carbon (input 5, 12, ...), in input order, rows = index + 2
    assert [m["row"] for m in whole["invalid"]] == sorted([3 + 7 * k for k in range(5)] + [7 + 7 * k for k in range(5)])


def test_featurize_command_writes_a_dataset(tmp_path, capsys):
    src = tmp_path / "mols.csv"
    src.write_text("smiles,active,score\nCCO,1,0.5\nC1CC,0,1\nc1ccccc1,,2.5\nCCN,yes,3\n")
    out = tmp_path / "mols.h5"
    # Inferred, 'active' (one text cell in four rows) is not a label: reported, no row lost to it.
    assert cli.main(["helix", "featurize", str(src), "-o", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "ignored columns: active (text in 1 of 4 rows)" in captured.err
    assert "3 molecules" in captured.out and helix.load_dataset(str(out)).label_names == ["score"]
    # Named as a task, its text cell makes row 5 a bad row.
    assert cli.main(["helix", "featurize", str(src), "-o", str(out), "--tasks", "active,score", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "2 molecules" in captured.out and "2 row(s) left out" in captured.out
    assert "row 3: SMILES 'C1CC' skipped" in captured.err
    assert "row 5, column 'active': expected a number or an empty cell, got 'yes'" in captured.err
    ds = helix.load_dataset(str(out))
    assert ds.smiles == ["CCO", "c1ccccc1"] and ds.label_names == ["active", "score"]
    np.testing.assert_array_equal(ds.labels, [[1, 0.5], [np.nan, 2.5]])
    np.testing.assert_array_equal(ds.atom_features, helix.featurize(["CCO", "c1ccccc1"]).atom_features)

    # pretrain_gnns, one label column chosen, bad rows fatal
    out2 = tmp_path / "hu.h5"
    assert cli.main(["helix", "featurize", str(src), "-o", str(out2), "--featurizer", "pretrain_gnns",
                     "--label-columns", "score", "--quiet"]) == 0
    hu = helix.load_dataset(str(out2))
    assert hu.featurizer == "pretrain_gnns" and hu.atom_features.shape[1] == 2 and len(hu) == 3
    assert cli.main(["helix", "featurize", str(src), "-o", str(out2), "--on-bad-row", "raise", "--tasks", "active",
                     "--quiet"]) == 2
    assert "row 5, column 'active'" in capsys.readouterr().err


def test_featurize_command_errors(tmp_path, capsys):
    assert cli.main(["helix", "featurize", str(tmp_path / "none.csv"), "-o", str(tmp_path / "o.h5")]) == 2
    assert "none.csv: no such file" in capsys.readouterr().err
    (tmp_path / "e.csv").write_text("")
    assert cli.main(["helix", "featurize", str(tmp_path / "e.csv"), "-o", str(tmp_path / "o.h5"), "--quiet"]) == 2
    assert "e.csv: the file is empty" in capsys.readouterr().err
    assert not (tmp_path / "o.h5").exists()


def test_without_the_native_part_the_error_says_why(monkeypatch):
    # As in a build without RDKit: sampan._C has no helix submodule.
    import sampan._C
    monkeypatch.delattr(sampan._C, "helix")
    assert not helix.native_available()
    with pytest.raises(RuntimeError, match="not built.*RDKit.*librdkit-dev"):
        helix.featurize(["CCO"])
    with pytest.raises(RuntimeError, match="librdkit-dev"):
        helix.draw_svg("CCO")
