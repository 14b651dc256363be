"""sp.Model: fit / evaluate / predict over a network, with resumable checkpoints and MPI data
parallelism::

    model = sp.Model(sp.nn.Linear(3, 1))
    model.prepare(sp.optim.Adam(model.parameters(), lr=1e-2), sp.nn.functional.mse_loss)
    model.fit(sp.io.TensorDataset(x, y), epochs=20, batch_size=16, seed=0, verbose=0)
    model.evaluate(sp.io.TensorDataset(x, y), batch_size=64)      # {"loss": ...}
    model.save("run.h5")                                          # resumable: load() + fit() go on

Batches are split into the network's inputs and the labels: without ``inputs``/``labels`` the last
field of a tuple or list batch is the label and the others are the inputs (a batch that is a
single tensor is an input); ``inputs=n`` (or a list of n names or specs) takes the first n fields
as inputs and the rest as labels; for a dict batch give ``inputs`` and ``labels`` as lists of keys.
The loss is called as ``loss(*outputs, *labels)`` and returns a scalar tensor, or None when the
batch gives no step (it is then skipped). ``Model(network, split_batch=fn)`` splits batches of any
kind: ``fn(batch) -> (inputs, labels)``, two lists; ``split_batch=lambda b: ([b], [b])`` hands a
whole batch object (a graph batch, say) to the network and to the loss as ``loss(output, batch)``.
``fit`` takes a Dataset, a DataLoader, or any re-iterable of ready batches (an object with
``__iter__`` that is not map-style), with ``max_batches`` per epoch and a ``skip_batch`` predicate.

Under mpirun (more than one rank; ``prepare(data_parallel=False)`` trains each rank on its own)
the network is wrapped in sp.distributed.DataParallel (rank 0's
weights everywhere at prepare), gradients are averaged over the ranks after every backward pass,
and ``fit`` on a Dataset gives each rank its share through a DistributedSampler (``batch_size`` is
per rank). The training loss in the logs is averaged over the ranks (metrics on training batches
are this rank's); evaluation and prediction run on the whole data on every rank. Rank 0 alone
writes checkpoints and logs. A step that any rank skips (skip_batch, a None loss) is skipped by all.
"""
import contextlib
import importlib
import numbers
import os

import numpy as np

from .. import _C
from .._C import Tensor
from .._creation import tensor as make_tensor
from ..autograd import no_grad
from ..callbacks import Callback, CallbackList, LRScheduler, ProgressBar
from ..distributed import DataParallel, all_gather_str, all_reduce, barrier, broadcast
from ..distributed import rank as process_rank
from ..distributed import world_size
from ..io.dataloader import DataLoader
from ..io.sampler import DistributedSampler, fresh_seed
from ..metric import Metric
from .amp_config import parse_amp
from ..nn.module import Module
from ..optim.lr_scheduler import LRScheduler as Schedule
from ..optim.optimizer import Optimizer

CHECKPOINT_KIND = "sampan.Model"


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _count_spec(spec, what):
    """None, an int, or a list of names/specs (its length counts)."""
    if spec is None:
        return None
    if isinstance(spec, bool):
        raise TypeError(f"Model: {what} must be None, an int or a list, got a bool")
    if isinstance(spec, numbers.Integral):
        if spec < 0:
            raise ValueError(f"Model: {what} must be >= 0, got {spec}")
        return list(range(int(spec)))
    if isinstance(spec, (str, bytes)) or not hasattr(spec, "__len__"):
        return [spec]
    return list(spec)


def _to_tensor(x, device="cpu"):
    """x as the network takes it on `device` (its parameters'): a NumPy array or number becomes a
    tensor there, a tensor elsewhere is copied there, and on a GPU a batch object with a
    ``to(device)`` method (a helix GraphBatch) is moved by it; anything else passes as it is."""
    if isinstance(x, Tensor):
        return x if device == "cpu" or str(x.device) == device else x.to(device)
    if isinstance(x, (np.ndarray, np.generic, numbers.Number)):
        return make_tensor(x) if device == "cpu" else make_tensor(x, device=device)
    if device != "cpu" and callable(getattr(x, "to", None)):
        return x.to(device)
    return x


def _batch_size_of(values):
    for v in values:
        if isinstance(v, (Tensor, np.ndarray)) and v.ndim > 0:
            return int(v.shape[0])
        if isinstance(v, (list, tuple)) and v:
            n = _batch_size_of(v)
            if n:
                return n
    return 1


def _loss_value(loss):
    if not isinstance(loss, Tensor):
        raise TypeError(f"Model: the loss function returned a {type(loss).__name__}, not a Tensor")
    if loss.numel() != 1:
        raise ValueError(f"Model: the loss function returned a tensor of shape {tuple(loss.shape)}; it must "
                         "return one value (use reduction='mean' or 'sum')")
    return loss.reshape([])


def _is_dataset(data):
    return hasattr(data, "__getitem__") and hasattr(data, "__len__") and not isinstance(data, (str, bytes, dict))


def _steps(loader):
    try:
        return len(loader)
    except TypeError:
        return None


def _is_loader(data):
    """A sampan.io.DataLoader, or an iterable of ready batches that is not a map-style dataset (a
    domain module's loader): used as it is, iterated once per epoch."""
    if isinstance(data, DataLoader):
        return True
    return hasattr(data, "__iter__") and not _is_dataset(data) and not isinstance(data, (str, bytes, dict))



def _first(batches, limit):
    """The first ``limit`` batches (all when None), drawing none beyond them: a batch stream
    with state (random masking, a data-order generator) is left where the epoch stopped."""
    if limit is None:
        yield from batches
        return
    if limit <= 0:
        return
    for i, batch in enumerate(batches):
        yield batch
        if i + 1 >= limit:
            return

class Model:
    """A network with what trains it (see the module doc).

    network: a sampan.nn.Module. inputs, labels: how a batch splits (None, a count, or a list of
    names/specs of which only the length counts, except for dict batches where they are keys).
    split_batch: instead, a function batch -> (inputs list, labels list)."""

    def __init__(self, network, inputs=None, labels=None, split_batch=None):
        if not isinstance(network, Module):
            raise TypeError(f"Model: network must be a sampan.nn.Module, got {type(network).__name__}")
        if split_batch is not None and not callable(split_batch):
            raise TypeError(f"Model: split_batch must be callable (batch -> (inputs, labels)), got "
                            f"{type(split_batch).__name__}")
        if split_batch is not None and (inputs is not None or labels is not None):
            raise ValueError("Model: give either split_batch or inputs/labels, not both")
        self.network = network
        self._inputs = _count_spec(inputs, "inputs")
        self._labels = _count_spec(labels, "labels")
        self._split_batch = split_batch
        self._data_parallel = None
        self._optimizer = None
        self._loss = None
        self._metrics = []
        self.lr_scheduler = None
        self._parallel = None
        self.stop_training = False
        self.epoch = 0       # epochs completed by fit (a loaded checkpoint's count until fit resumes)
        self.step = 0        # optimizer steps taken
        self._pending = None  # a loaded checkpoint's state for the next fit
        self._amp = None         # prepare(amp=...): an AmpConfig
        self.grad_scaler = None  # its sp.amp.GradScaler (disabled for bfloat16)
        self._train_loader = None
        self._callbacks = []
        self._example_inputs = None

    # ---- set-up ----------------------------------------------------------------------------------

    def prepare(self, optimizer=None, loss=None, metrics=None, amp=None, lr_scheduler=None, data_parallel=None):
        """optimizer: an sp.optim.Optimizer over the network's parameters; loss: a callable
        ``loss(*outputs, *labels) -> scalar Tensor`` (sp.nn.functional.mse_loss, an nn loss
        module ...); metrics: an sp.metric.Metric or a list of them; lr_scheduler: an
        sp.optim.lr_scheduler schedule of the optimizer, stepped by the LRScheduler callback (after
        every step unless one with by_epoch is given). The loss may return None for a batch that
        gives no step (skipped). data_parallel: None (the default) trains data-parallel exactly
        when there are several MPI ranks; False trains every rank on its own, as one process.
        amp: mixed precision (sp.amp): None (float32), 'bfloat16', 'float16' (or sp dtypes, or
        Paddle's 'O1': the device's default), or a dict (dtype, loss_scaling, init_scale,
        growth_factor, backoff_factor, growth_interval, low_precision_ops, float32_ops). Forward
        passes and losses run under sp.amp.autocast; float16 steps go through a GradScaler whose
        state is saved in checkpoints; parameters stay float32."""
        amp_config = parse_amp(amp)
        if optimizer is not None and not isinstance(optimizer, Optimizer):
            raise TypeError(f"Model.prepare: optimizer must be a sampan.optim.Optimizer, got "
                            f"{type(optimizer).__name__}")
        if loss is not None and not callable(loss):
            raise TypeError(f"Model.prepare: loss must be callable (outputs, labels -> scalar), got "
                            f"{type(loss).__name__}")
        metrics = _as_list(metrics)
        for i, m in enumerate(metrics):
            if not isinstance(m, Metric):
                raise TypeError(f"Model.prepare: metrics[{i}] is a {type(m).__name__}, not a sampan.metric.Metric")
        if lr_scheduler is not None:
            if not isinstance(lr_scheduler, Schedule):
                raise TypeError(f"Model.prepare: lr_scheduler must be an sp.optim.lr_scheduler schedule, got "
                                f"{type(lr_scheduler).__name__}")
            if lr_scheduler.optimizer is not optimizer:
                raise ValueError("Model.prepare: lr_scheduler schedules another optimizer than the one given")
        if data_parallel is not None and not isinstance(data_parallel, bool):
            raise TypeError(f"Model.prepare: data_parallel must be None, True or False, got {data_parallel!r}")
        self._optimizer, self._loss, self._metrics, self.lr_scheduler = optimizer, loss, metrics, lr_scheduler
        self._amp = amp_config
        self.grad_scaler = amp_config.grad_scaler(self._device()) if amp_config is not None else None
        self._data_parallel = world_size() > 1 if data_parallel is None else (data_parallel and world_size() > 1)
        if self._data_parallel and self._parallel is None:
            self._parallel = DataParallel(self.network)
        elif not self._data_parallel:
            self._parallel = None
        if self._pending is not None:
            self._restore_optimizer(self._pending)

    def parameters(self, *args, **kwargs):
        """The network's parameters."""
        return self.network.parameters(*args, **kwargs)

    @property
    def optimizer(self):
        return self._optimizer

    def _ranks(self):
        """The ranks training together: world_size() when data-parallel, else 1."""
        if self._data_parallel is None:
            return world_size()
        return world_size() if self._data_parallel else 1

    def _metric_names(self):
        names = ["loss"] if self._loss is not None else []
        for m in self._metrics:
            names.extend(_as_list(m.name()))
        return names

    # ---- batches -----------------------------------------------------------------------------------

    def _split(self, batch, need_labels=True):
        """(inputs, labels) of a batch (see the module doc)."""
        if self._split_batch is not None:
            split = self._split_batch(batch)
            if not (isinstance(split, (list, tuple)) and len(split) == 2):
                raise TypeError(f"Model: split_batch must return (inputs, labels), got a {type(split).__name__}")
            return _as_list(split[0]), _as_list(split[1])
        if isinstance(batch, dict):
            if self._inputs is None or not all(isinstance(k, str) for k in self._inputs):
                raise TypeError("Model: a batch that is a dict needs Model(network, inputs=[keys], labels=[keys])")
            missing = [k for k in self._inputs + (self._labels or []) if k not in batch]
            if missing and (need_labels or any(k in self._inputs for k in missing)):
                raise KeyError(f"Model: the batch has no key {missing[0]!r} (it has {sorted(batch)})")
            return [batch[k] for k in self._inputs], [batch[k] for k in (self._labels or []) if k in batch]
        if not isinstance(batch, (list, tuple)):
            return [batch], []
        batch = list(batch)
        if self._inputs is not None:
            n = len(self._inputs)
        elif self._labels is not None:
            n = len(batch) - len(self._labels)
        else:
            n = len(batch) - 1 if len(batch) > 1 else 1
        if n < 0 or n > len(batch):
            raise ValueError(f"Model: a batch of {len(batch)} fields cannot hold {n} inputs")
        return batch[:n], batch[n:]

    def _device(self):
        """The device type of the network's parameters ('cpu' when it has none)."""
        return self._placement().split(":")[0]

    def _placement(self):
        """The device of the network's parameters ('cpu', 'cuda:0'; 'cpu' when it has none), where
        batches are placed."""
        for p in self.network.parameters():
            return str(p.device)
        return "cpu"

    def _precision(self):
        """The autocast scope of a forward pass and its loss (a no-op scope without amp)."""
        return self._amp.autocast(self._device()) if self._amp is not None else contextlib.nullcontext()

    def _forward(self, inputs):
        device = self._placement()
        inputs = [_to_tensor(x, device) for x in inputs]
        self._example_inputs = inputs
        call = self._parallel if self._parallel is not None else self.network
        with self._precision():
            return call(*inputs)

    def _update_metrics(self, outputs, labels, running=True):
        """Adds a batch to every metric; with ``running`` returns their values so far."""
        values = {}
        for m in self._metrics:
            m.update(*m.compute(*[o.detach() if isinstance(o, Tensor) else o for o in outputs], *labels))
            if running:
                for name, value in zip(_as_list(m.name()), _as_list(m.accumulate())):
                    values[name] = value
        return values

    def train_batch(self, inputs, labels=None, update=True):
        """One training step on a batch: forward, loss, backward (gradients averaged over MPI ranks),
        and with ``update`` an optimizer step. Returns {"loss": value, metric names: running values},
        or {} when the loss returned None (no step; under data parallelism when any rank's did)."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("Model.train_batch: call prepare(optimizer=..., loss=...) first")
        logs = self._train_step(_as_list(inputs), _as_list(labels), False, update, True)
        return {} if logs is None else logs

    def _train_step(self, inputs, labels, skip, update, metrics):
        """A step, or None when it is skipped: ``skip`` (this rank does not run the batch) or a loss
        of None; under data parallelism every rank learns whether any skips, and all skip."""
        self.network.train()
        labels = [_to_tensor(y, self._placement()) for y in labels]
        self._optimizer.zero_grad()
        outputs = loss = None
        if not skip:
            outputs = _as_list(self._forward(inputs))
            with self._precision():
                loss = self._loss(*outputs, *labels)
        if self._ranks() > 1:
            flag = make_tensor([0.0 if loss is not None else 1.0])
            if all_reduce(flag, "max").item() > 0:
                return None
        elif loss is None:
            return None
        loss = _loss_value(loss)
        scaler = self.grad_scaler
        (scaler.scale(loss) if scaler is not None else loss).backward()
        if self._parallel is not None:
            self._parallel.sync_gradients()
        if update:
            if scaler is not None:
                scaler.step(self._optimizer)  # skipped when a gradient overflowed
                scaler.update()
            else:
                self._optimizer.step()
            self.step += 1
        logs = {"loss": float(loss.item())}
        if metrics:
            logs.update(self._update_metrics(outputs, labels))
        return logs

    def eval_batch(self, inputs, labels=None, running=True):
        """The loss (when prepared with one and labels are given) and running metric values of a
        batch (``running=False``: the metrics take the batch but are not read), in eval mode
        without a tape."""
        self.network.eval()
        labels = [_to_tensor(y, self._placement()) for y in _as_list(labels)]
        with no_grad():
            outputs = _as_list(self._forward(_as_list(inputs)))
            logs = {}
            if self._loss is not None and labels:
                with self._precision():
                    loss = self._loss(*outputs, *labels)
                if loss is not None:
                    logs["loss"] = float(_loss_value(loss).item())
            logs.update(self._update_metrics(outputs, labels, running) if labels else {})
        return logs

    def predict_batch(self, inputs):
        """The network's output for a batch, in eval mode without a tape."""
        self.network.eval()
        with no_grad():
            return self._forward(_as_list(inputs))

    # ---- loops -------------------------------------------------------------------------------------

    def _loader(self, data, what, batch_size, shuffle, num_workers, seed, distributed):
        if _is_loader(data):
            return data
        if not _is_dataset(data):
            raise TypeError(f"Model.{what}: expected a sampan.io.Dataset (or a map-style dataset with "
                            f"__getitem__ and __len__), a sampan.io.DataLoader or an iterable of batches, got "
                            f"{type(data).__name__}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
            raise TypeError(f"Model.{what}: batch_size must be an int >= 1, got {batch_size!r}")
        if distributed:
            sampler = DistributedSampler(data, shuffle=shuffle, seed=seed)
            return DataLoader(data, batch_size, sampler=sampler, num_workers=num_workers)
        return DataLoader(data, batch_size, shuffle=shuffle, num_workers=num_workers, seed=seed)

    def _callback_list(self, callbacks, what, verbose, log_freq):
        callbacks = _as_list(callbacks)
        for i, c in enumerate(callbacks):
            if not isinstance(c, Callback):
                raise TypeError(f"Model.{what}: callbacks[{i}] is a {type(c).__name__}, not a "
                                "sampan.callbacks.Callback")
        if verbose and not any(isinstance(c, ProgressBar) for c in callbacks):
            callbacks = [ProgressBar(log_freq=log_freq, verbose=verbose)] + callbacks
        if self.lr_scheduler is not None and not any(isinstance(c, LRScheduler) for c in callbacks):
            callbacks.append(LRScheduler())
        cbks = CallbackList(callbacks)
        cbks.set_model(self)
        return cbks

    def fit(self, train_data, eval_data=None, epochs=1, batch_size=1, shuffle=True, callbacks=None, num_workers=0,
            verbose=1, seed=None, eval_freq=1, log_freq=10, max_batches=None, skip_batch=None, train_metrics=True):
        """Trains for epochs ``self.epoch .. epochs - 1``: from 0, or from a checkpoint's epoch after
        ``load``. train_data: a Dataset (batched here with batch_size, shuffle, num_workers and
        the shuffling seed: None draws one from the OS, kept in checkpoints; under MPI a
        DistributedSampler), a DataLoader, or another iterable of batches (used as they are; one
        with ``state_dict``/``load_state_dict`` has its state in checkpoints). eval_data (the same
        kinds) is evaluated every ``eval_freq`` epochs and after the last; its results enter the
        epoch's logs as eval_<name>. max_batches: at most this many batches per epoch (the rest of
        the epoch is not drawn). skip_batch(batch) -> True: no step on that batch (its network is
        not run; it counts towards max_batches). train_metrics=False leaves the metrics to the
        evaluations (for metrics that are costly per batch, a ROC-AUC over the whole set, say).
        verbose 0, 1, 2 and log_freq set the ProgressBar. Returns the list of every epoch's logs of
        this call."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("Model.fit: call prepare(optimizer=..., loss=...) first")
        for name, value, low in (("epochs", epochs, 0), ("eval_freq", eval_freq, 1), ("log_freq", log_freq, 1),
                                 ("num_workers", num_workers, 0)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
                raise TypeError(f"Model.fit: {name} must be an int >= {low}, got {value!r}")
        if max_batches is not None and (isinstance(max_batches, bool) or not isinstance(max_batches, numbers.Integral)
                                        or max_batches < 0):
            raise TypeError(f"Model.fit: max_batches must be None or an int >= 0, got {max_batches!r}")
        if skip_batch is not None and not callable(skip_batch):
            raise TypeError(f"Model.fit: skip_batch must be callable (batch -> bool), got {type(skip_batch).__name__}")
        if verbose not in (0, 1, 2):
            raise ValueError(f"Model.fit: verbose must be 0, 1 or 2, got {verbose!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
            raise TypeError(f"Model.fit: seed must be None or an int >= 0, got {seed!r}")
        pending, self._pending = self._pending, None
        ranks = self._ranks()
        if not _is_loader(train_data):
            if pending is not None and pending.get("loader_seed", -1) >= 0:
                seed = int(pending["loader_seed"])
            elif seed is None and shuffle:
                seed = fresh_seed()
                if ranks > 1:  # one order for all ranks: rank 0's
                    seed = int(broadcast(make_tensor([seed], dtype=_C.int64), 0).item())
            if ranks > 1 and seed is None:
                seed = 0  # no shuffling: the DistributedSampler's seed is unused
        loader = self._loader(train_data, "fit: train_data", batch_size, shuffle, num_workers, seed, ranks > 1)
        eval_loader = None if eval_data is None else self._loader(eval_data, "fit: eval_data", batch_size, False,
                                                                  num_workers, None, False)
        if pending is not None and pending.get("loader") is not None and hasattr(loader, "load_state_dict"):
            loader.load_state_dict(pending["loader"])
        self._train_loader = loader
        cbks = self._callback_list(callbacks, "fit", verbose, log_freq)
        self._callbacks = cbks.callbacks
        steps = _steps(loader)
        if steps is not None and max_batches is not None:
            steps = min(steps, int(max_batches))
        cbks.set_params({"epochs": epochs, "steps": steps, "verbose": verbose, "metrics": self._metric_names(),
                         "eval": eval_loader is not None, "in_fit": True})
        if pending is not None:
            self._restore_callbacks(pending, cbks.callbacks)
        start = int(pending["epoch"]) if pending is not None else 0
        self.epoch = start
        self.stop_training = False
        history = []
        logs = {}
        cbks.on_train_begin(logs)
        for epoch in range(start, epochs):
            if hasattr(loader, "set_epoch"):
                loader.set_epoch(epoch)
            cbks.on_epoch_begin(epoch, {})
            logs = self._train_epoch(loader, cbks, max_batches, skip_batch, train_metrics)
            self.epoch = epoch + 1
            if eval_loader is not None and ((epoch + 1) % eval_freq == 0 or epoch + 1 == epochs):
                results = self._evaluate(eval_loader, cbks)
                logs.update({f"eval_{k}": v for k, v in results.items()})
            history.append(dict(logs))
            cbks.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        cbks.on_train_end(logs)
        return history

    def _train_epoch(self, loader, cbks, max_batches=None, skip_batch=None, train_metrics=True):
        """One pass; a batch that gives no step gets on_train_batch_end with logs {"skipped": 1.0,
        "step": ...} and no loss. The epoch's loss is the mean over the steps' samples (a batch
        whose inputs hold no array counts as one sample: then the mean over steps)."""
        for m in self._metrics:
            m.reset()
        total, count, logs = 0.0, 0, {}
        for step, batch in enumerate(_first(loader, max_batches)):
            cbks.on_train_batch_begin(step, {})
            inputs, labels = self._split(batch)
            skip = skip_batch is not None and bool(skip_batch(batch))
            step_logs = self._train_step(inputs, labels, skip, True, train_metrics)
            if step_logs is None:
                cbks.on_train_batch_end(step, {"skipped": 1.0, "step": self.step})
                continue
            logs = step_logs
            n = _batch_size_of(inputs)
            total += logs["loss"] * n
            count += n
            logs = dict(logs, step=self.step)
            cbks.on_train_batch_end(step, logs)
        if self._ranks() > 1:
            sums = all_reduce(make_tensor([total, float(count)], dtype=_C.float64), "sum").tolist()
            total, count = sums[0], sums[1]
        logs = {k: v for k, v in logs.items() if k not in ("loss", "step")}
        logs = dict({"loss": total / count if count else float("nan")}, **logs, step=self.step)
        return logs

    def _evaluate(self, loader, cbks):
        for m in self._metrics:
            m.reset()
        cbks.on_eval_begin({})
        total, count, logs = 0.0, 0, {}
        for step, batch in enumerate(loader):
            cbks.on_eval_batch_begin(step, {})
            inputs, labels = self._split(batch)
            logs = self.eval_batch(inputs, labels, running=False)  # metrics are read once, at the end
            n = _batch_size_of(inputs)
            if "loss" in logs:
                total += logs["loss"] * n
                count += n
            cbks.on_eval_batch_end(step, logs)
        results = {}
        if count:
            results["loss"] = total / count
        for m in self._metrics:
            for name, value in zip(_as_list(m.name()), _as_list(m.accumulate())):
                results[name] = value
        cbks.on_eval_end(results)
        return results

    def evaluate(self, eval_data, batch_size=1, callbacks=None, num_workers=0, verbose=0):
        """{"loss": mean over samples (each batch's loss weighted by its size), metric names:
        values} over eval_data (a Dataset or DataLoader), in eval mode without a tape."""
        loader = self._loader(eval_data, "evaluate: eval_data", batch_size, False, num_workers, None, False)
        cbks = self._callback_list(callbacks, "evaluate", verbose, 10)
        cbks.set_params({"steps": _steps(loader), "verbose": verbose, "metrics": self._metric_names(), "eval": True})
        return self._evaluate(loader, cbks)

    def predict(self, test_data, batch_size=1, callbacks=None, num_workers=0, stack_outputs=False, verbose=0):
        """The network's outputs over test_data (a Dataset or DataLoader; the fields past the
        inputs, labels, are ignored): a list with one entry per batch, the network's output for
        it (a Tensor, or what the network returns). ``stack_outputs`` concatenates the batches
        into one tensor (a tuple of tensors for a network with several outputs)."""
        loader = self._loader(test_data, "predict: test_data", batch_size, False, num_workers, None, False)
        cbks = self._callback_list(callbacks, "predict", verbose, 10)
        cbks.set_params({"steps": _steps(loader), "verbose": verbose, "metrics": [], "eval": False})
        cbks.on_predict_begin({})
        outputs = []
        for step, batch in enumerate(loader):
            cbks.on_predict_batch_begin(step, {})
            inputs, _ = self._split(batch, need_labels=False)
            outputs.append(self.predict_batch(inputs))
            cbks.on_predict_batch_end(step, {})
        cbks.on_predict_end({})
        if stack_outputs and outputs:
            concat = importlib.import_module("sampan").concat
            if isinstance(outputs[0], (list, tuple)):
                return tuple(concat([o[i] for o in outputs], 0) for i in range(len(outputs[0])))
            return concat(outputs, 0)
        return outputs

    # ---- checkpoints -------------------------------------------------------------------------------

    def save(self, path, training=True):
        """training=True: a resumable checkpoint at ``path`` (one HDF5 file through sp.save,
        written to a temp file and renamed): ``checkpoint_state()``, that is the network's state,
        the optimizer's and the schedule's, epoch and step, every rank's sampan random stream, the
        training loader's shuffling state and the callbacks' states. ``load(path)`` then
        ``fit(...)`` continue exactly as a run that never stopped. Under MPI every rank calls it
        (the random streams are gathered) and rank 0 writes.

        training=False: the network in eval mode traced on the last batch it ran
        (sampan.jit.trace, the batch dimension symbolic), saved as a graph that sp.jit.load and
        C++ (sampan::jit::load, build/bin/sampan-run) run without this Python code."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Model.save: path must be a file path, got {type(path).__name__}")
        path = os.fspath(path)
        if not training:
            return self._save_inference(path)
        payload = self.checkpoint_state()
        if self.writes_checkpoints():
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, exist_ok=True)
            _C.save(payload, path)
        if self._ranks() > 1:
            barrier()

    def writes_checkpoints(self):
        """Whether this process writes checkpoints and logs: rank 0 under data parallelism, else
        every process."""
        return self._ranks() == 1 or process_rank() == 0

    def checkpoint_state(self):
        """What ``save`` writes, as a dict (kind "sampan.Model"): for a caller that writes its own
        checkpoint file with more fields beside these and resumes with ``load_checkpoint_state``.
        Under data parallelism every rank must call it (the random streams are gathered); every
        rank gets the whole dict."""
        seed, offset = _C.default_generator().get_state()
        streams = all_gather_str(f"{seed} {offset}") if self._ranks() > 1 else [f"{seed} {offset}"]
        loader_state = None
        if self._train_loader is not None and hasattr(self._train_loader, "state_dict"):
            loader_state = self._train_loader.state_dict()
        loader_seed = getattr(self._train_loader, "seed", None)
        sampler = getattr(self._train_loader, "sampler", None)
        if loader_seed is None and isinstance(sampler, DistributedSampler):
            loader_seed = sampler.seed
        if not isinstance(loader_seed, numbers.Integral) or isinstance(loader_seed, bool):
            loader_seed = None
        payload = {"kind": CHECKPOINT_KIND, "network": self.network.state_dict(), "epoch": int(self.epoch),
                   "step": int(self.step), "rng": streams, "world_size": len(streams), "loader": loader_state,
                   "loader_seed": -1 if loader_seed is None else int(loader_seed),
                   "callbacks": _callback_states(self._callbacks)}
        if self._optimizer is not None:
            payload["optimizer"] = self._optimizer.state_dict()
        if self.lr_scheduler is not None:
            payload["lr_scheduler"] = self.lr_scheduler.state_dict()
        if self.grad_scaler is not None and self.grad_scaler.is_enabled():
            payload["grad_scaler"] = self.grad_scaler.state_dict()
        return payload

    def _save_inference(self, path):
        from ..jit import trace  # noqa: PLC0415 (jit loads only for inference graphs)
        if self._example_inputs is None:
            raise RuntimeError("Model.save(training=False): run the model on a batch first (fit, evaluate, "
                               "predict): tracing needs example inputs")
        self.network.eval()
        inputs = tuple(self._example_inputs)
        # The batch dimension (0) of every input is one symbolic size: any batch replays.
        dynamic = {i: {0: "batch"} for i, t in enumerate(inputs) if t.ndim > 0}
        trace(self.network, inputs, dynamic_dims=dynamic).save(path)

    def load(self, path, reset_optimizer=False):
        """Loads a checkpoint of ``save``: the network's state at once, the optimizer's and the
        schedule's (now, or at prepare when not prepared yet; not with reset_optimizer), and the
        rest (epoch, random streams, loader, callbacks) for the next ``fit``, which resumes at the
        saved epoch. A file holding a plain state dict (sp.save(network.state_dict(), path)) loads
        the network's weights only."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Model.load: path must be a file path, got {type(path).__name__}")
        payload = _C.load(os.fspath(path))
        if not isinstance(payload, dict):
            raise ValueError(f"{os.fspath(path)}: holds a {type(payload).__name__}, not a sampan.Model checkpoint "
                             "or a state dict")
        if payload.get("kind") != CHECKPOINT_KIND:
            self.network.load_state_dict(payload)
            return
        self.load_checkpoint_state(payload, reset_optimizer)

    def load_checkpoint_state(self, payload, reset_optimizer=False):
        """Resumes from a dict of ``checkpoint_state`` (its "kind" is not checked: the caller's
        file may have its own, and more fields, which are ignored here): as ``load``."""
        missing = [k for k in ("network", "epoch", "step", "rng") if k not in payload]
        if missing:
            raise ValueError(f"Model.load_checkpoint_state: not a sampan.Model checkpoint state (no {missing[0]!r})")
        self.network.load_state_dict(payload["network"])
        self.epoch, self.step = int(payload["epoch"]), int(payload["step"])
        streams = list(payload["rng"])
        seed, offset = (int(v) for v in streams[process_rank() % len(streams)].split())
        _C.default_generator().set_state((seed, offset))
        if reset_optimizer:
            payload = {k: v for k, v in payload.items() if k not in ("optimizer", "lr_scheduler", "grad_scaler")}
        self._pending = payload
        if self._optimizer is not None:
            self._restore_optimizer(payload)

    def _restore_optimizer(self, payload):
        if "optimizer" in payload and self._optimizer is not None:
            self._optimizer.load_state_dict(payload["optimizer"])
        if "lr_scheduler" in payload and self.lr_scheduler is not None:
            self.lr_scheduler.load_state_dict(payload["lr_scheduler"])
        if "grad_scaler" in payload and self.grad_scaler is not None:
            self.grad_scaler.load_state_dict(payload["grad_scaler"])

    @staticmethod
    def _restore_callbacks(payload, callbacks):
        saved = payload.get("callbacks") or {}
        for key, c in _callback_keys(callbacks):
            state = saved.get(key)
            if state is not None:
                c.load_state_dict(state)


def _callback_keys(callbacks):
    """(key, callback): the key is the class name and the how-manieth of that class it is
    ("CSVLogger:0"), so that a callback finds its state again among other callbacks."""
    seen = {}
    for c in callbacks:
        name = type(c).__name__
        seen[name] = seen.get(name, -1) + 1
        yield f"{name}:{seen[name]}", c


def _callback_states(callbacks):
    return {key: c.state_dict() for key, c in _callback_keys(callbacks)}
