"""Which ops a piece of code spends its time in::

    with sp.profiler.profile() as prof:
        loss = model(batch).sum()
        loss.backward()
        opt.step()
    print(prof.table())

Every op call (built-in, a user's op library, or one run inside a backward pass) is timed in the
one place all calls pass (C++ `call_op`, `sampan/profiler.h`), and summed per op and pass, and per
input shapes with `record_shapes=True`. Self time leaves out the ops an op calls itself; the
time outside all ops (the Python interpreter, NumPy, data loading) is what `table()` calls
"outside ops". `clock="cpu"` times with the calling thread's CPU time, which leaves out waits for a
core on a loaded machine (and the work of OpenMP or BLAS threads an op starts).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from . import _C

__all__ = ["profile", "OpRecord", "memory_allocated", "max_memory_allocated", "reset_peak_memory_stats"]

# The allocators' statistics ("cpu" or "cuda"): bytes held by tensors now, the high-water mark
# since the last reset, and the reset (sampan/allocator.h).
memory_allocated = _C.memory_allocated
max_memory_allocated = _C.max_memory_allocated
reset_peak_memory_stats = _C.reset_peak_memory_stats

_CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}
_SORT_KEYS = {
    "self": lambda r: (-r.self_ms, r.op),
    "total": lambda r: (-r.total_ms, r.op),
    "calls": lambda r: (-r.calls, r.op),
    "op": lambda r: (r.op, r.backward, r.shapes),
}


@dataclass(frozen=True)
class OpRecord:
    """The calls of one op in one pass (forward or backward), with one set of input shapes if
    those were recorded."""

    op: str            # "core::matmul"
    backward: bool     # called inside a backward pass (a vjp, or the gradient sums)
    shapes: str        # "[32, 300], [300, 600]"; "" unless record_shapes
    calls: int
    total_ms: float    # time inside the calls, the ops they call included
    self_ms: float     # total_ms minus the ops called inside them


class profile:
    """Context manager that profiles the ops run inside it (one profiler per process at a time)."""

    def __init__(self, record_shapes: bool = False, clock: str = "wall"):
        if clock not in _CLOCKS:
            raise ValueError(f"profile(clock={clock!r}): expected one of {sorted(_CLOCKS)}")
        if not isinstance(record_shapes, bool):
            raise TypeError(f"profile(record_shapes=...): expected a bool, got {type(record_shapes).__name__}")
        self.record_shapes = record_shapes
        self.clock = clock
        self.records: list[OpRecord] = []
        self.elapsed_ms = 0.0  # the whole block, on the same clock

    def __enter__(self) -> "profile":
        _C.profiler.start(self.record_shapes, self.clock)
        self._t0 = _CLOCKS[self.clock]()
        return self

    def __exit__(self, *exc) -> bool:
        self.elapsed_ms = (_CLOCKS[self.clock]() - self._t0) * 1e3
        rows = _C.profiler.stop()
        self.records = [OpRecord(op, bool(bwd), shapes, int(calls), total_ns * 1e-6, self_ns * 1e-6)
                        for op, bwd, shapes, calls, total_ns, self_ns in rows]
        return False

    @property
    def ops_ms(self) -> float:
        """Time inside op calls (the sum of self times)."""
        return sum(r.self_ms for r in self.records)

    def table(self, sort_by: str = "self", row_limit: int | None = 20) -> str:
        """The rows as text, `sort_by` 'self', 'total', 'calls' or 'op'; `row_limit` rows (None: all)."""
        if sort_by not in _SORT_KEYS:
            raise ValueError(f"table(sort_by={sort_by!r}): expected one of {sorted(_SORT_KEYS)}")
        rows = sorted(self.records, key=_SORT_KEYS[sort_by])
        shown = rows if row_limit is None else rows[:row_limit]
        ops_ms = self.ops_ms
        name_w = max([len("op")] + [len(r.op) for r in shown])
        shape_w = max([len("input shapes")] + [len(r.shapes) for r in shown]) if self.record_shapes else 0
        head = f"{'op':<{name_w}}  {'pass':<8}  " + (f"{'input shapes':<{shape_w}}  " if shape_w else "")
        head += f"{'calls':>7}  {'self ms':>10}  {'self %':>6}  {'total ms':>10}  {'us/call':>9}"
        lines = [head, "-" * len(head)]
        for r in shown:
            line = f"{r.op:<{name_w}}  {'backward' if r.backward else 'forward':<8}  "
            if shape_w:
                line += f"{r.shapes:<{shape_w}}  "
            share = 100.0 * r.self_ms / ops_ms if ops_ms > 0 else 0.0
            line += (f"{r.calls:>7}  {r.self_ms:>10.3f}  {share:>6.1f}  {r.total_ms:>10.3f}  "
                     f"{1e3 * r.total_ms / r.calls:>9.1f}")
            lines.append(line)
        if len(shown) < len(rows):
            lines.append(f"... {len(rows) - len(shown)} more rows")
        outside = max(0.0, self.elapsed_ms - ops_ms)
        lines.append(f"{self.clock} clock: {ops_ms:.3f} ms in {sum(r.calls for r in rows)} op calls, "
                     f"{outside:.3f} ms outside ops, {self.elapsed_ms:.3f} ms in all")
        return "\n".join(lines)
