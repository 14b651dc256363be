"""The GPU as sampan sees it: one per process, ``cuda:0`` (an MPI rank chooses its GPU with
``CUDA_VISIBLE_DEVICES``)::

    import sampan as sp
    if sp.cuda.is_available():
        x = sp.randn(1000, 64).to("cuda")        # memory from sampan's caching allocator
        y = sp.segment_sum(x, ids.cuda(), 10)    # the op's CUDA kernel
        print(y.cpu())
    else:
        print(sp.cuda.unavailable_reason())

Ops with CUDA kernels (the graph ops of message passing, the GIN fused ops, the DeePMD se_e2_a
ops, copies) run on GPU tensors; any other op raises ``NotImplementedError`` naming itself and
the device. ``Tensor.numpy()`` of a GPU tensor raises: call ``.cpu()`` first.
"""
from . import _C

_cuda = _C.cuda

built = _cuda.built
device_count = _cuda.device_count
is_available = _cuda.is_available
unavailable_reason = _cuda.unavailable_reason
device_description = _cuda.device_description
synchronize = _cuda.synchronize
memory_allocated = _cuda.memory_allocated
max_memory_allocated = _cuda.max_memory_allocated
memory_cached = _cuda.memory_cached
empty_cache = _cuda.empty_cache

__all__ = ["built", "device_count", "is_available", "unavailable_reason", "device_description", "synchronize",
           "memory_allocated", "max_memory_allocated", "memory_cached", "empty_cache"]
