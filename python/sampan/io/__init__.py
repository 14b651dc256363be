"""Checkpoints (``sp.save``, ``sp.load``) and data loading (``Dataset``, ``DataLoader``, samplers).

Checkpoints: ``sp.save(obj, path)`` and ``sp.load(path, map_location=None)``. ``obj`` is a Tensor, a Python scalar
(int, float, bool, str, None) or a list, tuple or dict (str keys) of these, nested: a model's
``state_dict()``, an optimizer's, and training metadata in one file. The file is HDF5 (readable
with h5py; the layout is described in framework/include/sampan/io.h) and is written atomically: a
crash or a failed save never leaves a partial file, and the previous file survives. Errors are
OSError naming the path (missing, truncated, not HDF5, not written by sampan) and
TypeError/ValueError naming the value that cannot be stored (``obj['model'][2]``).

Data: a map-style :class:`Dataset` (``__getitem__``, ``__len__``; :class:`TensorDataset` over
tensors or arrays), a :class:`DataLoader` that batches it (seeded shuffling, the same order on
every machine; worker processes; :func:`default_collate` stacks tensors, numbers and arrays and
recurses into tuples, lists and dicts), and :class:`DistributedSampler`, each MPI rank's disjoint
share::

    data = sp.io.TensorDataset(x, y)                      # x [N, ...], y [N, ...]
    loader = sp.io.DataLoader(data, batch_size=32, shuffle=True, seed=0)
    for epoch in range(10):
        loader.set_epoch(epoch)                           # epoch k: its own, reproducible order
        for xb, yb in loader:
            ...
"""
from .checkpoint import load, save
from .collate import CollateError, default_collate
from .dataloader import DataLoader
from .dataset import Dataset, TensorDataset
from .sampler import DistributedSampler, RandomSampler, Sampler, SequentialSampler, permutation

__all__ = ["save", "load", "Dataset", "TensorDataset", "DataLoader", "default_collate", "CollateError",
           "Sampler", "SequentialSampler", "RandomSampler", "DistributedSampler", "permutation"]
