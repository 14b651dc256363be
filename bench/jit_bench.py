"""sp.jit figures, each measured in this one run and printed with what it is compared against:

1. Replay overhead per op: a chain of 100 small elementwise ops (x * a + b, 50 times, 64
   float64 elements), eager Python against the replayed graph (call_op per node, no Python
   between nodes), in microseconds per op.
2. Peak memory of inference (sampan's allocator statistics, bytes above what was held before):
   a GIN 5x300 batch of 32 molecules (helix's GraphModel, eval mode) eager, replayed as traced,
   and replayed after optimize() (constants folded, the buffer-reuse plan).
3. The C++ runner: build/bin/sampan-run on the saved GIN graph (its best of --repeat runs)
   against the eager Python forward of the same batch.
4. se_e2_a energy and forces of one water frame (192 atoms, DeePMD-kit's golden se_e2_a model,
   a frame of ../shared/data/deepmd_water/data_0): peak memory and time of DeepPot.energy +
   sp.grad eager against its traced graph replayed (as traced, and with the memory plan), forces
   equal to 1e-12.

    PYTHONPATH=python .venv/bin/python bench/jit_bench.py [--repeats 20]

Data: ../shared/data/moleculenet/bbbp.csv when present, else RDKit's NCI first_5K.smi.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))

import sampan as sp  # noqa: E402

DATASETS = [os.path.join(REPO, "..", "shared", "data", "moleculenet", "bbbp.csv"), "/usr/share/RDKit/Data/NCI/first_5K.smi"]


def best(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def chain_overhead(repeats):
    x = sp.tensor(np.random.default_rng(0).uniform(size=64))

    def chain(x):
        for _ in range(50):
            x = x * 1.0001 + 0.0001
        return x

    graph = sp.jit.trace(chain, x)
    assert graph.num_nodes == 100
    with sp.no_grad():
        eager = best(lambda: chain(x), repeats) / 100 * 1e6
        replay = best(lambda: graph(x), repeats) / 100 * 1e6
    np.testing.assert_array_equal(graph(x).numpy(), chain(x).numpy())
    print(f"100-op chain, 64 float64 elements: eager {eager:.2f} us/op, replay {replay:.2f} us/op "
          f"(replay / eager = {replay / eager:.2f})")


def gin_batch():
    from sampan.helix.data import DataLoader, load_dataset
    path = next(p for p in DATASETS if os.path.exists(p))
    dataset = load_dataset(path, featurizer="pretrain_gnns", label_columns=None if path.endswith(".csv") else [])
    return next(iter(DataLoader(dataset[:32], 32))), path


def peak(fn, *args):
    base = sp.profiler.memory_allocated()
    sp.profiler.reset_peak_memory_stats()
    with sp.no_grad():
        out = fn(*args)
    return sp.profiler.max_memory_allocated() - base, out


def gin(repeats):
    from sampan.helix.models import GraphModel
    from sampan.helix.models.features import as_tensor
    batch, path = gin_batch()
    sp.manual_seed(0)
    model = GraphModel(1, num_layers=5, emb_dim=300).eval()
    inputs = (as_tensor(batch.x), as_tensor(batch.edge_index), as_tensor(batch.edge_attr), as_tensor(batch.batch))

    def forward(x, edge_index, edge_attr, graph_of_atom):
        h = model.encoder(x, edge_index, edge_attr)
        return model.head(model.pool(h, graph_of_atom, batch.num_graphs))

    traced = sp.jit.trace(forward, inputs)
    optimized = sp.jit.trace(forward, inputs).optimize()
    eager_peak, want = peak(forward, *inputs)
    plain_peak, a = peak(traced, *inputs)
    planned_peak, b = peak(optimized, *inputs)
    assert np.array_equal(a.numpy(), want.numpy()) and np.array_equal(b.numpy(), want.numpy())
    mib = 2.0 ** 20
    print(f"GIN 5x300 inference, {batch.num_graphs} molecules ({os.path.basename(path)}), peak memory: "
          f"eager {eager_peak / mib:.2f} MiB, replay {plain_peak / mib:.2f} MiB, planned {planned_peak / mib:.2f} MiB "
          f"(planned / eager = {planned_peak / eager_peak:.3f}; {traced.num_nodes} nodes, {optimized.num_nodes} after folding)")
    with sp.no_grad():
        eager_s = best(lambda: forward(*inputs), repeats)
        planned_s = best(lambda: optimized(*inputs), repeats)
    print(f"GIN batch latency: eager Python {eager_s * 1e3:.2f} ms, replay from Python {planned_s * 1e3:.2f} ms")
    runner = os.path.join(REPO, "build", "bin", "sampan-run")
    if not os.path.exists(runner):
        print(f"sampan-run: {runner} is not built; skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        optimized.save(os.path.join(tmp, "gin.h5"))
        names = []
        for i, t in enumerate(inputs):
            names += ["--input", os.path.join(tmp, f"in{i}.npy")]
            np.save(names[-1], t.numpy())
        out = subprocess.run([runner, os.path.join(tmp, "gin.h5"), *names, "--output", os.path.join(tmp, "y.npy"),
                              "--repeat", str(repeats)], capture_output=True, text=True, check=True).stdout
        assert np.array_equal(np.load(os.path.join(tmp, "y.npy")), want.numpy())
    ms = float(re.search(r"best ([0-9.e+-]+) ms", out).group(1))
    print(f"GIN batch latency: build/bin/sampan-run {ms:.2f} ms (best of {repeats}; no Python in the process), "
          f"eager Python {eager_s * 1e3:.2f} ms (best of {repeats}): {ms / (eager_s * 1e3):.2f}x")


def water(repeats):
    data = os.path.join(REPO, "..", "shared", "data")
    model_path = os.path.join(data, "deepmd_golden_se_e2_a", "deeppot_sea.yaml")
    system_path = os.path.join(data, "deepmd_water", "data_0")
    if not (os.path.exists(model_path) and os.path.exists(system_path)):
        print(f"se_e2_a: {model_path} or {system_path} missing; skipped")
        return
    from sampan.deepmd.data import load_system
    from sampan.deepmd.md import box_tensor, trace_potential
    from sampan.deepmd.model import load_model
    model = load_model(model_path)
    system = load_system(system_path)
    positions = sp.tensor(np.asarray(system.coord[0], dtype=np.float64).reshape(-1, 3))
    types = sp.tensor(np.asarray(system.atom_types, dtype=np.int64))
    box = box_tensor(np.asarray(system.box[0]).reshape(3, 3))

    def energy_and_forces(energy_fn):
        pos = positions.detach().requires_grad_()
        e = energy_fn(pos, types, box)
        (g,) = sp.grad(e, [pos])
        return e, g

    def peak_with_grad(energy_fn):
        base = sp.profiler.memory_allocated()
        sp.profiler.reset_peak_memory_stats()
        out = energy_and_forces(energy_fn)
        return sp.profiler.max_memory_allocated() - base, out

    traced = trace_potential(model.energy, positions, types, box)
    planned = trace_potential(model.energy, positions, types, box).fold_constants().eliminate_dead_code().plan_memory()
    eager_peak, (e0, f0) = peak_with_grad(model.energy)
    plain_peak, (e1, f1) = peak_with_grad(traced)
    planned_peak, (e2, f2) = peak_with_grad(planned)
    worst = max(float(np.abs(f.numpy() - f0.numpy()).max()) for f in (f1, f2))
    assert worst < 1e-12 and abs(e1.item() - e0.item()) < 1e-10 and abs(e2.item() - e0.item()) < 1e-10
    mib = 2.0 ** 20
    print(f"se_e2_a energy + forces, {positions.shape[0]} atoms of water: peak memory eager {eager_peak / mib:.2f} MiB, "
          f"replay {plain_peak / mib:.2f} MiB, planned {planned_peak / mib:.2f} MiB (planned / eager = "
          f"{planned_peak / eager_peak:.3f}; forces agree to {worst:.1e} eV/A)")
    eager_s = best(lambda: energy_and_forces(model.energy), repeats)
    planned_s = best(lambda: energy_and_forces(planned), repeats)
    print(f"se_e2_a energy + forces latency: eager {eager_s * 1e3:.1f} ms, planned replay {planned_s * 1e3:.1f} ms "
          f"(best of {repeats})")
    runner = os.path.join(REPO, "build", "bin", "sampan-run")
    if not os.path.exists(runner):
        return
    with sp.no_grad():
        energy_s = best(lambda: model.energy(positions, types, box), repeats)
    with tempfile.TemporaryDirectory() as tmp:
        planned.save(os.path.join(tmp, "water.h5"))
        names = []
        for i, t in enumerate((positions, types, box)):
            names += ["--input", os.path.join(tmp, f"in{i}.npy")]
            np.save(names[-1], t.numpy())
        out = subprocess.run([runner, os.path.join(tmp, "water.h5"), *names, "--repeat", str(repeats)],
                             capture_output=True, text=True, check=True).stdout
    ms = float(re.search(r"best ([0-9.e+-]+) ms", out).group(1))
    print(f"se_e2_a energy of one water frame: build/bin/sampan-run {ms:.1f} ms, eager Python {energy_s * 1e3:.1f} ms "
          f"(best of {repeats} each): {ms / (energy_s * 1e3):.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    print(f"sampan {sp.__version__}, {sp.get_num_threads()} threads")
    chain_overhead(args.repeats * 10)
    gin(args.repeats)
    water(max(3, args.repeats // 4))


if __name__ == "__main__":
    main()
