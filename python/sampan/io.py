"""Checkpoints: ``sp.save(obj, path)`` and ``sp.load(path)``.

``obj`` is a Tensor, a Python scalar (int, float, bool, str, None) or a list, tuple or dict
(str keys) of these, nested: a model's ``state_dict()``, an optimizer's, and training metadata
in one file. The file is HDF5 (readable with h5py; the layout is described in
framework/include/sampan/io.h) and is written atomically: a crash or a failed save never leaves
a partial file, and the previous file survives. Errors are OSError naming the path (missing,
truncated, not HDF5, not written by sampan) and TypeError/ValueError naming the value that
cannot be stored (``obj['model'][2]``).
"""
from ._C import load, save

__all__ = ["save", "load"]
