"""sp.profiler.profile: rows of a training step (forward, backward, optimizer), shapes, the table,
the clocks and the errors."""
import time

import numpy as np
import pytest

import sampan as sp


def _train_step(model, opt, x, y):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    return loss


@pytest.fixture
def mlp():
    sp.manual_seed(0)
    model = sp.nn.MLP(16, [32], 1, activation="tanh")
    opt = sp.optim.Adam(model.parameters(), lr=1e-3)
    x = sp.tensor(np.random.default_rng(0).normal(size=(8, 16)).astype(np.float32))
    y = sp.zeros(8, 1)
    return model, opt, x, y


def _row(prof, op, backward, shapes=""):
    rows = [r for r in prof.records if r.op == op and r.backward == backward and r.shapes == shapes]
    assert len(rows) <= 1
    return rows[0] if rows else None


def test_a_training_step_shows_its_forward_backward_and_optimizer_ops(mlp):
    model, opt, x, y = mlp
    _train_step(model, opt, x, y)  # Adam's state exists before the profiled step
    with sp.profiler.profile() as prof:
        _train_step(model, opt, x, y)
    assert not sp._C.profiler.is_running()
    fwd_matmul = _row(prof, "core::matmul", False)
    assert fwd_matmul is not None and fwd_matmul.calls == 2  # two Linear layers
    assert _row(prof, "core::tanh", False).calls == 1
    backward_ops = {r.op for r in prof.records if r.backward}
    assert "core::matmul" in backward_ops  # the Linear layers' gradients
    assert _row(prof, "core::adam_update_", False).calls == 4  # 2 weights, 2 biases
    for r in prof.records:
        assert r.calls > 0 and r.total_ms >= r.self_ms >= 0
    assert 0 < prof.ops_ms <= prof.elapsed_ms
    # largest self time first, as the C++ side sorts
    selfs = [r.self_ms for r in prof.records]
    assert selfs == sorted(selfs, reverse=True)


def test_record_shapes_splits_rows_by_input_shapes():
    a, b = sp.ones(2, 3), sp.ones(4)
    with sp.profiler.profile(record_shapes=True) as prof:
        for _ in range(3):
            a + a
        b + b
    assert _row(prof, "core::add", False, "[2, 3], [2, 3]").calls == 3
    assert _row(prof, "core::add", False, "[4], [4]").calls == 1
    table = prof.table()
    assert "input shapes" in table and "[2, 3], [2, 3]" in table


def test_table_sorts_limits_and_accounts_for_time_outside_ops(mlp):
    model, opt, x, y = mlp
    with sp.profiler.profile() as prof:
        _train_step(model, opt, x, y)
    lines = prof.table(sort_by="op", row_limit=3).splitlines()
    assert lines[0].split()[:3] == ["op", "pass", "calls"]
    ops = [line.split()[0] for line in lines[2:5]]
    assert ops == sorted(ops)
    assert lines[5].startswith("... ") and lines[5].endswith("more rows")
    assert "ms outside ops" in lines[-1] and lines[-1].startswith("wall clock")
    calls = [int(line.split()[2]) for line in prof.table(sort_by="calls", row_limit=None).splitlines()[2:-1]]
    assert calls == sorted(calls, reverse=True) and len(calls) == len(prof.records)


class _FakeClock:
    """A clock that reads `now` (seconds), so that a test sets how long a block took."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_block_is_timed_on_the_clock_asked_for(monkeypatch):
    wall, cpu = _FakeClock(), _FakeClock()
    monkeypatch.setattr(sp.profiler, "_CLOCKS", {"wall": wall, "cpu": cpu})
    started = []
    real_start = sp._C.profiler.start
    monkeypatch.setattr(sp._C.profiler, "start", lambda *a: (started.append(a), real_start(*a))[1])
    with sp.profiler.profile(clock="cpu") as prof:
        sp.ones(3) + sp.ones(3)
        cpu.now += 0.25    # the block's CPU time
        wall.now += 9.0    # not this one
    assert started == [(False, "cpu")]  # the C++ side times the ops on the same clock
    assert prof.elapsed_ms == pytest.approx(250.0, abs=1e-9)
    # the last line accounts for the block: its ops, and the rest outside them
    last = prof.table().splitlines()[-1]
    calls = sum(r.calls for r in prof.records)
    assert calls >= 1
    assert last == (f"cpu clock: {prof.ops_ms:.3f} ms in {calls} op calls, {max(0.0, 250.0 - prof.ops_ms):.3f} ms outside ops, "
                    "250.000 ms in all")
    with sp.profiler.profile(record_shapes=True) as prof:
        wall.now += 0.5
    assert started[-1] == (True, "wall") and prof.elapsed_ms == pytest.approx(500.0, abs=1e-9)
    assert prof.table().splitlines()[-1] == "wall clock: 0.000 ms in 0 op calls, 500.000 ms outside ops, 500.000 ms in all"


def test_real_clocks_are_wall_time_and_the_threads_cpu_time():
    # Orderings that hold on any machine, however loaded: the block lies inside this test's own
    # perf_counter interval and sleeps 50 ms in it, so its wall time is at least 50 ms and at
    # most the interval; a sleeping thread runs on no core, so its CPU time is at most the
    # interval less the sleep (1 ms of slack for entering the sleep and the clocks' sources).
    t0 = time.perf_counter()
    with sp.profiler.profile(clock="wall") as wall:
        time.sleep(0.05)
    wall_interval_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    with sp.profiler.profile(clock="cpu") as cpu:
        time.sleep(0.05)
    cpu_interval_ms = (time.perf_counter() - t0) * 1e3
    assert 50 <= wall.elapsed_ms <= wall_interval_ms
    assert 0 <= cpu.elapsed_ms <= cpu_interval_ms - 50 + 1
    assert cpu.table().splitlines()[-1].startswith("cpu clock")


def test_errors_name_the_problem_and_leave_the_profiler_usable():
    with pytest.raises(ValueError, match="clock='gpu'"):
        sp.profiler.profile(clock="gpu")
    with pytest.raises(TypeError, match="record_shapes"):
        sp.profiler.profile(record_shapes="yes")
    with sp.profiler.profile() as outer:
        with pytest.raises(RuntimeError, match="already running"):
            with sp.profiler.profile():
                pass
        sp.ones(3) + sp.ones(3)
    assert _row(outer, "core::add", False).calls == 1
    with pytest.raises(ValueError, match="sort_by='slowest'"):
        outer.table(sort_by="slowest")
    # an exception inside the block stops the profiler and propagates
    with pytest.raises(ZeroDivisionError):
        with sp.profiler.profile():
            1 / 0
    assert not sp._C.profiler.is_running()
