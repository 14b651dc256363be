"""Data-parallel training over MPI ranks::

    # mpirun -n 4 python train.py
    import sampan as sp
    dist = sp.distributed
    model = dist.DataParallel(MyModel())          # rank 0's parameters and buffers on every rank
    opt = sp.optim.Adam(model.parameters(), lr=1e-3)
    for batch in dist.shard(batches):             # this rank's share: batches[rank::world_size]
        opt.zero_grad()
        loss = loss_fn(model(batch))
        loss.backward()
        model.sync_gradients()                    # average over ranks: every rank takes the same step
        opt.step()

Every rank holds the whole model and works on its own share of the data; after backward() the
gradients are averaged over the ranks (one all-reduce per dtype over all of them, flattened), so
the replicas stay identical. With equal shares and a loss that is a mean over its share, the
averaged gradient is the gradient of the whole batch's mean loss.

The collectives (`all_reduce`, `broadcast`, `all_gather`, `barrier`) work in place on contiguous
CPU tensors and are not recorded by autograd. MPI is initialised on the first call that needs it,
and only in a process an MPI launcher started (or in which MPI was already initialised); any
other process is rank 0 of 1 and makes no MPI call. C++: sampan/distributed.h.
"""
from __future__ import annotations

from . import _C
from ._C import Tensor

__all__ = ["is_available", "is_active", "rank", "world_size", "all_reduce", "broadcast", "all_gather",
           "all_gather_str", "barrier", "send", "recv", "shard", "average_gradients", "DataParallel"]

_d = _C.distributed


def is_available() -> bool:
    """Whether this sampan was built with MPI."""
    return _d.built_with_mpi()


def is_active() -> bool:
    """Whether the collectives go through MPI in this process (built with MPI, and started by an
    MPI launcher or with MPI already initialised)."""
    return _d.active()


def rank() -> int:
    """This process's rank (0 outside MPI)."""
    return _d.rank()


def world_size() -> int:
    """The number of ranks (1 outside MPI)."""
    return _d.world_size()


def all_reduce(tensor: Tensor, op: str = "sum") -> Tensor:
    """tensor <- op over every rank's tensor, in place; op 'sum', 'avg', 'max' or 'min'. Returns tensor."""
    _d.all_reduce(tensor, op)
    return tensor


def broadcast(tensor: Tensor, root: int = 0) -> Tensor:
    """tensor <- root's tensor, in place on every rank. Returns tensor."""
    _d.broadcast(tensor, root)
    return tensor


def all_gather(tensor: Tensor) -> list:
    """Every rank's tensor (same shape and dtype on every rank), in rank order."""
    return list(_d.all_gather(tensor))


def barrier() -> None:
    """Waits until every rank has called it."""
    _d.barrier()


def send(tensor: Tensor, dest: int, tag: int = 0) -> None:
    """Sends tensor's elements to rank dest (returns when the tensor may be reused)."""
    _d.send(tensor, dest, tag)


def recv(tensor: Tensor, source: int, tag: int = 0) -> Tensor:
    """Receives rank source's message with `tag` into tensor (in place; the sizes must match). Returns tensor."""
    _d.recv(tensor, source, tag)
    return tensor


def all_gather_str(text: str) -> list:
    """Every rank's string, in rank order (e.g. random-generator states for a checkpoint)."""
    if world_size() == 1:
        return [text]
    import numpy as np
    import sampan as sp
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int32)
    length = sp.tensor([len(data)], dtype=sp.int64)
    longest = int(all_reduce(length.clone(), "max").item())
    lengths = [int(x.item()) for x in all_gather(length)]
    padded = np.zeros(longest, dtype=np.int32)
    padded[:len(data)] = data
    pieces = all_gather(sp.tensor(padded))
    return [bytes(piece.numpy()[:n].astype(np.uint8)).decode("utf-8") for piece, n in zip(pieces, lengths)]


def shard(items):
    """This rank's share of a sequence: items[rank::world_size] (every item on one rank only)."""
    return items[rank()::world_size()]


class DataParallel:
    """Wraps a module for data-parallel training: the constructor copies `root`'s parameters and
    buffers to every rank, calls forward to the module, and `sync_gradients()` averages the
    parameters' gradients over the ranks. With `broadcast_buffers` (the default) every forward in
    training mode first copies root's buffers (BatchNorm's running statistics) to the other ranks,
    so evaluation sees the same statistics everywhere."""

    def __init__(self, module, root: int = 0, broadcast_buffers: bool = True):
        self.module = module
        self.root = int(root)
        self.broadcast_buffers = bool(broadcast_buffers)
        self._params = list(module.parameters())
        for t in self._params + list(module.buffers()):
            _broadcast_value(t, self.root)

    def __call__(self, *args, **kwargs):
        if self.broadcast_buffers and self.module.training:
            for b in self.module.buffers():
                _broadcast_value(b, self.root)
        return self.module(*args, **kwargs)

    def __getattr__(self, name):
        if name == "module":  # not set yet (or a copy without it): no endless recursion through this method
            raise AttributeError("DataParallel has no wrapped module")
        return getattr(self.module, name)

    def parameters(self, recurse: bool = True):
        return self.module.parameters(recurse)

    def sync_gradients(self) -> None:
        """Averages every parameter's gradient over the ranks, in place (average_gradients)."""
        average_gradients(self._params)


def average_gradients(parameters) -> None:
    """Averages the gradients of `parameters` over the ranks, in place: one all-reduce per dtype
    over all of them, flattened. A parameter that requires grad but has none on this rank (unused in
    its forward) counts as zero, so that every rank reduces the same list; it gets a gradient."""
    if world_size() == 1:
        return
    import sampan as sp
    from ._creation import zeros_like
    by_dtype = {}
    for p in parameters:
        if not p.requires_grad:
            continue
        if p.grad is None:
            p.grad = zeros_like(p)
        by_dtype.setdefault(p.dtype, []).append(p)
    with sp.no_grad():
        for params in by_dtype.values():
            flat = sp.concat([p.grad.reshape(-1) for p in params])
            _d.all_reduce(flat, "avg")
            offset = 0
            for p in params:
                n = p.numel()
                p.grad.copy_(flat[offset:offset + n].reshape(p.shape))
                offset += n


def _broadcast_value(t: Tensor, root: int) -> None:
    """root's value of t on every rank, written into t's memory (not recorded by autograd)."""
    if not t.is_contiguous():
        raise ValueError("DataParallel: a parameter or buffer is not contiguous; it cannot be broadcast in place")
    _d.broadcast(t, root)
