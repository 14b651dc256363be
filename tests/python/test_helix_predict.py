"""`sampan helix predict` and sampan.helix.predict: a model fine-tuned for one epoch on a few
MoleculeNet molecules, applied to new ones, gives per molecule what the saved model's own forward
gives (recomputed here one molecule at a time: sigmoid for classification, the raw output for
regression); unreadable SMILES keep their row with empty cells."""
import csv
import os

import numpy as np
import pytest

import sampan as sp
from shared_data import SHARED_DATA
from sampan import cli, helix
from sampan.helix.finetune import load_model

pytestmark = pytest.mark.skipif(not helix.native_available(),
                                reason="helix's C++ part is not built (RDKit's C++ libraries not found)")
MOLECULENET = os.path.join(str(SHARED_DATA), "moleculenet")
needs_moleculenet = pytest.mark.skipif(not os.path.isdir(MOLECULENET),
                                       reason=f"MoleculeNet data folder not found ({MOLECULENET})")

NEW = ["CCO", "C1CC", "c1ccccc1N", "CC(=O)Oc1ccccc1C(=O)O", "not a smiles", "[Na+].[Cl-]"]
UNREADABLE = {1, 4}


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SAMPAN_HELIX_CACHE", str(tmp_path / "cache"))


def _finetune(tmp_path, source, rows=48, tasks=None):
    """A CSV of the first `rows` molecules of `source`, fine-tuned for one epoch: the model file."""
    with open(os.path.join(MOLECULENET, source), newline="") as f:
        lines = list(csv.reader(f))[: rows + 1]
    data = tmp_path / f"small_{source}"
    with open(data, "w", newline="") as f:
        csv.writer(f).writerows(lines)
    args = ["helix", "finetune", "--dataset", str(data), "--epochs", "1", "--seeds", "0", "--layers", "2",
            "--emb-dim", "16", "--no-progress", "--threads", "1", "--out", str(tmp_path / "m.json"),
            "--model-out", str(tmp_path / "best.h5")]
    assert cli.main(args + (["--tasks", tasks] if tasks else [])) == 0
    return str(tmp_path / "best.h5"), lines[0]


def _own_forward(model_path, smiles, classification):
    """The saved model applied to each molecule alone (eval mode), in NumPy."""
    model = load_model(model_path)
    model.eval()
    out = []
    with sp.no_grad():
        for s in smiles:
            ds = helix.featurize([s], featurizer=model.config["featurizer"])
            value = model(ds.batch([0])).numpy()[0].astype(np.float64)
            out.append(1.0 / (1.0 + np.exp(-value)) if classification else value)
    return np.array(out)


def _read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


@needs_moleculenet
def test_cli_predicts_probabilities_like_the_models_own_forward(tmp_path, capsys):
    model, header = _finetune(tmp_path, "sider.csv", rows=60)
    new = tmp_path / "new.csv"
    with open(new, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "smiles"])
        writer.writerows([[i, s] for i, s in enumerate(NEW)])
    out = tmp_path / "pred" / "predictions.csv"
    assert cli.main(["helix", "predict", "--model", model, "--dataset", str(new), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "4 of 6 molecules predicted" in captured.out
    assert "row 3: no prediction" in captured.err and "row 6: no prediction" in captured.err  # file lines
    columns, rows = _read_csv(out)
    assert columns == ["smiles"] + header[1:] and len(columns) == 28  # SIDER: 27 tasks
    assert [r[0] for r in rows] == NEW
    readable = [i for i in range(len(NEW)) if i not in UNREADABLE]
    for i in UNREADABLE:
        assert rows[i][1:] == [""] * 27
    got = np.array([[float(v) for v in rows[i][1:]] for i in readable])
    want = _own_forward(model, [NEW[i] for i in readable], classification=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert ((got > 0) & (got < 1)).all()
    assert not [n for n in os.listdir(out.parent) if n != "predictions.csv"]  # no temp file left


@needs_moleculenet
def test_python_predict_gives_regression_values(tmp_path):
    model, _ = _finetune(tmp_path, "delaney.csv")
    result = helix.predict(model, NEW)
    assert result.tasks == ["logp"] and result.kind == "value"
    assert sorted(m["index"] for m in result.invalid) == sorted(UNREADABLE)
    assert np.isnan(result.values[sorted(UNREADABLE)]).all()
    readable = [i for i in range(len(NEW)) if i not in UNREADABLE]
    want = _own_forward(model, [NEW[i] for i in readable], classification=False)
    np.testing.assert_allclose(result.values[readable], want, rtol=1e-5, atol=1e-6)


def test_predict_refuses_a_file_that_is_not_a_model(tmp_path):
    other = tmp_path / "other.h5"
    sp.save({"kind": "something else"}, str(other))
    with pytest.raises(ValueError, match="not a sampan.helix model file"):
        helix.predict(str(other), ["CCO"])
    assert cli.main(["helix", "predict", "--model", str(other), "--dataset", str(other),
                     "--out", str(tmp_path / "p.csv")]) == 2
    assert not (tmp_path / "p.csv").exists()
