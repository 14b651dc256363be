"""Callbacks of ``sp.Model.fit``, ``evaluate`` and ``predict`` (``sp.callbacks``), in the spirit of
``paddle.callbacks``.

A callback overrides the hooks it needs; each receives ``logs``, a dict of floats (``loss``,
metric names, ``eval_*`` after an evaluation, ``epoch``, ``step``)::

    class Print(sp.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            print(epoch, logs["loss"])

    model.fit(data, epochs=3, callbacks=[Print(), sp.callbacks.CSVLogger("log.csv")])

Epochs are numbered from 0 in the hooks. ``self.model`` is the sp.Model, ``self.params`` a dict
(epochs, steps per epoch or None, verbose, metrics: the log names, eval: whether fit evaluates).
A callback with state that a resumed run needs defines ``state_dict()`` / ``load_state_dict()``;
``Model.save`` stores it and ``Model.load`` hands it back to the callback of the same class and
position in the next ``fit``. Under MPI every rank runs the callbacks; those that write files
(ModelCheckpoint, CSVLogger, JSONLogger) and ProgressBar act on rank 0 only.
"""
import json
import math
import numbers
import os
import sys

from .distributed import rank as process_rank

__all__ = ["Callback", "CallbackList", "ProgressBar", "ModelCheckpoint", "EarlyStopping", "LRScheduler",
           "CSVLogger", "JSONLogger"]


class Callback:
    """The base class: every hook does nothing."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = dict(params)

    def state_dict(self):
        """What a resumed run needs of this callback (stored by Model.save)."""
        return {}

    def load_state_dict(self, state):
        pass

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, step, logs=None): pass
    def on_train_batch_end(self, step, logs=None): pass
    def on_eval_begin(self, logs=None): pass
    def on_eval_end(self, logs=None): pass
    def on_eval_batch_begin(self, step, logs=None): pass
    def on_eval_batch_end(self, step, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_predict_batch_begin(self, step, logs=None): pass
    def on_predict_batch_end(self, step, logs=None): pass


_HOOKS = [name for name in vars(Callback) if name.startswith("on_")]


class CallbackList:
    """Calls each hook of every callback in order."""

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def __getattr__(self, name):
        if name not in _HOOKS:
            raise AttributeError(name)

        def call(*args, **kwargs):
            for c in self.callbacks:
                getattr(c, name)(*args, **kwargs)
        return call

    def __iter__(self):
        return iter(self.callbacks)


def _format(logs, keys=None):
    items = []
    for k, v in logs.items():
        if keys is not None and k not in keys:
            continue
        if isinstance(v, float):
            items.append(f"{k} {v:.4g}")
        elif isinstance(v, (list, tuple)):
            items.append(f"{k} " + " ".join(f"{x:.4g}" for x in v))
        else:
            items.append(f"{k} {v}")
    return " - ".join(items)


class ProgressBar(Callback):
    """Progress of training and evaluation. verbose 0: silent; 1: a tqdm bar per epoch (where tqdm
    is installed and ``use_tqdm``), else a line every ``log_freq`` steps; 2: one line per epoch.
    Lines go to ``file`` (sys.stdout by default; tqdm's bar to sys.stderr). Rank 0 only."""

    def __init__(self, log_freq=10, verbose=1, file=None, use_tqdm=True):
        super().__init__()
        if isinstance(log_freq, bool) or not isinstance(log_freq, numbers.Integral) or log_freq < 1:
            raise ValueError(f"ProgressBar: log_freq must be an int >= 1, got {log_freq!r}")
        if verbose not in (0, 1, 2):
            raise ValueError(f"ProgressBar: verbose must be 0, 1 or 2, got {verbose!r}")
        self.log_freq, self.verbose, self.file = int(log_freq), verbose, file
        self._tqdm = None
        if use_tqdm and verbose == 1:
            try:
                from tqdm.auto import tqdm
                self._tqdm = tqdm
            except ImportError:
                pass
        self._bar = None

    def _active(self):
        return self.verbose > 0 and process_rank() == 0

    def _print(self, text):
        print(text, file=self.file or sys.stdout, flush=True)

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch
        if not self._active():
            return
        epochs = self.params.get("epochs")
        self._title = f"Epoch {epoch + 1}/{epochs}" if epochs else f"Epoch {epoch + 1}"
        if self._tqdm is not None:
            self._bar = self._tqdm(total=self.params.get("steps"), desc=self._title, leave=True,
                                   file=self.file or sys.stderr)
        elif self.verbose == 1:
            self._print(self._title)

    def on_train_batch_end(self, step, logs=None):
        if not self._active():
            return
        logs = logs or {}
        if self._bar is not None:
            self._bar.update(1)
            if (step + 1) % self.log_freq == 0:
                self._bar.set_postfix_str(_format(logs, self.params.get("metrics")))
        elif self.verbose == 1 and (step + 1) % self.log_freq == 0:
            steps = self.params.get("steps")
            self._print(f"step {step + 1}/{steps if steps else '?'} - {_format(logs, self.params.get('metrics'))}")

    def on_epoch_end(self, epoch, logs=None):
        if not self._active():
            return
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        self._print(f"{self._title} - {_format(logs or {}, None)}")

    def on_eval_end(self, logs=None):
        if self._active() and not self.params.get("in_fit", False):
            self._print(f"Eval - {_format(logs or {})}")


class ModelCheckpoint(Callback):
    """Every ``save_freq`` epochs writes ``save_dir/epoch<N>.h5`` (N: epochs completed) and at the
    end of training ``save_dir/final.h5``, through ``Model.save`` (resumable checkpoints, written
    to a temp file and renamed). Rank 0 writes (every rank takes part: the random streams of all
    ranks are gathered)."""

    def __init__(self, save_dir, save_freq=1):
        super().__init__()
        if not isinstance(save_dir, (str, os.PathLike)):
            raise TypeError(f"ModelCheckpoint: save_dir must be a path, got {type(save_dir).__name__}")
        if isinstance(save_freq, bool) or not isinstance(save_freq, numbers.Integral) or save_freq < 1:
            raise ValueError(f"ModelCheckpoint: save_freq must be an int >= 1, got {save_freq!r}")
        self.save_dir, self.save_freq = os.fspath(save_dir), int(save_freq)

    def path(self, name):
        return os.path.join(self.save_dir, f"{name}.h5")

    def on_epoch_end(self, epoch, logs=None):
        if (epoch + 1) % self.save_freq == 0:
            self.model.save(self.path(f"epoch{epoch + 1}"))

    def on_train_end(self, logs=None):
        self.model.save(self.path("final"))


_HIGHER_IS_BETTER = ("acc", "auc", "precision", "recall", "f1", "r2")


class EarlyStopping(Callback):
    """Stops training when ``monitor`` has not improved for more than ``patience`` checks.

    The checks are the evaluations of fit (the logs of ``on_eval_end``: "loss" is the evaluation
    loss, as in paddle.callbacks.EarlyStopping) when fit has eval_data, else the training logs of
    each epoch. mode 'min', 'max' or 'auto' (max for names holding acc, auc, precision, recall,
    f1, r2; else min). An improvement must beat the best value by more than ``min_delta``;
    ``baseline``, when given, is the value to beat at first. With ``save_best_model`` the
    network's weights at the best check are kept in ``best_state`` (and written to
    ``save_dir/best_model.h5`` through Model.save when save_dir is given), and with
    ``restore_best_weights`` loaded back into the network when training ends (stopped or not).
    ``patience=None`` never stops: the callback then only keeps the best check. ``best_epoch``
    is the epoch (from 0) of the best check, ``stopped_epoch`` the epoch (from 0) after which
    training stopped, or None."""

    def __init__(self, monitor="loss", mode="auto", patience=0, min_delta=0, baseline=None, save_best_model=True,
                 save_dir=None, restore_best_weights=False):
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"EarlyStopping: monitor must be a log name (str), got {type(monitor).__name__}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got {mode!r}")
        if patience is not None and (isinstance(patience, bool) or not isinstance(patience, numbers.Integral)
                                     or patience < 0):
            raise ValueError(f"EarlyStopping: patience must be None or an int >= 0, got {patience!r}")
        if restore_best_weights and not save_best_model:
            raise ValueError("EarlyStopping: restore_best_weights needs save_best_model=True")
        if mode == "auto":
            mode = "max" if any(word in monitor.lower() for word in _HIGHER_IS_BETTER) else "min"
        self.monitor, self.mode = monitor, mode
        self.patience = None if patience is None else int(patience)
        self.restore_best_weights = bool(restore_best_weights)
        self.min_delta = abs(float(min_delta))
        self.baseline = None if baseline is None else float(baseline)
        self.save_best_model, self.save_dir = bool(save_best_model), save_dir
        self.best_state = None
        self._reset()

    def _reset(self):
        self.wait = 0
        self.best_value = self.baseline if self.baseline is not None else (math.inf if self.mode == "min" else -math.inf)
        self.best_epoch = None
        self.stopped_epoch = None
        self.epoch = 0

    def _improved(self, value):
        if self.mode == "min":
            return value < self.best_value - self.min_delta
        return value > self.best_value + self.min_delta

    def on_train_begin(self, logs=None):
        if not getattr(self, "_resumed", False):
            self._reset()
        self._resumed = False

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_eval_end(self, logs=None):
        if self.params.get("eval"):
            self._check(logs or {})

    def on_epoch_end(self, epoch, logs=None):
        if not self.params.get("eval"):
            self._check(logs or {})

    def _check(self, logs):
        if self.monitor not in logs:
            raise KeyError(f"EarlyStopping: monitor {self.monitor!r} is not in the logs (they hold "
                           f"{sorted(logs)})")
        value = logs[self.monitor]
        value = float(value[0] if isinstance(value, (list, tuple)) else value)
        if self._improved(value):
            self.best_value, self.best_epoch, self.wait = value, self.epoch, 0
            if self.save_best_model:
                self.best_state = {k: v.detach().clone() for k, v in self.model.network.state_dict().items()}
                if self.save_dir is not None:
                    self.model.save(os.path.join(os.fspath(self.save_dir), "best_model.h5"))
        else:
            self.wait += 1
        if self.patience is not None and self.wait > self.patience:
            self.stopped_epoch = self.epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.restore_best_weights and self.best_state is not None:
            self.model.network.load_state_dict(self.best_state)

    def state_dict(self):
        state = {"wait": self.wait, "best_value": self.best_value, "epoch": self.epoch,
                 "best_epoch": -1 if self.best_epoch is None else self.best_epoch}
        if self.best_state is not None:
            state["best_state"] = self.best_state
        return state

    def load_state_dict(self, state):
        self.wait, self.best_value = int(state["wait"]), float(state["best_value"])
        self.epoch = int(state["epoch"])
        self.best_epoch = None if int(state["best_epoch"]) < 0 else int(state["best_epoch"])
        self.best_state = state.get("best_state")
        self.stopped_epoch = None
        self._resumed = True


class LRScheduler(Callback):
    """Steps a learning-rate schedule (sp.optim.lr_scheduler) after every optimizer step
    (``by_step``, the default) or after every epoch (``by_epoch``). The schedule is ``scheduler``,
    or the one given to ``Model.prepare(lr_scheduler=...)``; without one this does nothing. fit
    adds one by default when the model has a schedule and no LRScheduler callback is given."""

    def __init__(self, by_step=True, by_epoch=False, scheduler=None):
        super().__init__()
        if by_step == by_epoch:
            raise ValueError("LRScheduler: exactly one of by_step and by_epoch must be True")
        self.by_step, self.by_epoch, self.scheduler = bool(by_step), bool(by_epoch), scheduler

    def _schedule(self):
        return self.scheduler if self.scheduler is not None else getattr(self.model, "lr_scheduler", None)

    def on_train_batch_end(self, step, logs=None):
        if self.by_step and self._schedule() is not None:
            self._schedule().step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch and self._schedule() is not None:
            self._schedule().step()


def _row(epoch, logs):
    row = {"epoch": epoch + 1}
    for k, v in (logs or {}).items():
        if isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                row[f"{k}_{i}"] = float(x)
        elif isinstance(v, numbers.Number):
            row[k] = float(v) if not isinstance(v, numbers.Integral) else int(v)
    return row


def _write_atomic(path, text):
    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class _EpochLogger(Callback):
    """One record per epoch (epoch counted from 1, then the epoch's logs), the whole file rewritten
    through a temp file and a rename after each epoch. The records are part of the callback's
    state, so a run resumed from a checkpoint rewrites the file with exactly its epochs."""

    def __init__(self, path):
        super().__init__()
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{type(self).__name__}: path must be a file path, got {type(path).__name__}")
        self.path = os.fspath(path)
        self.rows = []

    def on_train_begin(self, logs=None):
        if not getattr(self, "_resumed", False):
            self.rows = []
        self._resumed = False

    def on_epoch_end(self, epoch, logs=None):
        self.rows.append(_row(epoch, logs))
        if process_rank() == 0:
            _write_atomic(self.path, self.render(self.rows))

    def state_dict(self):
        return {"rows": [dict(r) for r in self.rows]}

    def load_state_dict(self, state):
        self.rows = [dict(r) for r in state.get("rows", [])]
        self._resumed = True


class CSVLogger(_EpochLogger):
    """A CSV file, one row per epoch: a header ``epoch,loss,...`` (the keys in the order they first
    appear; a key missing from a row is left empty), then the values."""

    def __init__(self, path, separator=","):
        super().__init__(path)
        self.separator = separator

    def render(self, rows):
        keys = []
        for r in rows:
            keys.extend(k for k in r if k not in keys)
        lines = [self.separator.join(keys)]
        for r in rows:
            lines.append(self.separator.join("" if k not in r else repr(r[k]) for k in keys))
        return "\n".join(lines) + "\n"


class JSONLogger(_EpochLogger):
    """JSON Lines: one object per epoch (``{"epoch": 1, "loss": 0.5, ...}``) per line."""

    def render(self, rows):
        return "".join(json.dumps(r) + "\n" for r in rows)
