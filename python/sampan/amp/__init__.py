"""Automatic mixed precision: ``autocast`` runs GEMM-like ops in bfloat16/float16 and keeps
range-sensitive ops in float32; ``GradScaler`` scales the loss so float16 gradients do not
underflow and skips steps whose gradients overflowed. Parameters stay float32 (master weights).

    with sp.amp.autocast("cpu", dtype=sp.bfloat16):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()

The lists of ops cast each way are each op's declared policy (``sp.amp.lists()``); see
docs/mixed-precision.md.
"""
from .autocast import autocast, is_autocast_enabled, get_autocast_dtype, lists
from .grad_scaler import GradScaler

__all__ = ["autocast", "is_autocast_enabled", "get_autocast_dtype", "lists", "GradScaler"]
