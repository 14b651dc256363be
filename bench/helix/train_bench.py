"""GIN training and inference throughput (molecules/s): sampan.helix against the same model in
PyTorch Geometric, on the same batches of real molecules, in one run.

The model is Hu et al. 2020's GIN (edge embeddings added to messages, self loops, sum
aggregation, MLP d -> 2d -> d, BatchNorm, ReLU but after the last layer, dropout 0.5, JK last,
mean readout, linear head), written for PyG below with its MessagePassing base class, so both
sides run identical arithmetic. Batches are built once before timing (the input pipeline is not
measured here; featurization has its own benchmark).

    PYTHONPATH=python .venv-bench/bin/python bench/helix/train_bench.py [--threads 1 2] [--emb-dim 300]
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=python .venv/bin/python bench/helix/train_bench.py --threads 1 \
        --emb-dim 300 --no-peer --clock cpu          # CPU ms per training step, without the load's waits
    ... --no-peer --clock cpu --profile 15           # and the 15 ops that take the most time (sp.profiler)

--clock cpu times with the CPU time of the calling thread (time.thread_time) instead of the wall
clock: at 1 thread that thread does all the work (OpenMP and OpenBLAS sized to 1), and the time
spent waiting for a core on a busy machine is left out, so the numbers reproduce under load. It
also prints the CPU milliseconds per training and inference step. With more than one thread the
work of the other threads would be missed, so --clock cpu takes the whole process's CPU time there
(time.process_time), which counts spinning OpenMP workers too.

Data: ../shared/data/moleculenet/bbbp.csv when present, else RDKit's NCI first_5K.smi (rdkit-data).
"""
import argparse
import contextlib
import os
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))  # unfused.py

import sampan as sp  # noqa: E402
from sampan.helix.data import DataLoader, load_dataset  # noqa: E402
from sampan.helix.finetune import masked_loss  # noqa: E402
from sampan.helix.models import GraphModel  # noqa: E402

DATASETS = [os.path.join(REPO, "..", "shared", "data", "moleculenet", "bbbp.csv"), "/usr/share/RDKit/Data/NCI/first_5K.smi"]


def load_batches(path, count, batch_size):
    dataset = load_dataset(path, featurizer="pretrain_gnns", label_columns=None if path.endswith(".csv") else [])
    if dataset.num_tasks == 0:  # unlabeled SMILES: a made-up binary label (the speed does not depend on it)
        from sampan.helix.data import MoleculeDataset
        labels = (np.diff(dataset.node_offsets) > 20).astype(np.float64)
        dataset = MoleculeDataset(dataset.featurizer, dataset.atom_features, dataset.bond_features, dataset.edge_index,
                                  dataset.node_offsets, dataset.edge_offsets, labels=labels, smiles=dataset.smiles)
    batches = list(DataLoader(dataset[: count * batch_size], batch_size))
    return dataset, batches


def clock_for(clock, threads):
    """The timer of --clock: wall time, or CPU time (the calling thread's at 1 thread)."""
    if clock == "wall":
        return time.perf_counter
    return time.thread_time if threads == 1 else time.process_time


def sampan_steps(batches, layers, emb_dim, threads, amp=None):
    """(train, infer): one pass each over the batches with a fresh GIN and Adam (seed 0); with
    ``amp`` (a dtype name) the forward passes and the loss run under sp.amp.autocast."""
    sp.set_num_threads(threads)
    sp.manual_seed(0)
    model = GraphModel(batches[0].y.shape[1], "pretrain_gnns", layers, emb_dim, dropout=0.5)
    opt = sp.optim.Adam(model.parameters(), lr=1e-3)

    def precision():
        return sp.amp.autocast("cpu", dtype=getattr(sp, amp)) if amp else contextlib.nullcontext()

    def train():
        model.train()
        for b in batches:
            opt.zero_grad()
            with precision():
                loss = masked_loss(model(b), b, True)
            loss.backward()
            opt.step()

    def infer():
        model.eval()
        with sp.no_grad(), precision():
            for b in batches:
                model(b).numpy()
    return train, infer


def time_sampan(batches, layers, emb_dim, threads, repeats, timer=time.perf_counter, amp=None):
    train, infer = sampan_steps(batches, layers, emb_dim, threads, amp)
    return _best(train, repeats, timer), _best(infer, repeats, timer)


def step_peak_bytes(batches, layers, emb_dim, threads, amp=None):
    """Peak CPU bytes allocated during one training pass over the batches, above what was held
    before it (after a warm-up pass, so Adam's state is already there)."""
    train, _ = sampan_steps(batches, layers, emb_dim, threads, amp)
    train()
    base = sp.profiler.memory_allocated("cpu")
    sp.profiler.reset_peak_memory_stats("cpu")
    train()
    return sp.profiler.max_memory_allocated("cpu") - base


def interleave(variants, repeats, timer):
    """Best-of-`repeats` times of two variants, each a (steps, context) pair with steps = (train,
    infer), interleaved pass by pass in this process after a warm-up round:
    (first train, second train, first infer, second infer)."""
    best = [float("inf")] * 4
    for r in range(repeats + 1):  # the first round warms up
        for k, (steps, context) in enumerate(variants):
            for j, fn in enumerate(steps):
                with context():
                    t = timer()
                    fn()
                    t = timer() - t
                if r:
                    best[2 * j + k] = min(best[2 * j + k], t)
    return best


def compare_amp(batches, layers, emb_dim, threads, repeats, timer, amp):
    """float32 against autocast(amp) steps: (float32 train, amp train, float32 infer, amp infer)."""
    plain, mixed = sampan_steps(batches, layers, emb_dim, threads), sampan_steps(batches, layers, emb_dim, threads, amp)
    return interleave([(plain, contextlib.nullcontext), (mixed, contextlib.nullcontext)], repeats, timer)


def compare_unfused(batches, layers, emb_dim, threads, repeats, timer):
    """The fused step against the pre-fusion one (unfused.py): (fused train, unfused train, fused
    infer, unfused infer)."""
    from unfused import unfused
    fused_steps = sampan_steps(batches, layers, emb_dim, threads)
    plain_steps = sampan_steps(batches, layers, emb_dim, threads)
    return interleave([(fused_steps, contextlib.nullcontext), (plain_steps, unfused)], repeats, timer)


def _best(fn, repeats, timer=time.perf_counter):
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t = timer()
        fn()
        times.append(timer() - t)
    return min(times)


def time_pyg(batches, layers, emb_dim, threads, repeats, timer=time.perf_counter):
    import torch
    from torch import nn
    from torch_geometric.nn import MessagePassing, global_mean_pool
    from torch_geometric.utils import add_self_loops
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    atom_dims, bond_dims = (119, 4), (5, 4)

    class BondEmbedding(nn.Module):
        def __init__(self):
            super().__init__()
            self.tables = nn.ModuleList([nn.Embedding(d + 2, emb_dim) for d in bond_dims])

        def forward(self, attr):
            return sum(t(attr[:, c]) for c, t in enumerate(self.tables))

    class HuGINConv(MessagePassing):
        def __init__(self):
            super().__init__(aggr="add")
            self.mlp = nn.Sequential(nn.Linear(emb_dim, 2 * emb_dim), nn.ReLU(), nn.Linear(2 * emb_dim, emb_dim))
            self.bond = BondEmbedding()

        def forward(self, x, edge_index, edge_attr):
            edge_index, _ = add_self_loops(edge_index, num_nodes=x.size(0))
            loops = torch.zeros(x.size(0), edge_attr.size(1), dtype=edge_attr.dtype)
            loops[:, 0] = bond_dims[0]  # the self-loop bond type
            edge_emb = self.bond(torch.cat([edge_attr, loops], 0))
            return self.mlp(self.propagate(edge_index, x=x, edge_attr=edge_emb))

        def message(self, x_j, edge_attr):
            return x_j + edge_attr

    class Model(nn.Module):
        def __init__(self, tasks):
            super().__init__()
            self.atoms = nn.ModuleList([nn.Embedding(d + 2, emb_dim) for d in atom_dims])
            self.convs = nn.ModuleList([HuGINConv() for _ in range(layers)])
            self.norms = nn.ModuleList([nn.BatchNorm1d(emb_dim) for _ in range(layers)])
            self.head = nn.Linear(emb_dim, tasks)

        def forward(self, x, edge_index, edge_attr, batch, num_graphs):
            h = sum(t(x[:, c]) for c, t in enumerate(self.atoms))
            for k in range(layers):
                h = self.norms[k](self.convs[k](h, edge_index, edge_attr))
                if k < layers - 1:
                    h = torch.relu(h)
                h = nn.functional.dropout(h, 0.5, self.training)
            return self.head(global_mean_pool(h, batch, num_graphs))

    tb = [(torch.from_numpy(b.x), torch.from_numpy(b.edge_index), torch.from_numpy(b.edge_attr),
           torch.from_numpy(b.batch), b.num_graphs, torch.from_numpy(b.y), torch.from_numpy(b.y_mask)) for b in batches]
    model = Model(batches[0].y.shape[1])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def train():
        model.train()
        for x, ei, ea, bt, g, y, m in tb:
            opt.zero_grad()
            out = model(x, ei, ea, bt, g)
            loss = nn.functional.binary_cross_entropy_with_logits(out[m], y[m])
            loss.backward()
            opt.step()

    def infer():
        model.eval()
        with torch.no_grad():
            for x, ei, ea, bt, g, _, _ in tb:
                model(x, ei, ea, bt, g)
    return _best(train, repeats, timer), _best(infer, repeats, timer)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--layers", type=int, default=5)
    parser.add_argument("--emb-dim", type=int, nargs="+", default=[300, 64])
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-peer", action="store_true", help="sampan only")
    parser.add_argument("--compare-unfused", action="store_true",
                        help="also time the training step without the fused ops (unfused.py), interleaved in this run")
    parser.add_argument("--profile", type=int, metavar="ROWS", default=0,
                        help="after the timings, profile one training pass over the batches per case with "
                             "sp.profiler (on --clock) and print its ROWS largest ops by self time")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall: wall-clock time; cpu: CPU time of the timing thread (of the process when "
                             "--threads > 1), and CPU ms per step")
    parser.add_argument("--amp", choices=["bfloat16", "float16"], default=None,
                        help="also time sampan under sp.amp.autocast with this dtype, in the same run, and print "
                             "its throughput against float32's")
    args = parser.parse_args()
    path = next((p for p in DATASETS if os.path.exists(p)), None)
    if path is None:
        sys.exit("train_bench: neither ../shared/data/moleculenet/bbbp.csv nor rdkit-data's NCI first_5K.smi exists")
    dataset, batches = load_batches(path, args.batches, args.batch_size)
    molecules = sum(b.num_graphs for b in batches)
    atoms = sum(b.x.shape[0] for b in batches)
    print(f"{os.path.basename(path)}: {molecules} molecules in {len(batches)} batches of {args.batch_size} "
          f"({atoms / molecules:.1f} atoms/molecule); GIN {args.layers} layers; best of {args.repeats}; mol/s "
          f"({'CPU time' if args.clock == 'cpu' else 'wall clock'}; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')})")
    print(f"{'dim':>4} {'thr':>3}  {'sampan train':>12} {'PyG train':>10} {'ratio':>6}  {'sampan infer':>12} "
          f"{'PyG infer':>10} {'ratio':>6}")
    peer = not args.no_peer
    if peer:
        try:
            import torch_geometric  # noqa: F401
        except ImportError:
            print("  (torch_geometric is not installed: pip install -r bench/requirements.txt into .venv-bench)")
            peer = False
    for dim in args.emb_dim:
        for threads in args.threads:
            timer = clock_for(args.clock, threads)
            st, si = time_sampan(batches, args.layers, dim, threads, args.repeats, timer)
            row = f"{dim:>4} {threads:>3}  {molecules / st:>12.1f} "
            if peer:
                pt, pi = time_pyg(batches, args.layers, dim, threads, args.repeats, timer)
                row += f"{molecules / pt:>10.1f} {pt / st:>6.2f}  {molecules / si:>12.1f} {molecules / pi:>10.1f} {pi / si:>6.2f}"
            else:
                row += f"{'-':>10} {'-':>6}  {molecules / si:>12.1f} {'-':>10} {'-':>6}"
            if args.clock == "cpu":
                steps = len(batches)
                row += f"   CPU ms/step: sampan train {1e3 * st / steps:.1f} infer {1e3 * si / steps:.1f}"
                if peer:
                    row += f", PyG train {1e3 * pt / steps:.1f} infer {1e3 * pi / steps:.1f}"
            print(row, flush=True)
            if args.amp:
                ft, at, fi, ai = compare_amp(batches, args.layers, dim, threads, args.repeats, timer, args.amp)
                print(f"{'':>4} {'':>3}  autocast({args.amp}) against float32, interleaved: train {molecules / at:.1f} "
                      f"vs {molecules / ft:.1f} mol/s ({ft / at:.2f}x), infer {molecules / ai:.1f} vs "
                      f"{molecules / fi:.1f} ({fi / ai:.2f}x)", flush=True)
                p32, pamp = (step_peak_bytes(batches[:1], args.layers, dim, threads, a) for a in (None, args.amp))
                print(f"{'':>4} {'':>3}  peak memory of a training step above the model and Adam's state: "
                      f"float32 {p32 / 2**20:.1f} MiB, autocast {pamp / 2**20:.1f} MiB ({pamp / p32:.2f}x)", flush=True)
    print("ratio = sampan molecules/s / PyG molecules/s (> 1: sampan faster)")
    if args.profile:
        for dim in args.emb_dim:
            for threads in args.threads:
                train, _ = sampan_steps(batches, args.layers, dim, threads)
                train()  # warm-up: Adam's state, the allocator's blocks
                with sp.profiler.profile(clock=args.clock) as prof:
                    train()
                print(f"\nops of one training pass ({len(batches)} steps), {dim} dims, {threads} thread(s):")
                print(prof.table(row_limit=args.profile), flush=True)
    if args.compare_unfused:
        unit = "CPU" if args.clock == "cpu" else "wall"
        print(f"fused ops (gather_add_scatter, batch_norm_train) vs the composition before them, interleaved, "
              f"{unit} ms per step of {args.batch_size} molecules:")
        for dim in args.emb_dim:
            for threads in args.threads:
                ft, pt, fi, pi = compare_unfused(batches, args.layers, dim, threads, args.repeats,
                                                 clock_for(args.clock, threads))
                steps = len(batches)
                print(f"{dim:>4} {threads:>3}  train fused {1e3 * ft / steps:.1f} unfused {1e3 * pt / steps:.1f} "
                      f"(x{pt / ft:.2f})  infer fused {1e3 * fi / steps:.1f} unfused {1e3 * pi / steps:.1f} "
                      f"(x{pi / fi:.2f})", flush=True)


if __name__ == "__main__":
    main()
