"""Random tensors: ``sp.manual_seed``, ``sp.Generator`` and the sampling functions.

Each call takes one draw (seed, offset) from a Generator (the default one unless
``generator=``) and calls the random op (core::rand, randn, randint, bernoulli, randperm) with it,
so a result depends only on the seed and the number of draws taken before, never on the thread
count. Random results carry no gradient (``requires_grad=True`` makes the sample a leaf).
``device=`` makes rand, randn and randint there (their ops' CUDA kernels draw the same Philox
blocks, so a GPU sample has the CPU's bits; randn's to the rounding of its log and cos); randperm
draws on the CPU and moves the permutation.
"""
import numbers

from . import _C
from ._ops import function as op_function
from ._C import Generator
from ._device import device_argument as _device_argument

default_generator = _C.default_generator()


def draw(generator):
    """(seed, offset) of the next draw from ``generator`` (the default one when None): what a
    random op outside this module (nn.functional.dropout's mask, quantum's noise) takes."""
    if generator is None:
        return default_generator._draw()
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a sampan.Generator or None, got {type(generator).__name__}")
    return generator._draw()


def manual_seed(seed):
    """Reseeds the default generator; returns it (as torch.manual_seed)."""
    _C.manual_seed(int(seed))
    return default_generator


def initial_seed():
    return default_generator.initial_seed()


def _shape(size):
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = size[0]
    return [int(s) for s in size]


def _op(name):
    fn = op_function("core::" + name)
    if fn is None:
        raise NotImplementedError(f"core::{name} is not registered")
    return fn


def _finish(t, requires_grad):
    return t.requires_grad_(True) if requires_grad else t


def rand(*size, dtype=None, generator=None, requires_grad=False, device=None):
    """Uniform samples in [0, 1): ``rand(2, 3)`` or ``rand((2, 3))``; float32 unless ``dtype``."""
    device = _device_argument(device, "rand")  # before the draw: a refused call takes none
    seed, offset = draw(generator)
    t = _op("rand")(_shape(size), _C.dtype(dtype or _C.float32).name, seed, offset, device or "cpu")
    return _finish(t, requires_grad)


def randn(*size, dtype=None, generator=None, requires_grad=False, device=None):
    """Standard normal samples: ``randn(2, 3)``; float32 unless ``dtype``."""
    device = _device_argument(device, "randn")
    seed, offset = draw(generator)
    t = _op("randn")(_shape(size), _C.dtype(dtype or _C.float32).name, seed, offset, device or "cpu")
    return _finish(t, requires_grad)


def randint(low, high=None, size=(), dtype=None, generator=None, device=None):
    """Integers uniform in [low, high); ``randint(10, size=(3,))`` draws from [0, 10)."""
    if high is None:
        low, high = 0, low
    device = _device_argument(device, "randint")
    seed, offset = draw(generator)
    size = [size] if isinstance(size, numbers.Integral) else list(size)
    return _op("randint")(int(low), int(high), size, _C.dtype(dtype or _C.int64).name, seed, offset, device or "cpu")


def randperm(n, dtype=None, generator=None, device=None):
    """A random permutation of 0 .. n-1 (int64 unless ``dtype``)."""
    device = _device_argument(device, "randperm")
    seed, offset = draw(generator)
    return _op("randperm")(int(n), _C.dtype(dtype or _C.int64).name, seed, offset, device or "cpu")


def bernoulli(p, generator=None):
    """1 with probability ``p`` (a tensor of probabilities), else 0; p's shape and dtype."""
    seed, offset = draw(generator)
    return _op("bernoulli")(p.detach(), seed, offset)


def rand_like(x, dtype=None, generator=None, requires_grad=False, device=None):
    return rand(x.shape, dtype=dtype or x.dtype, generator=generator, requires_grad=requires_grad,
                device=device or x.device)


def randn_like(x, dtype=None, generator=None, requires_grad=False, device=None):
    return randn(x.shape, dtype=dtype or x.dtype, generator=generator, requires_grad=requires_grad,
                 device=device or x.device)


def normal(mean=0.0, std=1.0, size=(), dtype=None, generator=None, requires_grad=False, device=None):
    """Normal samples with ``mean`` and standard deviation ``std``."""
    if std < 0:
        raise ValueError(f"normal: std must be >= 0, got {std}")
    t = randn(_shape((size,)) if isinstance(size, numbers.Integral) else list(size), dtype=dtype,
              generator=generator, device=device) * std + mean
    return _finish(t, requires_grad)


def uniform(low=0.0, high=1.0, size=(), dtype=None, generator=None, requires_grad=False, device=None):
    """Uniform samples in [low, high)."""
    if not high >= low:
        raise ValueError(f"uniform: high ({high}) must be >= low ({low})")
    t = rand(_shape((size,)) if isinstance(size, numbers.Integral) else list(size), dtype=dtype,
             generator=generator, device=device) * (high - low) + low
    return _finish(t, requires_grad)


__all__ = ["Generator", "default_generator", "manual_seed", "initial_seed", "rand", "randn",
           "randint", "randperm", "bernoulli", "rand_like", "randn_like", "normal", "uniform"]
