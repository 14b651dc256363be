"""Applying a fine-tuned model (the best-model HDF5 that `sampan helix finetune` writes) to new
molecules: predict(model_path, smiles) in Python, `sampan helix predict` on files.

The model file holds the GraphModel (config and weights) and, beside it, the task names and the
metric it was selected with (written by finetune since task names were added; older files get
task_0, task_1, ...). Classification models (metric roc_auc or average_precision) give the
probability of class 1 (the sigmoid of the logit); regression models give the value itself
(finetune trains on the labels as they are, without normalising them). SMILES that RDKit cannot
read get no prediction (NaN; an empty cell in the CSV) and are listed in `invalid`.
"""
import csv
import dataclasses
import os

import numpy as np

import sampan
from .data import DataLoader, MoleculeDataset
from .finetune import is_classification, load_model, predict as predict_batches
from .graph_arrays import featurize_graphs

MODEL_KIND = "sampan.helix.GraphModel"


@dataclasses.dataclass
class Predictions:
    """One row per input SMILES, in input order."""
    smiles: list
    tasks: list
    values: np.ndarray   # float64 [n, T]; NaN where the SMILES could not be read
    kind: str            # "probability" (classification) or "value" (regression)
    invalid: list        # [{"index", "text", "reason"}] inputs without a prediction

    def write_csv(self, path, smiles_header="smiles"):
        """The SMILES and one column per task to `path` (a temp file in its folder, then renamed);
        empty cells for the inputs without a prediction."""
        path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        tmp = os.path.join(folder, f".{os.path.basename(path)}.tmp{os.getpid()}")
        try:
            with open(tmp, "w", newline="") as f:
                writer = csv.writer(f)
                writer.writerow([smiles_header] + list(self.tasks))
                for smiles, row in zip(self.smiles, self.values):
                    writer.writerow([smiles] + ["" if np.isnan(v) else repr(float(v)) for v in row])
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)


def model_info(model_path):
    """(task names, classification?) of a model file written by finetune."""
    payload = sampan.load(os.fspath(model_path))
    if not isinstance(payload, dict) or payload.get("kind") != MODEL_KIND:
        raise ValueError(f"{model_path}: not a sampan.helix model file (the best model `sampan helix finetune` "
                         f"writes; expected kind {MODEL_KIND!r})")
    extra = payload.get("extra", {}) or {}
    num_tasks = int(payload["config"]["num_tasks"])
    tasks = list(extra.get("tasks") or [f"task_{t}" for t in range(num_tasks)])
    if len(tasks) != num_tasks:
        raise ValueError(f"{model_path}: extra/tasks lists {len(tasks)} names for a model of {num_tasks} tasks")
    if "metric" not in extra:
        raise ValueError(f"{model_path}: the file does not say whether the model classifies or regresses "
                         f"(no extra/metric); pass classification=True or False")
    return tasks, is_classification(extra["metric"])


def predict(model_path, smiles, batch_size=256, num_threads=0, classification=None):
    """Predictions of the model in `model_path` for `smiles` (a list of SMILES strings).
    classification: None reads it from the file (the metric finetune selected the model with)."""
    if isinstance(smiles, str):
        smiles = [smiles]
    smiles = [str(s) for s in smiles]
    tasks, from_file = model_info(model_path)
    classification = from_file if classification is None else bool(classification)
    model = load_model(model_path)
    featurizer = model.config["featurizer"]
    if not isinstance(featurizer, str):
        raise ValueError(f"{model_path}: the model uses custom feature sizes, not a named featurizer; "
                         "featurize the molecules yourself and call the model")
    values = np.full((len(smiles), len(tasks)), np.nan)
    invalid = []
    if smiles:
        graphs = featurize_graphs(smiles, featurizer, None, num_threads)
        invalid = [{"index": int(m["index"]), "text": m["text"], "reason": m["reason"]} for m in graphs["invalid"]]
        keep = np.asarray(graphs["source_index"], dtype=np.int64)
        if len(keep):
            dataset = MoleculeDataset.from_graphs(graphs, smiles=[smiles[i] for i in keep], rows=keep)
            _, predicted, _ = predict_batches(model, DataLoader(dataset, batch_size), classification)
            values[keep] = predicted
    return Predictions(smiles, tasks, values, "probability" if classification else "value", invalid)


def read_smiles_file(path, smiles_column=None):
    """(SMILES, file rows, problems) of every molecule row of a CSV (.gz) or SMILES list, in file
    order: a CSV row with the wrong number of fields is kept (its SMILES cell, if any) and its
    problem listed, so that it gets an empty prediction rather than vanishing."""
    from ._native import native
    from .data import input_kind
    kind = input_kind(path)
    h = native()
    if kind == "csv":
        table = h.read_smiles_csv(path, smiles_column or "", [], False, "skip")
    elif kind == "smi":
        table = h.read_smiles_lines(path)
    else:
        raise ValueError(f"{path}: predict reads a CSV (with a SMILES column) or a SMILES list (.smi/.txt)")
    records = [(int(r), s, None) for r, s in zip(table["rows"], table["smiles"])]
    records += [(int(e["row"]), e["text"], e["reason"]) for e in table.get("errors", [])]
    records.sort(key=lambda r: r[0])
    return [r[1] for r in records], [r[0] for r in records], {r[0]: r[2] for r in records if r[2]}
