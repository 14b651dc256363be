"""DataLoader: batches of a map-style dataset, in the main process or in worker processes.

A batch is ``collate_fn([dataset[i] for i in indices])`` (``default_collate`` unless given) over
consecutive runs of ``batch_size`` indices from the sampler: sequential, a seeded shuffle
(``shuffle=True``; see sampan.io.sampler), or the ``sampler`` given (a DistributedSampler under
MPI). With ``num_workers > 0`` worker processes (forked where the platform allows it, each with
one compute thread) load and collate batches ahead; they arrive in order and equal the batches of
``num_workers=0``. An exception in a worker is raised again in the main process, with the same
type, naming the dataset index and the worker's traceback.
"""
import numbers
import queue as queue_module
import traceback

from .. import _C
from .collate import CollateError, default_collate
from .sampler import RandomSampler, SequentialSampler, fresh_seed


class DataLoader:
    """Iterates over ``dataset`` in batches (see the module doc).

    dataset: a map-style dataset (``__getitem__`` and ``__len__``; sampan.io.Dataset).
    batch_size: samples per batch; ``drop_last`` leaves out a last, smaller batch.
    shuffle, seed: a new permutation each epoch, ``permutation(len, seed, epoch)``; the epoch is
    the one ``set_epoch(k)`` set, else the number of iterations begun. seed None draws one from
    the OS (the order then differs between runs, and ``state_dict()`` still resumes it).
    sampler: an iterable of indices instead (not with shuffle); ``set_epoch`` is forwarded to it.
    collate_fn: list of samples -> batch (default_collate). num_workers: worker processes (0: the
    main process). worker_init_fn(worker_id): called in each worker after it starts.
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None, num_workers=0,
                 seed=None, sampler=None, worker_init_fn=None, prefetch_factor=2):
        if not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(f"DataLoader: dataset must be a map-style dataset (with __getitem__ and __len__, "
                            f"e.g. sampan.io.Dataset), got {type(dataset).__name__}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
            raise TypeError(f"DataLoader: batch_size must be an int >= 1, got {batch_size!r}")
        if isinstance(num_workers, bool) or not isinstance(num_workers, numbers.Integral) or num_workers < 0:
            raise TypeError(f"DataLoader: num_workers must be an int >= 0, got {num_workers!r}")
        if isinstance(prefetch_factor, bool) or not isinstance(prefetch_factor, numbers.Integral) or prefetch_factor < 1:
            raise TypeError(f"DataLoader: prefetch_factor must be an int >= 1, got {prefetch_factor!r}")
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: collate_fn must be callable, got {type(collate_fn).__name__}")
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise TypeError(f"DataLoader: worker_init_fn must be callable, got {type(worker_init_fn).__name__}")
        if sampler is not None:
            if shuffle:
                raise ValueError("DataLoader: give either sampler or shuffle=True, not both (the sampler "
                                 "decides the order)")
            if not hasattr(sampler, "__iter__"):
                raise TypeError(f"DataLoader: sampler must be an iterable of indices, got {type(sampler).__name__}")
        elif shuffle:
            sampler = RandomSampler(dataset, fresh_seed() if seed is None else seed)
        else:
            sampler = SequentialSampler(dataset)
        self.dataset = dataset
        self.batch_size = int(batch_size)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.collate_fn = collate_fn
        self.num_workers = int(num_workers)
        self.sampler = sampler
        self.worker_init_fn = worker_init_fn
        self.prefetch_factor = int(prefetch_factor)
        self.epoch = 0

    @property
    def seed(self):
        """The shuffling seed (None when the sampler has none)."""
        return getattr(self.sampler, "seed", None)

    def set_epoch(self, epoch):
        """The next iteration gives epoch ``epoch``'s order (forwarded to the sampler)."""
        if isinstance(epoch, bool) or not isinstance(epoch, numbers.Integral) or epoch < 0:
            raise TypeError(f"DataLoader.set_epoch: epoch must be an int >= 0, got {epoch!r}")
        self.epoch = int(epoch)
        if hasattr(self.sampler, "set_epoch"):
            self.sampler.set_epoch(self.epoch)

    def state_dict(self):
        """What resumes the order: the epoch and the sampler's state (its seed)."""
        state = {"epoch": self.epoch}
        if hasattr(self.sampler, "state_dict"):
            state["sampler"] = self.sampler.state_dict()
        return state

    def load_state_dict(self, state):
        if "sampler" in state and hasattr(self.sampler, "load_state_dict"):
            self.sampler.load_state_dict(state["sampler"])
        self.epoch = int(state["epoch"])

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def batches_of_indices(self):
        """The index lists of this iteration's batches (advances the epoch, as iterating does)."""
        indices = list(self.sampler)
        self.epoch += 1
        if self.drop_last:
            indices = indices[:len(indices) - len(indices) % self.batch_size]
        return [indices[i:i + self.batch_size] for i in range(0, len(indices), self.batch_size)]

    def __iter__(self):
        batches = self.batches_of_indices()
        if self.num_workers == 0:
            return (fetch(self.dataset, self.collate_fn, b) for b in batches)
        return _worker_iterator(self, batches)


def fetch(dataset, collate_fn, indices):
    """collate_fn([dataset[i] for i in indices]); an error names the dataset index it concerns."""
    samples = []
    for i in indices:
        try:
            samples.append(dataset[i])
        except Exception as err:
            raise _renamed(err, f"dataset[{i}] raised {type(err).__name__}: {err}") from err
    if collate_fn is not None:
        return collate_fn(samples)
    try:
        return default_collate(samples)
    except CollateError as err:
        a, b = (indices[p] for p in err.positions)
        where = f" in field {err.field}" if err.field else ""
        raise ValueError(f"DataLoader: dataset[{a}] and dataset[{b}] differ{where}: {err.detail} (the "
                         "default collate stacks equal shapes; give collate_fn= to batch others)") from None


def _renamed(err, message):
    """An exception of err's type (err: an exception or its class) with `message` (a RuntimeError
    when that type cannot be built so). Types whose str() is not their message (KeyError quotes
    it) get a subclass that shows it."""
    cls = err if isinstance(err, type) else type(err)
    try:
        new = cls(message)
    except Exception:
        return RuntimeError(message)
    if str(new) != message:
        try:
            shown = type(cls.__name__, (cls,), {"__str__": lambda self: self.args[0], "__module__": cls.__module__})
            new = shown(message)
        except Exception:
            return RuntimeError(message)
    return new


# ---- worker processes ----------------------------------------------------------------------------

def _worker_loop(dataset, collate_fn, tasks, results, worker_id, base_seed, init_fn):
    _C.set_num_threads(1)  # several workers share the cores; an OpenMP pool per worker would oversubscribe
    _C.manual_seed((base_seed + worker_id) % (1 << 63))
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception as err:
        results.put((-1, None, (err, f"worker_init_fn({worker_id}) raised {type(err).__name__}: {err}",
                                traceback.format_exc())))
        return
    while True:
        task = tasks.get()
        if task is None:
            return
        number, indices = task
        try:
            results.put((number, fetch(dataset, collate_fn, indices), None))
        except Exception as err:  # sent back whole; a type that does not pickle goes as its text
            message = err.args[0] if len(err.args) == 1 and isinstance(err.args[0], str) else str(err)
            results.put((number, None, (_picklable(err), message, traceback.format_exc())))


def _picklable(err):
    """The first class of err's type and its bases that pickles (by name), or None."""
    import pickle
    for cls in type(err).__mro__:
        try:
            if pickle.loads(pickle.dumps(cls)) is cls and issubclass(cls, Exception):
                return cls
        except Exception:
            continue
    return None


def _worker_iterator(loader, batches):
    import multiprocessing as mp
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else methods[0])
    tasks, results = ctx.Queue(), ctx.Queue()
    base_seed = fresh_seed()
    workers = [ctx.Process(target=_worker_loop, daemon=True,
                           args=(loader.dataset, loader.collate_fn, tasks, results, w, base_seed,
                                 loader.worker_init_fn))
               for w in range(loader.num_workers)]
    for w in workers:
        w.start()
    try:
        sent, ahead, done = 0, loader.num_workers * loader.prefetch_factor, {}
        for number in range(len(batches)):
            while sent < len(batches) and sent < number + ahead:
                tasks.put((sent, batches[sent]))
                sent += 1
            while number not in done:
                try:
                    got, batch, error = results.get(timeout=1.0)
                except queue_module.Empty:
                    dead = [(k, w.exitcode) for k, w in enumerate(workers) if not w.is_alive()]
                    if dead:
                        raise RuntimeError(f"DataLoader: worker {dead[0][0]} (pid {workers[dead[0][0]].pid}) exited "
                                           f"unexpectedly with exit code {dead[0][1]}") from None
                    continue
                if error is not None:
                    original, message, trace = error
                    text = f"DataLoader worker process: {message}\n\nthe worker's traceback:\n{trace}"
                    raise (_renamed(original, text) if original is not None else RuntimeError(text))
                done[got] = batch
            yield done.pop(number)
    finally:
        for _ in workers:
            tasks.put(None)
        for w in workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()
                w.join(timeout=5)
        tasks.close()
        results.close()


