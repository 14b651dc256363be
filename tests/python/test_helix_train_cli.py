"""`sampan helix pretrain` and `sampan helix finetune` end to end on a small SMILES file: the
outputs exist, hold what they claim, and the pretrained encoder goes into fine-tuning."""
import json
import os

import numpy as np
import pytest

import sampan as sp
from sampan import cli
from sampan.helix import native_available

pytestmark = pytest.mark.skipif(not native_available(), reason="sampan_helix not built (needs RDKit)")

# Small molecules with two made-up tasks: aromatic atom present; nitrogen present (the second
# label left empty on every fifth row: missing).
SMILES = ["c1ccccc1O", "CCO", "CC(=O)Nc1ccc(O)cc1", "CCN(CC)CC", "c1ccc2ccccc2c1", "OCC(O)CO", "CC(C)Cc1ccc(C)cc1",
          "NCCc1ccccc1", "CCCCCC", "c1ccncc1", "CC(=O)O", "Cc1ccccc1N", "C1CCCCC1", "C1CCNCC1", "c1ccoc1",
          "CC(N)C(=O)O", "CCOC(=O)c1ccccc1", "CN1CCCC1", "c1ccc(cc1)C(=O)O", "CCCCN", "COc1ccccc1", "CC#N",
          "O=C1CCCCC1", "c1cnc2ccccc2c1", "CCCl", "Nc1ccccc1", "CC(C)O", "c1ccsc1", "CNC", "Oc1ccc(Cl)cc1",
          "C1COCCO1", "CCc1ccccc1"]


def _labels(smiles):
    aromatic = float(any(ch in "cnos" for ch in smiles))
    nitrogen = float("N" in smiles or "n" in smiles)
    return aromatic, nitrogen


@pytest.fixture
def csv_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SAMPAN_HELIX_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "toy.csv"
    lines = ["smiles,aromatic,nitrogen"]
    for i, s in enumerate(SMILES):
        a, n = _labels(s)
        lines.append(f"{s},{a:.0f},{'' if i % 5 == 0 else f'{n:.0f}'}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_pretrain_then_finetune(csv_file, tmp_path):
    small = ["--layers", "2", "--emb-dim", "16", "--no-progress", "--threads", "1"]
    encoder = tmp_path / "out" / "enc.h5"
    assert cli.main(["helix", "pretrain", "--dataset", str(csv_file), "--task", "attr_mask", "--epochs", "2",
                     "--batch-size", "8", "--out", str(encoder)] + small) == 0
    payload = sp.load(str(encoder))
    assert payload["provenance"]["task"] == "attr_mask" and payload["provenance"]["molecules"] == len(SMILES)
    assert len(payload["provenance"]["history"]["loss"]) == 2
    context = tmp_path / "out" / "enc_cp.h5"
    assert cli.main(["helix", "pretrain", "--dataset", str(csv_file), "--task", "context_pred", "--epochs", "1",
                     "--batch-size", "8", "--out", str(context)] + small) == 0
    supervised = tmp_path / "out" / "enc_sup.h5"
    assert cli.main(["helix", "pretrain", "--dataset", str(csv_file), "--task", "supervised", "--epochs", "1",
                     "--batch-size", "8", "--init", str(encoder), "--out", str(supervised)] + small) == 0
    assert sp.load(str(supervised))["provenance"]["init"] == str(encoder)

    metrics = tmp_path / "out" / "m.json"
    assert cli.main(["helix", "finetune", "--dataset", str(csv_file), "--epochs", "3", "--seeds", "0", "1",
                     "--batch-size", "8", "--pretrained", str(supervised), "--out", str(metrics)] + small) == 0
    record = json.loads(metrics.read_text())
    assert record["metric"] == "roc_auc" and record["tasks"] == 2 and record["molecules"] == len(SMILES)
    assert sum(record["split_sizes"]) == len(SMILES) and record["pretrained"]["path"] == str(supervised)
    tests = [r["test"] for r in record["runs"]]
    assert len(tests) == 2 and record["test_mean"] == pytest.approx(np.mean(tests))
    for run in record["runs"]:
        assert 1 <= run["best_epoch"] <= 3 and len(run["history"]["valid"]) == 3
    from sampan.helix.finetune import load_model
    model = load_model(os.path.splitext(metrics)[0] + ".h5")
    assert model.config["num_tasks"] == 2 and model.config["emb_dim"] == 16


def test_finetune_errors_are_one_line(csv_file, tmp_path, capsys):
    encoder = tmp_path / "enc.h5"
    args = ["--no-progress", "--threads", "1", "--layers", "2", "--epochs", "1"]
    assert cli.main(["helix", "pretrain", "--dataset", str(csv_file), "--emb-dim", "8", "--out", str(encoder)] + args) == 0
    assert cli.main(["helix", "finetune", "--dataset", str(csv_file), "--emb-dim", "16", "--pretrained", str(encoder),
                     "--out", str(tmp_path / "m.json")] + args) == 2
    assert "emb_dim=8 but the model asks emb_dim=16" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()
    assert cli.main(["helix", "finetune", "--dataset", str(tmp_path / "missing.csv"), "--out",
                     str(tmp_path / "m.json")] + args) == 2
    assert "missing.csv: no such file" in capsys.readouterr().err


def test_finetune_device_errors_come_before_any_work(csv_file, tmp_path, capsys):
    args = ["--no-progress", "--threads", "1", "--layers", "2", "--epochs", "1", "--out", str(tmp_path / "m.json")]
    assert cli.main(["helix", "finetune", "--dataset", str(csv_file), "--device", "npu"] + args) == 2
    assert "--device npu: device must be 'cpu', 'cuda' or 'cuda:N'" in capsys.readouterr().err
    if not sp.cuda.is_available():
        assert cli.main(["helix", "finetune", "--dataset", str(csv_file), "--device", "cuda"] + args) == 2
        assert "--device cuda: no GPU in this process" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


def test_pretrain_device_errors_come_before_the_dataset_is_read(tmp_path, capsys):
    missing = str(tmp_path / "no_such.smi")
    out = ["--out", str(tmp_path / "enc.h5"), "--no-progress"]
    assert cli.main(["helix", "pretrain", "--dataset", missing, "--device", "npu"] + out) == 2
    assert "--device npu: device must be 'cpu', 'cuda' or 'cuda:N'" in capsys.readouterr().err
    if not sp.cuda.is_available():
        assert cli.main(["helix", "pretrain", "--dataset", missing, "--device", "cuda"] + out) == 2
        assert "--device cuda: no GPU in this process" in capsys.readouterr().err
    assert not (tmp_path / "enc.h5").exists()


def test_finetune_on_the_cpu_device_records_it(csv_file, tmp_path):
    metrics = tmp_path / "m.json"
    assert cli.main(["helix", "finetune", "--dataset", str(csv_file), "--epochs", "1", "--seeds", "0", "--device",
                     "cpu", "--batch-size", "8", "--layers", "2", "--emb-dim", "8", "--no-progress", "--out",
                     str(metrics)]) == 0
    assert json.loads(metrics.read_text())["device"] == "cpu"


@pytest.mark.skipif(not sp.cuda.is_available(), reason=f"no GPU in this process: {sp.cuda.unavailable_reason()}")
def test_finetune_on_the_gpu_gives_the_cpus_metrics(csv_file, tmp_path):
    records = {}
    for device in ("cpu", "cuda"):
        metrics = tmp_path / f"{device}.json"
        assert cli.main(["helix", "finetune", "--dataset", str(csv_file), "--epochs", "2", "--seeds", "0", "--device",
                         device, "--batch-size", "8", "--layers", "2", "--emb-dim", "16", "--dropout", "0.5",
                         "--no-progress", "--out", str(metrics)]) == 0
        records[device] = json.loads(metrics.read_text())
    cpu, gpu = records["cpu"]["runs"][0]["history"], records["cuda"]["runs"][0]["history"]
    np.testing.assert_allclose(gpu["train_loss"], cpu["train_loss"], rtol=1e-4)
    np.testing.assert_allclose(gpu["valid"], cpu["valid"], atol=1e-3)
