"""Map-style datasets: ``dataset[i]`` for i in 0 .. len(dataset) - 1."""
import numbers

import numpy as np

from .._C import Tensor


class Dataset:
    """The base class of map-style datasets: subclasses define ``__getitem__(index)`` (one sample:
    a tensor, an array, a number, or a tuple, list or dict of these) and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} does not define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} does not define __len__")


class TensorDataset(Dataset):
    """Samples are rows of tensors or NumPy arrays of equal first dimension:
    ``TensorDataset(x, y)[i] == (x[i], y[i])``. Rows of a NumPy array stay NumPy (the default
    collate makes tensors of them), rows of a tensor are tensors."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset: give at least one tensor or array")
        for k, t in enumerate(tensors):
            if not isinstance(t, (Tensor, np.ndarray)):
                raise TypeError(f"TensorDataset: argument {k} is a {type(t).__name__}, not a sampan Tensor "
                                "or a numpy.ndarray")
            if t.ndim == 0:
                raise ValueError(f"TensorDataset: argument {k} is 0-dimensional; samples are its rows")
        n = int(tensors[0].shape[0])
        for k, t in enumerate(tensors[1:], 1):
            if int(t.shape[0]) != n:
                raise ValueError(f"TensorDataset: argument {k} has {int(t.shape[0])} rows, argument 0 has {n}")
        self.tensors = tuple(tensors)

    def __getitem__(self, index):
        if not isinstance(index, numbers.Integral):
            raise TypeError(f"TensorDataset: index must be an int, got {type(index).__name__}")
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"TensorDataset: index {index} is out of range for {n} samples")
        index = int(index)
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return int(self.tensors[0].shape[0])
