"""sp.jit: tracing to a graph of registered ops, replay (equal to eager, to the bit), symbolic
dimensions, the refusals (dtype, rank, fixed sizes, symbolic sizes, a Python branch on data),
gradients through a replay to second order, and the graph file (round trip, a newer format, a
truncated file, not a graph, op libraries missing, changed or embedded).

Op libraries cannot be unloaded from a process, so the tests that need a library's file to be
missing run in a child process."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import sampan as sp

REPO = Path(__file__).resolve().parents[2]
MORSE = REPO / "build" / "examples" / "morse" / "libsampan_morse.so"
needs_morse = pytest.mark.skipif(not MORSE.exists(), reason=f"the example op library {MORSE} is not built")


def mlp():
    sp.manual_seed(3)
    return sp.nn.Sequential(sp.nn.Linear(3, 5, dtype=sp.float64), sp.nn.Tanh(), sp.nn.Linear(5, 2, dtype=sp.float64))


def rand(*shape, seed=0):
    return sp.tensor(np.random.default_rng(seed).uniform(-1, 1, size=shape))


def test_replay_equals_eager_to_the_bit_and_follows_a_symbolic_batch():
    net = mlp()
    graph = sp.jit.trace(net, rand(4, 3), dynamic_dims={"x": {0: "batch"}})
    assert graph.inputs[0]["name"] == "x" and graph.inputs[0]["dims"] == ["batch", None]
    assert "core::matmul" in graph.ops and "core::tanh" in graph.ops
    for n in (4, 1, 9):
        x = rand(n, 3, seed=n)
        np.testing.assert_array_equal(graph(x).numpy(), net(x).numpy())


def test_replay_refuses_inputs_that_break_an_assumption():
    graph = sp.jit.trace(lambda x, y: x * y.sum(), (rand(4, 3), rand(4, 2)), dynamic_dims={0: {0: "n"}, 1: {0: "n"}})
    with pytest.raises(TypeError, match=r"input 'x' was traced as float64, got float32"):
        graph(rand(4, 3).float(), rand(4, 2))
    with pytest.raises(ValueError, match=r"input 'y' was traced with 2 dimensions, got shape \[4\]"):
        graph(rand(4, 3), rand(4))
    with pytest.raises(ValueError, match=r"input 'x': dimension 1 was fixed at 3 when traced, got 5"):
        graph(rand(4, 5), rand(4, 2))
    with pytest.raises(ValueError, match=r"input 'y': dimension 0 is the symbolic size 'n', which is 6 in x"):
        graph(rand(6, 3), rand(5, 2))
    with pytest.raises(TypeError, match="graph takes 2 inputs, got 1"):
        graph(rand(4, 3))
    np.testing.assert_allclose(graph(rand(6, 3), rand(6, 2)).numpy().shape, (6, 3))


def test_a_python_branch_on_data_is_a_guard():
    def f(x):
        return x * 2.0 if x.sum().item() > 0 else x * 3.0
    pos = sp.tensor([1.0, 2.0])
    graph = sp.jit.trace(f, pos)
    assert "<guard>" in graph.ops
    np.testing.assert_array_equal(graph(sp.tensor([1.0, 2.0])).numpy(), [2.0, 4.0])
    with pytest.raises(ValueError, match=r"read the value of .* as data .* cannot replay this input"):
        graph(sp.tensor([-1.0, -2.0]))


def test_constants_are_the_parameters_and_python_made_tensors():
    w = sp.tensor([[2.0, -1.0], [0.5, 3.0]])
    bias = sp.tensor([0.25, -0.5])
    graph = sp.jit.trace(lambda x: sp.matmul(x, w) + bias + sp.tensor([1.0, 1.0]), rand(3, 2), dynamic_dims=[0])
    x = rand(7, 2, seed=5)
    np.testing.assert_array_equal(graph(x).numpy(), (sp.matmul(x, w) + bias + 1.0).numpy())


def test_gradients_through_a_replay_to_second_order():
    """An energy of positions: forces as its gradient through the replay, and the gradient of a
    force projection (a Hessian-vector product), both equal to eager."""
    def energy(pos):
        d = pos.unsqueeze(0) - pos.unsqueeze(1)
        r2 = (d * d).sum([2]) + 1.0
        return (1.0 / r2).sum() + (pos * pos).sum() * 0.1

    pos0 = rand(5, 3, seed=7)
    graph = sp.jit.trace(energy, pos0, dynamic_dims={"pos": {0: "atoms"}})
    v = rand(6, 3, seed=8)
    results = []
    for fn in (energy, graph):
        pos = rand(6, 3, seed=9).requires_grad_()
        (g,) = sp.grad(fn(pos), [pos], create_graph=True)
        (hv,) = sp.grad((g * v).sum(), [pos])
        results.append((g.detach().numpy(), hv.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-13, atol=1e-13)
    assert np.abs(results[0][1]).max() > 1e-3  # the second derivative is not trivially zero


def test_graph_file_round_trip(tmp_path):
    net = mlp()
    graph = sp.jit.trace(net, rand(4, 3), dynamic_dims={"x": [0]})
    path = tmp_path / "mlp.h5"
    graph.save(path)
    loaded = sp.jit.load(path)
    assert loaded.ops == graph.ops and loaded.inputs == graph.inputs
    x = rand(11, 3, seed=2)
    np.testing.assert_array_equal(loaded(x).numpy(), net(x).numpy())


def test_graph_files_that_cannot_be_read_are_refused(tmp_path):
    newer = tmp_path / "newer.h5"
    sp.save({"format": "sampan-graph", "format_version": 99}, str(newer))
    with pytest.raises(OSError, match="format version 99, newer than this sampan's 1"):
        sp.jit.load(newer)
    other = tmp_path / "weights.h5"
    sp.save({"w": sp.tensor([1.0])}, str(other))
    with pytest.raises(OSError, match="not a graph"):
        sp.jit.load(other)
    good = tmp_path / "good.h5"
    sp.jit.trace(lambda x: x * 2.0, rand(3)).save(good)
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(OSError, match="truncated"):
        sp.jit.load(truncated)
    with pytest.raises(OSError, match="missing.h5"):
        sp.jit.load(tmp_path / "missing.h5")


def test_dead_code_elimination_keeps_what_reaches_the_outputs():
    def f(x):
        unused = sp.exp(x) * 3.0  # noqa: F841 (recorded, reaches no output)
        return x + 1.0
    graph = sp.jit.trace(f, rand(3))
    assert "core::exp" in graph.ops
    graph.eliminate_dead_code()
    assert "core::exp" not in graph.ops and graph.num_nodes == 1
    np.testing.assert_array_equal(graph(rand(3, seed=4)).numpy(), (rand(3, seed=4) + 1.0).numpy())


def _child(code, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


@needs_morse
def test_op_library_ops_are_recorded_with_the_library_and_its_hash(tmp_path):
    """A graph of a user's op: saved with the library's name and content hash; loaded in a fresh
    process from the file, refused when the file is missing or changed, and run from the
    embedded copy when saved with embed_libraries."""
    lib = tmp_path / "libsampan_morse.so"
    shutil.copy(MORSE, lib)
    res = _child(f"""
        import sampan as sp
        sp.load_op_library({str(lib)!r})
        r = sp.tensor([0.9, 1.4, 2.0], dtype=sp.float64)
        g = sp.jit.trace(lambda r: sp.ops.physics.morse(r, 0.8, 1.9, 1.2) * 2.0, r, dynamic_dims=[0])
        print(g.libraries)
        g.save("plain.h5")
        g.save("embedded.h5", embed_libraries=True)
        print(g(sp.tensor([1.0, 1.5], dtype=sp.float64)).tolist())
    """, tmp_path)
    assert res.returncode == 0, res.stderr
    assert str(lib) in res.stdout
    eager = [2 * 0.8 * (1 - np.exp(-1.9 * (r - 1.2))) ** 2 for r in (1.0, 1.5)]
    load_and_run = """
        import sampan as sp
        g = sp.jit.load({!r})
        print(g(sp.tensor([1.0, 1.5], dtype=sp.float64)).tolist())
    """
    res = _child(load_and_run.format("plain.h5"), tmp_path)  # the library loads from its path
    assert res.returncode == 0, res.stderr
    np.testing.assert_allclose(eval(res.stdout.strip().splitlines()[-1]), eager, rtol=1e-14)
    lib.write_bytes(lib.read_bytes() + b"\0")  # another content hash
    res = _child(load_and_run.format("plain.h5"), tmp_path)
    assert res.returncode != 0 and "needs op library" in res.stderr and "another hash" in res.stderr, res.stderr
    lib.unlink()
    res = _child(load_and_run.format("plain.h5"), tmp_path)
    assert res.returncode != 0 and "is not found at that path" in res.stderr and "embed_libraries" in res.stderr
    res = _child(load_and_run.format("embedded.h5"), tmp_path)
    assert res.returncode == 0, res.stderr
    np.testing.assert_allclose(eval(res.stdout.strip().splitlines()[-1]), eager, rtol=1e-14)


SAMPAN_RUN = REPO / "build" / "bin" / "sampan-run"
needs_sampan_run = pytest.mark.skipif(not SAMPAN_RUN.exists(), reason=f"{SAMPAN_RUN} is not built")


@needs_sampan_run
def test_sampan_run_replays_a_saved_graph_without_python(tmp_path):
    net = mlp()
    graph = sp.jit.trace(lambda x, scale: (net(x) * scale, x.sum([1])), (rand(4, 3), sp.tensor(2.0, dtype=sp.float64)),
                         dynamic_dims={"x": [0]})
    graph.save(tmp_path / "model.h5")
    x = np.random.default_rng(1).uniform(-1, 1, size=(9, 3))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "scale.npy", np.array(0.5))
    res = subprocess.run([str(SAMPAN_RUN), "model.h5", "--input", "x.npy", "--input", "scale.npy",
                          "--output", "y.npy", "--repeat", "3"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "output 1: float64 [9]" in res.stdout and "median of 3 runs" in res.stdout
    y = np.load(tmp_path / "y.npy")
    np.testing.assert_array_equal(y, (net(sp.tensor(x)) * 0.5).numpy())  # the same bits as eager
    res = subprocess.run([str(SAMPAN_RUN), "model.h5", "--input", "x.npy"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 2 and "takes 2 inputs, 1 given" in res.stderr and "x: float64 [x.0, 3]" in res.stderr
    np.save(tmp_path / "x32.npy", x.astype(np.float32))
    res = subprocess.run([str(SAMPAN_RUN), "model.h5", "--input", "x32.npy", "--input", "scale.npy"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 1 and "input 'x' was traced as float64, got float32" in res.stderr
    res = subprocess.run([str(SAMPAN_RUN), "missing.h5", "--input", "x.npy"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 1 and "missing.h5" in res.stderr
    (tmp_path / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00" + b"\x10\x00" + b"{'descr': '<f8'")
    res = subprocess.run([str(SAMPAN_RUN), "model.h5", "--input", "bad.npy", "--input", "scale.npy"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 1 and "npy file bad.npy" in res.stderr


def wide_mlp():
    sp.manual_seed(5)
    net = sp.nn.Sequential(sp.nn.Linear(64, 64, dtype=sp.float64), sp.nn.ReLU(), sp.nn.Linear(64, 64, dtype=sp.float64),
                           sp.nn.ReLU(), sp.nn.Linear(64, 64, dtype=sp.float64))
    return net.eval()


def peak_bytes(fn, *args):
    base = sp.profiler.memory_allocated()
    sp.profiler.reset_peak_memory_stats()
    with sp.no_grad():
        out = fn(*args)
    return sp.profiler.max_memory_allocated() - base, out


def test_folding_freezes_what_depends_on_parameters_only():
    net = wide_mlp()
    graph = sp.jit.trace(net, rand(8, 64), dynamic_dims=[0])
    assert graph.ops.count("core::permute") == 3  # the weights' transposes, every replay
    graph.fold_constants().eliminate_dead_code()
    assert "core::permute" not in graph.ops
    x = rand(5, 64, seed=3)
    # the folded weight is a contiguous copy of the transposed view eager matmul passes to BLAS;
    # OpenBLAS may take another kernel for the two layouts (its small-matrix NN and NT kernels on
    # AVX-512 machines round differently), so equal to rounding, not bit for bit
    np.testing.assert_allclose(graph(x).numpy(), net(x).numpy(), rtol=1e-12, atol=1e-15)


def test_the_memory_plan_releases_intermediates_and_reuses_buffers(tmp_path):
    net = wide_mlp()
    x = rand(4000, 64, seed=1)  # 2 MiB per activation
    plain = sp.jit.trace(net, x, dynamic_dims=[0])
    planned = sp.jit.trace(net, x, dynamic_dims=[0]).optimize()
    eager_peak, eager = peak_bytes(net, x)
    plain_peak, a = peak_bytes(plain, x)
    planned_peak, b = peak_bytes(planned, x)
    np.testing.assert_array_equal(a.numpy(), eager.numpy())
    np.testing.assert_array_equal(b.numpy(), eager.numpy())
    activation = 4000 * 64 * 8
    assert plain_peak >= 5 * activation  # every intermediate kept to the end
    assert planned_peak <= 2 * activation  # the output and at most one live intermediate
    assert planned_peak < eager_peak
    planned.save(tmp_path / "planned.h5")
    loaded = sp.jit.load(tmp_path / "planned.h5")
    assert loaded.memory_planned
    loaded_peak, c = peak_bytes(loaded, x)
    assert loaded_peak == planned_peak
    np.testing.assert_array_equal(c.numpy(), eager.numpy())


def test_the_memory_plan_never_writes_into_memory_another_value_still_reads():
    def f(x):
        y = x * 2.0                  # an intermediate ...
        z = y.reshape([-1])          # ... viewed (the same memory)
        w = z + 1.0                  # z dies here, but y is read below: no in-place add
        return w, y * 3.0
    graph = sp.jit.trace(f, rand(3, 4)).plan_memory()
    x = rand(3, 4, seed=6)
    for got, want in zip(graph(x), f(x)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_gradients_through_a_planned_graph():
    net = wide_mlp()
    graph = sp.jit.trace(lambda x: net(x).sum(), rand(6, 64), dynamic_dims=[0]).optimize()
    grads = []
    for fn in (lambda x: net(x).sum(), graph):
        x = rand(6, 64, seed=2).requires_grad_()
        (g,) = sp.grad(fn(x), [x])
        grads.append(g.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-15)  # folded weights: see above
