"""Samplers: the order in which a DataLoader visits a dataset's indices.

Shuffled orders come from :func:`permutation`, a function of (n, seed, epoch) only: NumPy's PCG64
bit stream (whose output for a seed NumPy keeps stable across versions and platforms) seeded with
``SeedSequence([seed, epoch])`` gives one 64-bit key per index, and a stable argsort of the keys
is the order. So a seed gives the same order on every machine and every rank, and epoch k of a
resumed run the same order as epoch k of a run that was never interrupted.
"""
import math
import numbers
import secrets

import numpy as np

from .. import _C


def permutation(n, seed, epoch=0):
    """A permutation of 0 .. n-1 (int64 array) determined by (seed, epoch)."""
    n, seed, epoch = _count(n, "n"), _count(seed, "seed"), _count(epoch, "epoch")
    keys = np.random.PCG64(np.random.SeedSequence([seed, epoch])).random_raw(n)
    return np.argsort(keys, kind="stable").astype(np.int64)


def fresh_seed():
    """A seed from the operating system's entropy (63 bits, so that a checkpoint can store it)."""
    return secrets.randbits(63)


def _count(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise TypeError(f"{name} must be an int >= 0, got {value!r}")
    return int(value)


class Sampler:
    """The base class: ``__iter__`` yields dataset indices, ``__len__`` says how many.
    ``set_epoch(k)`` (optional) selects epoch k's order; ``state_dict``/``load_state_dict``
    (optional) let a checkpoint resume it."""

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(dataset) - 1."""

    def __init__(self, dataset):
        self.dataset = dataset

    def __iter__(self):
        return iter(range(len(self.dataset)))

    def __len__(self):
        return len(self.dataset)


class RandomSampler(Sampler):
    """A new permutation every epoch: ``permutation(len(dataset), seed, epoch)``. The epoch is the
    one ``set_epoch`` selected, else it counts the iterations begun (0, 1, ...). seed None takes
    one from the OS (kept in ``seed``, so a checkpoint still resumes the order)."""

    def __init__(self, dataset, seed=None):
        self.dataset = dataset
        self.seed = fresh_seed() if seed is None else _count(seed, "RandomSampler: seed")
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = _count(epoch, "set_epoch: epoch")

    def __iter__(self):
        order = permutation(len(self.dataset), self.seed, self.epoch)
        self.epoch += 1
        return iter(order.tolist())

    def __len__(self):
        return len(self.dataset)

    def state_dict(self):
        return {"seed": self.seed, "epoch": self.epoch}

    def load_state_dict(self, state):
        self.seed = _count(state["seed"], "RandomSampler: seed")
        self.epoch = _count(state["epoch"], "RandomSampler: epoch")


class DistributedSampler(Sampler):
    """This rank's share of a dataset, as PyTorch's DistributedSampler: the (shuffled, with
    ``permutation(n, seed, epoch)``, the same on every rank) order is padded by repeating its
    first indices to a multiple of ``num_replicas`` (or cut to one with ``drop_last``), and rank r
    takes every num_replicas-th index from r. So the shares are disjoint (but for the padding),
    of equal length ``ceil(n / num_replicas)`` (``floor`` with drop_last), and cover the dataset.
    ``num_replicas`` and ``rank`` default to sp.distributed's world size and rank. Call
    ``set_epoch(k)`` before each epoch (a DataLoader's ``set_epoch`` forwards it) for a new order."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _C.distributed.world_size()
        if rank is None:
            rank = _C.distributed.rank()
        if isinstance(num_replicas, bool) or not isinstance(num_replicas, numbers.Integral) or num_replicas < 1:
            raise ValueError(f"DistributedSampler: num_replicas must be an int >= 1, got {num_replicas!r}")
        if isinstance(rank, bool) or not isinstance(rank, numbers.Integral) or not 0 <= rank < num_replicas:
            raise ValueError(f"DistributedSampler: rank must be an int in [0, {num_replicas - 1}], got {rank!r}")
        self.dataset = dataset
        self.num_replicas, self.rank = int(num_replicas), int(rank)
        self.shuffle, self.drop_last = bool(shuffle), bool(drop_last)
        self.seed = _count(seed, "DistributedSampler: seed")
        self.epoch = 0
        n = len(dataset)
        if self.drop_last and n % self.num_replicas:
            self.num_samples = n // self.num_replicas
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas

    def set_epoch(self, epoch):
        self.epoch = _count(epoch, "set_epoch: epoch")

    def indices(self):
        """This rank's indices for the current epoch (a list)."""
        n = len(self.dataset)
        order = permutation(n, self.seed, self.epoch) if self.shuffle else np.arange(n, dtype=np.int64)
        if self.total_size > n:  # pad with the first indices (again and again when n is tiny)
            order = np.concatenate([order] * math.ceil(self.total_size / max(n, 1)))[:self.total_size]
        else:
            order = order[:self.total_size]
        return order[self.rank:self.total_size:self.num_replicas].tolist()

    def __iter__(self):
        return iter(self.indices())

    def __len__(self):
        return self.num_samples

    def state_dict(self):
        return {"seed": self.seed, "epoch": self.epoch}

    def load_state_dict(self, state):
        self.seed = _count(state["seed"], "DistributedSampler: seed")
        self.epoch = _count(state["epoch"], "DistributedSampler: epoch")
