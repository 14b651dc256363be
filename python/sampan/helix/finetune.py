"""Fine-tuning a GraphModel on labelled molecules, with model selection on validation.

The protocol is Hu et al. 2020's (shared/reference/helix.md section 1.5): Adam, lr 1e-3, batch
32, 100 epochs, dropout 0.5, deterministic scaffold split; the number reported is the test score
at the epoch with the best validation score, and several fine-tuning seeds (which vary the model
initialization, dropout and batch order, not the split) give mean +- std.

Loaders are any re-iterable sources of batches with the fields of sampan.helix.data.GraphBatch
(x, edge_index, edge_attr, batch, num_graphs, y, y_mask); sampan.helix.data.DataLoader is one.

Under mpirun (several ranks) fine-tuning is data-parallel by default: every rank takes every
N-th batch of the shuffled order that all ranks draw alike (the training loader must be a helix
DataLoader), draws dropout from its own stream, and the gradients are averaged before each step
(sp.Model's DataParallel); BatchNorm statistics are rank 0's, copied to every rank before each
evaluation, so every rank evaluates validation and test alike and picks the same best epoch.
Rank 0 writes checkpoints and results; a checkpoint resumes only on as many ranks as wrote it.
"""
import functools
import json
import math
import os
import time

import numpy as np

import sampan
from sampan.nn import functional as F
from ..callbacks import Callback, EarlyStopping
from ..hapi.model import Model
from .. import distributed as dist
from . import checkpoint as ckpt
from . import ranks
from . import metrics as metric_functions
from .model_io import check_encoder_fits, load_encoder_payload, load_model, save_model  # noqa: F401
from .models import GraphModel, as_tensor
from .progress import EpochProgress

CLASSIFICATION_METRICS = ("roc_auc", "average_precision")


def is_classification(metric):
    return metric in CLASSIFICATION_METRICS


def masked_loss(output, batch, classification):
    """Mean over present labels: BCE with logits for classification (labels 0/1), squared error
    for regression. Missing labels (y_mask False, y possibly NaN) contribute nothing."""
    y, present = as_tensor(batch.y).to(output.dtype), as_tensor(batch.y_mask)
    if classification:
        return F.binary_cross_entropy_with_logits(output, y, mask=present)
    y = sampan.where(present, y, sampan.zeros_like(output))
    diff = sampan.where(present, output - y, sampan.zeros_like(output))
    return (diff * diff).sum() / sampan.clamp(present.to(output.dtype).sum(), 1.0, math.nan)


def whole_batch(batch):
    """sp.Model's split of a graph batch: the network takes the batch, the loss (output, batch)."""
    return [batch], [batch]


def too_small(batch):
    """A batch with fewer than two atoms gives no step (BatchNorm needs two values per channel in
    training)."""
    return batch.x.shape[0] < 2


def has_virtual_node(model):
    return getattr(getattr(model, "encoder", None), "virtual_node", None) is not None


def skip_predicate(model):
    """The batches fine-tuning takes no step on: too_small ones, and for a model with a virtual
    node also one-graph batches (its MLP's BatchNorm normalizes over graphs; OGB's training loop
    skips them too)."""
    if not has_virtual_node(model):
        return too_small
    return lambda batch: too_small(batch) or batch.num_graphs < 2


def training_ranks(data_parallel=None):
    """(rank, number of ranks) that fine-tune together: data_parallel None means data-parallel
    exactly when this process is one of several MPI ranks; False trains it on its own."""
    if data_parallel is None:
        data_parallel = dist.world_size() > 1
    return (dist.rank(), dist.world_size()) if data_parallel else (0, 1)


def as_loader(source):
    """A list or tuple of ready batches as a loader for sp.Model (which batches lists of samples)."""
    return _Batches(source) if isinstance(source, (list, tuple)) else source


class _Batches:
    def __init__(self, batches):
        self.batches = batches

    def __iter__(self):
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)


def trainer(model, optimizer=None, classification=True, metric=None, data_parallel=False, amp=None):
    """An sp.Model over a graph model: batches go whole to it, the loss is masked_loss, and
    `metric` (a name of helix.metrics.METRICS) is the evaluations' MaskedMetric; data_parallel
    True (under mpirun) averages the gradients over the ranks; amp: mixed precision as
    sp.Model.prepare's (None, 'bfloat16', 'float16')."""
    trained = Model(model, split_batch=whole_batch)
    trained.prepare(optimizer, functools.partial(masked_loss, classification=classification),
                    metrics=None if metric is None else metric_functions.MaskedMetric(metric),
                    data_parallel=data_parallel, amp=amp)
    return trained


def train_epoch(model, loader, optimizer, classification=True, max_batches=None):
    """One pass over `loader` (an sp.Model fit of one epoch); returns the mean training loss over
    its batches. The batches of skip_predicate(model) are skipped."""
    logs = trainer(model, optimizer, classification).fit(as_loader(loader), epochs=1, verbose=0,
                                                         max_batches=max_batches, skip_batch=skip_predicate(model))
    loss = logs[0]["loss"]
    return 0.0 if math.isnan(loss) else loss


def predict(model, loader, classification=True):
    """(y_true, y_pred, y_mask) as NumPy arrays [G, T] over the whole loader, in eval mode; for
    classification y_pred holds probabilities (sigmoid of the logits)."""
    collected = metric_functions.MaskedMetric("roc_auc" if classification else "rmse")
    model.eval()
    with sampan.no_grad():
        device = next((str(p.device) for p in model.parameters()), "cpu")
        for batch in as_loader(loader):
            collected.update(*collected.compute(model(batch if device == "cpu" else batch.to(device)), batch))
    return collected.arrays()


def evaluate(model, loader, metric="roc_auc"):
    """The metric over the whole loader (sp.Model.evaluate with helix.metrics.MaskedMetric)."""
    return trainer(model, classification=is_classification(metric), metric=metric).evaluate(as_loader(loader))[metric]


class _FinetuneRecord(Callback):
    """What finetune keeps besides sp.Model's own state: the history (train_loss, valid, test per
    epoch), the seconds of training (earlier sessions included), the test evaluation after each
    epoch, the checkpoint every `every` epochs and after the last, and the caller's on_epoch."""

    def __init__(self, best, test_loader, metric, on_epoch, checkpoint, every, settings):
        super().__init__()
        self.best, self.test_loader, self.metric, self.on_epoch = best, test_loader, metric, on_epoch
        self.checkpoint, self.every, self.settings = checkpoint, max(int(every), 1), settings
        self.history = {"train_loss": [], "valid": [], "test": []}
        self.seconds_before, self.start = 0.0, time.perf_counter()
        self._resumed = False

    def seconds(self):
        return self.seconds_before + time.perf_counter() - self.start

    def on_train_begin(self, logs=None):
        if not self._resumed:
            self.history = {"train_loss": [], "valid": [], "test": []}
            self.seconds_before = 0.0
        self._resumed = False
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        loss, valid = logs["loss"], logs[f"eval_{self.metric}"]
        if math.isnan(loss):
            loss = 0.0  # no step this epoch (every batch skipped), as before sp.Model
        test = float("nan")
        if self.test_loader is not None:
            test = self.model.evaluate(self.test_loader)[self.metric]
        self.history["train_loss"].append(loss)
        self.history["valid"].append(valid)
        self.history["test"].append(test)
        epoch += 1  # from here 1-based, as the history and on_epoch count
        if self.checkpoint is not None and (epoch % self.every == 0 or epoch == self.params["epochs"]):
            ckpt.save_training(self.checkpoint, self.model, dict(self.settings, seconds=self.seconds(),
                                                                  best_epoch=self.best_epoch()))
        if self.on_epoch is not None:
            self.on_epoch(epoch, {"train_loss": loss, "valid": valid, "test": test, "seconds": self.seconds()})

    def best_epoch(self):
        """The best-validation epoch, 1-based (0: none yet)."""
        return 0 if self.best.best_epoch is None else self.best.best_epoch + 1

    def state_dict(self):
        return {"history": self.history, "seconds": self.seconds()}

    def load_state_dict(self, state):
        self.history = ckpt.history_lists(state["history"], ("train_loss", "valid", "test"))
        self.seconds_before = float(state["seconds"])
        self._resumed = True


def _better(metric, new, old):
    """The best-validation rule (EarlyStopping's in finetune): NaN never improves."""
    if math.isnan(new):
        return False
    if old is None or math.isnan(old):
        return True
    return new > old if metric_functions.HIGHER_IS_BETTER[metric] else new < old


def _legacy_callbacks(saved):
    """The callbacks' states of a checkpoint written before finetune ran on sp.Model."""
    best_epoch = int(saved["best_epoch"])
    best = {"wait": 0, "best_value": float(saved["best_valid"]), "epoch": int(saved["epoch"]) - 1,
            "best_epoch": best_epoch - 1}
    if best_epoch:
        best["best_state"] = saved["best_state"]
    else:
        best["best_value"] = -math.inf if metric_functions.HIGHER_IS_BETTER[saved["metric"]] else math.inf
    return {"EarlyStopping:0": best, "_FinetuneRecord:0": {"history": saved["history"], "seconds": saved["seconds"]}}


def finetune(model, train_loader, valid_loader, test_loader=None, epochs=100, lr=1e-3, weight_decay=0.0,
             metric="roc_auc", progress=False, description="finetune", max_batches=None, on_epoch=None,
             checkpoint=None, checkpoint_every=5, data_parallel=None, amp=None, device=None):
    """Trains `model` for `epochs` (on sp.Model), evaluating validation (and test) after each
    epoch; at the end the model holds the weights of the best-validation epoch. Returns a dict
    with the history (train_loss, valid, test per epoch), best_epoch (1-based), valid and test at
    that epoch and the wall time. on_epoch(epoch, record) is called after each epoch (record:
    train_loss, valid, test, and seconds of training so far, earlier sessions of a resumed run
    included); under data parallelism it runs on every rank (print from rank 0).

    max_batches: at most this many batches of train_loader per epoch (under data parallelism
    rounded down to a multiple of the ranks, shared between them).
    data_parallel: None (the default) trains data-parallel when there are several MPI ranks
    (see the module's notes; train_loader's batch_size is then per rank); False: on its own.
    amp: mixed precision (None, 'bfloat16', 'float16'): forward passes and losses under
    sp.amp.autocast, parameters float32 (docs/mixed-precision.md).
    device: where to train ('cpu', 'cuda'; None: where the model is): the model is moved there
    first, and sp.Model places each batch on it (GraphBatch.to).

    checkpoint: a file path. Every `checkpoint_every` epochs (and after the last) the whole
    training state is written there (sampan.helix.checkpoint: sp.Model's checkpoint state with the
    settings, under kind sampan.helix.TrainingCheckpoint); when the file exists at the start,
    training continues from it, and the result equals that of an uninterrupted run."""
    _check_callback(on_epoch)
    rank, size = training_ranks(data_parallel)
    if size > 1:
        ranks.check_shareable(train_loader, max_batches, size, "data-parallel fine-tuning")
    classification = is_classification(metric)
    if device is not None:
        model.to(device)  # before the optimizer: moving makes new Parameter objects
    optimizer = sampan.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    trained = trainer(model, optimizer, classification, metric, data_parallel=size > 1, amp=amp)  # rank 0's weights
    if size > 1:
        ranks.own_dropout_stream(rank)
    settings = dict(epochs=int(epochs), lr=float(lr), weight_decay=float(weight_decay), metric=metric)
    if checkpoint is not None and os.path.exists(checkpoint):
        saved = ckpt.upgraded(ckpt.load_checkpoint(checkpoint, "fine-tuning"), _legacy_callbacks)
        ckpt.check_matches(saved, checkpoint, **settings)
        if int(saved["world_size"]) != size:
            raise ValueError(f"{checkpoint}: the checkpoint was written by a run on {int(saved['world_size'])} "
                             f"rank(s) but this run has {size}; resume it with as many ranks")
        trained.load_checkpoint_state(saved)
    higher = metric_functions.HIGHER_IS_BETTER[metric]
    best = EarlyStopping(monitor=metric, mode="max" if higher else "min", patience=None, restore_best_weights=True)
    record = _FinetuneRecord(best, None if test_loader is None else as_loader(test_loader), metric, on_epoch,
                             checkpoint, checkpoint_every, settings)

    def postfix(logs):
        return {"loss": f"{logs['loss']:.4f}", "valid": f"{logs[f'eval_{metric}']:.4f}",
                "best": f"{best.best_value if best.best_epoch is not None else float('nan'):.4f}"}

    bar = EpochProgress(progress and rank == 0, description, postfix)
    callbacks = [best, record, bar]
    if size > 1:
        batches, max_batches = ranks.RankShard(train_loader, rank, size, max_batches), None
        callbacks.insert(0, ranks.SameBuffers(model))
    else:
        batches = as_loader(train_loader)
    trained.fit(batches, eval_data=as_loader(valid_loader), epochs=epochs, verbose=0, callbacks=callbacks,
                max_batches=max_batches, skip_batch=skip_predicate(model), train_metrics=False)
    history, best_epoch = record.history, record.best_epoch()
    return {"metric": metric, "history": history, "best_epoch": best_epoch,
            "valid": history["valid"][best_epoch - 1] if best_epoch else float("nan"),
            "test": history["test"][best_epoch - 1] if best_epoch else float("nan"),
            "seconds": record.seconds()}


def finetune_seeds(make_loaders, model_config, seeds=(0, 1, 2), epochs=100, lr=1e-3, metric="roc_auc",
                   encoder_state=None, progress=False, max_batches=None, keep_best_model=True,
                   checkpoint_dir=None, checkpoint_every=5, on_epoch=None, data_parallel=None, amp=None,
                   device=None):
    """Runs `finetune` once per seed and summarizes test (and validation) at the best-validation
    epoch as mean and standard deviation (population std, as Hu et al.'s parse script with numpy).

    make_loaders(seed) -> (train_loader, valid_loader, test_loader): the split must not depend on
    the seed (Hu et al.'s scaffold split does not); the seed shuffles batches.
    model_config: keyword arguments of GraphModel (num_tasks, featurizer, num_layers, ...).
    encoder_state: a pretrained encoder's state dict, loaded before training.
    checkpoint_dir: makes the runs resumable, one seed at a time: seed<k>.ckpt.h5 holds the
    training state while seed k trains (see `finetune`), and once it finished its best weights;
    seed<k>.json its result. A seed whose result exists is not trained again.
    on_epoch(seed, epoch, record) is called after each epoch that trains (record as in `finetune`,
    plus "seconds": the seed's training time so far, resumed sessions included), on every rank.
    data_parallel, amp, device: as in `finetune`; rank 0 writes the files.
    Returns (summary dict, the model of the seed with the best validation score)."""
    _check_callback(on_epoch)  # before any seed trains, not after its first epoch
    if checkpoint_dir is not None and os.path.exists(checkpoint_dir) and not os.path.isdir(checkpoint_dir):
        raise ValueError(f"checkpoint_dir {checkpoint_dir}: exists and is not a directory (it holds one "
                         "seed<k>.ckpt.h5 and seed<k>.json per seed)")
    runs, best_model, best_valid = [], None, None
    for seed in seeds:
        result, model = _run_seed(make_loaders, model_config, int(seed), epochs, lr, metric, encoder_state,
                                  progress, max_batches, checkpoint_dir, checkpoint_every, keep_best_model, on_epoch,
                                  data_parallel, amp, device)
        runs.append(result)
        if keep_best_model and _better(metric, result["valid"], best_valid):
            best_valid, best_model = result["valid"], model
    tests = np.array([r["test"] for r in runs])
    valids = np.array([r["valid"] for r in runs])
    summary = {"metric": metric, "seeds": [int(s) for s in seeds], "epochs": epochs, "lr": lr,
               "test_mean": float(np.mean(tests)), "test_std": float(np.std(tests)),
               "valid_mean": float(np.mean(valids)), "valid_std": float(np.std(valids)),
               "runs": runs, "model": {k: (list(v) if isinstance(v, tuple) else v) for k, v in model_config.items()}}
    return summary, best_model


def _run_seed(make_loaders, model_config, seed, epochs, lr, metric, encoder_state, progress, max_batches,
              checkpoint_dir, checkpoint_every, keep_model, on_epoch=None, data_parallel=None, amp=None,
              device=None):
    """(result, model or None) of one seed, resumed or skipped when checkpoint_dir says so."""
    rank, size = training_ranks(data_parallel)
    result_path = ckpt_path = None
    if checkpoint_dir is not None:
        result_path = os.path.join(checkpoint_dir, f"seed{seed}.json")
        ckpt_path = os.path.join(checkpoint_dir, f"seed{seed}.ckpt.h5")
        finished = None
        if os.path.exists(result_path):
            with open(result_path) as f:
                finished = json.load(f)
        elif os.path.exists(ckpt_path):
            saved = ckpt.load_checkpoint(ckpt_path, f"seed {seed}")
            if saved.get("done"):  # killed after the final checkpoint, before the JSON
                finished = json.loads(saved["result"])
                if rank == 0:
                    ckpt.write_json_atomic(result_path, finished)
        if finished is not None:
            model = None
            if keep_model and os.path.exists(ckpt_path):
                model = GraphModel(**model_config)
                model.load_state_dict(ckpt.load_checkpoint(ckpt_path, f"seed {seed}")["best_state"])
            return finished, model
    sampan.manual_seed(seed)
    model = GraphModel(**model_config)
    if encoder_state is not None:
        model.encoder.load_state_dict(encoder_state)
    train_loader, valid_loader, test_loader = make_loaders(seed)
    seed_epoch = None if on_epoch is None else (lambda epoch, record: on_epoch(seed, epoch, record))
    result = finetune(model, train_loader, valid_loader, test_loader, epochs, lr, metric=metric,
                      progress=progress, description=f"seed {seed}", max_batches=max_batches, on_epoch=seed_epoch,
                      checkpoint=ckpt_path, checkpoint_every=checkpoint_every, data_parallel=size > 1, amp=amp,
                      device=device)
    result["seed"] = seed
    if checkpoint_dir is not None:
        if rank == 0:
            # The training state is no longer needed: keep the best weights (the model holds them now).
            ckpt.save_checkpoint(ckpt_path, {"done": True, "best_state": model.state_dict(),
                                             "result": json.dumps(result, default=float)})
            ckpt.write_json_atomic(result_path, result)
        if size > 1:
            dist.barrier()  # no rank looks at the next seed's files before rank 0 wrote this one's
    return result, model


def _check_callback(on_epoch):
    if on_epoch is not None and not callable(on_epoch):
        raise TypeError(f"on_epoch must be a function called after each epoch, got {type(on_epoch).__name__}")


def default_metric(dataset):
    """'roc_auc' when every present label is 0 or 1, else 'rmse'."""
    labels = np.asarray(dataset.y)[np.asarray(dataset.y_mask)]
    return "roc_auc" if labels.size and np.isin(labels, (0.0, 1.0)).all() else "rmse"


def finetune_dataset(dataset, split="scaffold", seeds=(0, 1, 2), epochs=100, batch_size=32, lr=1e-3, metric=None,
                     num_layers=5, emb_dim=300, conv="gin", jk="last", pool="mean", dropout=0.5, encoder_path=None,
                     progress=False, max_batches=None, eval_batch_size=256, checkpoint_dir=None, checkpoint_every=5,
                     keep_best_model=True, on_epoch=None, virtual_node=False, data_parallel=None, amp=None,
                     device=None):
    """Hu et al.'s fine-tuning protocol on a MoleculeDataset (sampan.helix.data): split (the
    deterministic scaffold split by default; a seeded split uses seed 0 for every run so that all
    seeds see the same molecules; or (train, valid, test) index arrays, used as they are), one run per seed, test at the best-validation epoch as mean +-
    std. encoder_path: a pretrained encoder (sampan helix pretrain) to start from.
    checkpoint_dir: per-seed checkpoints and results that make the call resumable (finetune_seeds).
    on_epoch(seed, epoch, record): called after every epoch (finetune_seeds).
    virtual_node: OGB's virtual node in the encoder (GIN-virtual).
    data_parallel: as in `finetune` (batch_size is per rank); amp: mixed precision, device: where to
    train ('cpu', 'cuda'), as in `finetune`.
    Returns (summary dict, best model)."""
    from .split import split_dataset
    from .data import DataLoader
    if isinstance(split, str):
        (train, valid, test), indices = split_dataset(dataset, split, 0)
    else:  # a split given as it is (e.g. an OGB folder's official one)
        indices = tuple(np.asarray(part, dtype=np.int64) for part in split)
        if len(indices) != 3:
            raise ValueError(f"split: expected a name or (train, valid, test) index arrays, got {len(indices)} parts")
        train, valid, test = (dataset.subset(part) for part in indices)
        split = "given"
    if min(len(train), len(valid), len(test)) == 0:
        raise ValueError(f"the {split} split of {len(dataset)} molecules left a part empty "
                         f"({len(train)}/{len(valid)}/{len(test)})")
    metric = metric or default_metric(dataset)
    config = dict(num_tasks=dataset.num_tasks, featurizer=dataset.featurizer, num_layers=num_layers, emb_dim=emb_dim,
                  conv=conv, jk=jk, pool=pool, dropout=dropout, virtual_node=bool(virtual_node))
    encoder_state, provenance = None, None
    if encoder_path is not None:
        payload = load_encoder_payload(encoder_path)
        check_encoder_fits(payload, config, encoder_path)
        encoder_state, provenance = payload["state"], payload.get("provenance", {})

    def loaders(seed):
        return (DataLoader(train, batch_size, shuffle=True, seed=seed), DataLoader(valid, eval_batch_size),
                DataLoader(test, eval_batch_size))

    summary, best = finetune_seeds(loaders, config, seeds, epochs, lr, metric, encoder_state, progress, max_batches,
                                   keep_best_model, checkpoint_dir, checkpoint_every, on_epoch, data_parallel, amp,
                                   device)
    summary.update(amp=amp, device=device or "cpu", split=split, split_sizes=[len(train), len(valid), len(test)], batch_size=batch_size,
                   molecules=len(dataset), tasks=dataset.num_tasks, task_names=list(dataset.label_names),
                   featurizer=dataset.featurizer,
                   pretrained=None if encoder_path is None else {"path": str(encoder_path), "provenance": provenance},
                   split_indices={k: v.tolist() for k, v in zip(("train", "valid", "test"), indices)})
    return summary, best
