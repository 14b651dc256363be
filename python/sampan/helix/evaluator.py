"""OGB's graph-property Evaluator interface for the molecule datasets: Evaluator(name).eval(
{"y_true": ..., "y_pred": ...}) -> {metric name: value}, with OGB's metric for each dataset.

DATASETS is OGB's master table (ogb/graphproppred/master.csv) for the ogbg-mol* datasets: the
number of tasks and the evaluation metric. molpcba and molmuv are evaluated with average
precision ("ap"; OGB called it "prcauc" before August 2020). ogbg-ppa and ogbg-code2 (accuracy,
F1) are not molecule datasets and are not covered.

The metrics follow OGB's rules: every task is scored on the molecules whose label is not NaN;
rocauc and ap skip a task unless both classes (1 and 0) occur among those, and average the
rest; rmse averages the per-task root mean squared errors. The metrics are
sampan.helix.metrics's functions.
"""
import numpy as np

from . import metrics

# name -> (number of tasks, metric)
DATASETS = {
    "ogbg-molbace": (1, "rocauc"), "ogbg-molbbbp": (1, "rocauc"), "ogbg-molclintox": (2, "rocauc"),
    "ogbg-molmuv": (17, "ap"), "ogbg-molpcba": (128, "ap"), "ogbg-molsider": (27, "rocauc"),
    "ogbg-moltox21": (12, "rocauc"), "ogbg-moltoxcast": (617, "rocauc"), "ogbg-molhiv": (1, "rocauc"),
    "ogbg-molesol": (1, "rmse"), "ogbg-molfreesolv": (1, "rmse"), "ogbg-mollipo": (1, "rmse"),
    "ogbg-molchembl": (1310, "rocauc"),
}
_METRIC_NAMES = {"rocauc": "ROC-AUC", "ap": "average precision", "rmse": "root mean squared error"}


def _as_array(name, value):
    array = np.asarray(value.numpy() if hasattr(value, "numpy") and not isinstance(value, np.ndarray) else value,
                       dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"Evaluator: {name} must be a 2-D array [num_graphs, num_tasks], got shape {array.shape}")
    return array


class Evaluator:
    """Evaluator("ogbg-molhiv").eval({"y_true": y_true, "y_pred": y_pred}) -> {"rocauc": value}."""

    def __init__(self, name):
        if name not in DATASETS:
            raise ValueError(f"Evaluator: unknown dataset {name!r}; the molecule datasets are "
                             f"{', '.join(sorted(DATASETS))}")
        self.name = name
        self.num_tasks, self.eval_metric = DATASETS[name]

    @property
    def expected_input_format(self):
        what = ("scores (probabilities or logits: only their order counts) of class 1"
                if self.eval_metric != "rmse" else "predicted values")
        labels = "0, 1 or NaN (missing)" if self.eval_metric != "rmse" else "numbers or NaN (missing)"
        return (f"==== Expected input format of Evaluator for {self.name}\n"
                f"{{'y_true': y_true, 'y_pred': y_pred}}\n"
                f"- y_true: numpy ndarray or sampan tensor of shape (num_graphs, {self.num_tasks}), labels {labels}\n"
                f"- y_pred: numpy ndarray or sampan tensor of shape (num_graphs, {self.num_tasks}), {what}\n"
                f"Each task is evaluated over the graphs whose label is not NaN.")

    @property
    def expected_output_format(self):
        return (f"==== Expected output format of Evaluator for {self.name}\n"
                f"{{'{self.eval_metric}': {self.eval_metric}}}\n"
                f"- {self.eval_metric} (float): {_METRIC_NAMES[self.eval_metric]} averaged over the tasks"
                + (" that have both classes" if self.eval_metric != "rmse" else ""))

    def _inputs(self, input_dict):
        if not isinstance(input_dict, dict) or "y_true" not in input_dict or "y_pred" not in input_dict:
            raise ValueError("Evaluator.eval: expected a dict with keys 'y_true' and 'y_pred'\n"
                             + self.expected_input_format)
        y_true, y_pred = _as_array("y_true", input_dict["y_true"]), _as_array("y_pred", input_dict["y_pred"])
        if y_true.shape != y_pred.shape:
            raise ValueError(f"Evaluator: y_true has shape {y_true.shape} but y_pred {y_pred.shape}")
        if y_true.shape[1] != self.num_tasks:
            raise ValueError(f"Evaluator: {self.name} has {self.num_tasks} task(s), the arrays have {y_true.shape[1]}")
        return y_true, y_pred

    def eval(self, input_dict):
        y_true, y_pred = self._inputs(input_dict)
        value = _METRICS[self.eval_metric](y_true, y_pred, ~np.isnan(y_true))
        if np.isnan(value):
            needs = "a labelled graph" if self.eval_metric == "rmse" else "both a positive (1) and a negative (0) label"
            raise RuntimeError(f"Evaluator {self.name}: no task has {needs}; cannot compute {self.eval_metric}")
        return {self.eval_metric: float(value)}


_METRICS = {"rocauc": metrics.roc_auc, "ap": metrics.average_precision, "rmse": metrics.rmse}
