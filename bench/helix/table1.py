"""Hu et al. 2020 Table 1 protocol with sampan.helix: GIN without pretraining and with attribute-
masking pretraining (on the offline ZINC subset), fine-tuned on the MoleculeNet classification
sets with the deterministic scaffold split; test ROC-AUC at the best-validation epoch, mean +- std
over seeds, next to the paper's numbers (shared/reference/helix.md section 1.6).

The full protocol (5 layers, 300 dims, 100 epochs, batch 32, Adam 1e-3, dropout 0.5, >= 3 seeds)
takes many CPU hours; it is not a test. It survives being killed at any moment: rerun the same
command and it continues where it stopped, with the numbers an uninterrupted run gives.

    PYTHONPATH=python .venv/bin/python bench/helix/table1.py --jobs 2     # the full protocol, 2 processes
    PYTHONPATH=python .venv/bin/python bench/helix/table1.py --report     # the table from what finished
    PYTHONPATH=python .venv/bin/python bench/helix/table1.py --emb-dim 128 --epochs 20 \
        --datasets bbbp bace clintox sider --pretrain-epochs 2 --out build/t1_small   # a reduced run

Work units and files under --out:
  pretrain/attr_mask_L5_D300_E100.ckpt.h5  the ZINC pretraining state, written after every epoch
  attr_mask_L5_D300_E100.h5                 the pretrained encoder (when pretraining finished)
  runs/<mode>_<dataset>/seed<k>.ckpt.h5     one fine-tuning run's state (every --checkpoint-every
                                            epochs; when finished, only its best weights)
  runs/<mode>_<dataset>/seed<k>.json        one fine-tuning run's result (history, best epoch, test)
  <mode>_<dataset>.json, table1.md          the summaries over the seeds that finished
Every file is written to a temp name and renamed. Processes claim a unit with an flock on
locks/<unit>.lock (the kernel drops it when a process dies, so no lock outlives a kill); --jobs N
starts N such processes, and several commands started by hand on disjoint or even the same
datasets share the work the same way.
"""
import argparse
import fcntl
import json
import os
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

import sampan as sp  # noqa: E402
from sampan.helix import pretrain as pt  # noqa: E402
from sampan.helix.checkpoint import write_json_atomic  # noqa: E402
from sampan.helix.data import DataLoader, load_dataset  # noqa: E402
from sampan.helix.finetune import finetune_dataset  # noqa: E402
from sampan.helix.models import GNNEncoder  # noqa: E402

DATA = os.environ.get("SAMPAN_SHARED_DATA") or os.path.join(REPO, "..", "shared", "data")
FILES = {"bbbp": "bbbp.csv", "tox21": "tox21.csv", "toxcast": "toxcast.csv.gz", "sider": "sider.csv",
         "clintox": "clintox.csv", "muv": "muv.csv.gz", "hiv": "hiv.csv.gz", "bace": "bace.csv"}
ZINC = ("zinc250k_jtvae_valid.txt", "zinc250k_jtvae_test.txt")
# Hu et al. 2020, Table 1 (GIN), test ROC-AUC % mean +- std over 10 seeds.
PAPER = {
    "none": {"bbbp": (65.8, 4.5), "tox21": (74.0, 0.8), "toxcast": (63.4, 0.6), "sider": (57.3, 1.6),
             "clintox": (58.0, 4.4), "muv": (71.8, 2.5), "hiv": (75.3, 1.9), "bace": (70.1, 5.4)},
    "attr_mask": {"bbbp": (64.3, 2.8), "tox21": (76.7, 0.4), "toxcast": (64.2, 0.5), "sider": (61.0, 0.7),
                  "clintox": (71.8, 4.1), "muv": (74.7, 1.4), "hiv": (77.2, 1.1), "bace": (79.3, 1.6)},
}


class ChainedLoader:
    """Batches of several DataLoaders one after the other (the two ZINC files), with their
    shuffling state saved and restored together (pretraining checkpoints)."""

    def __init__(self, loaders):
        self.loaders = list(loaders)

    def __iter__(self):
        for loader in self.loaders:
            yield from loader

    def rng_state(self):
        return json.dumps([loader.rng_state() for loader in self.loaders])

    def set_rng_state(self, state):
        for loader, s in zip(self.loaders, json.loads(state)):
            loader.set_rng_state(s)


class Lock:
    """A non-blocking exclusive flock on a file: held while the work unit runs, released by the
    kernel when the process ends in any way (a kill included)."""

    def __init__(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.file = open(path, "a")

    def acquire(self):
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            self.file.close()
            return False

    def release(self):
        fcntl.flock(self.file, fcntl.LOCK_UN)
        self.file.close()


def encoder_name(args):
    return f"attr_mask_L{args.layers}_D{args.emb_dim}_E{args.pretrain_epochs}"


def encoder_path(args):
    return os.path.join(args.out, encoder_name(args) + ".h5")


def run_dir(args, mode, name):
    return os.path.join(args.out, "runs", f"{mode}_{name}")


def seed_result(args, mode, name, seed):
    return os.path.join(run_dir(args, mode, name), f"seed{seed}.json")


def pretrain_encoder(args):
    """Attribute masking on the ZINC subset (Hu et al.: batch 256, lr 1e-3, dropout 0), resumable
    through a checkpoint after every epoch; writes the encoder file at the end."""
    zinc = [os.path.join(DATA, "zinc", f) for f in ZINC]
    datasets = [load_dataset(z, featurizer="pretrain_gnns") for z in zinc if os.path.exists(z)]
    if not datasets:
        sys.exit(f"table1: no ZINC SMILES under {DATA}/zinc for attribute-masking pretraining")
    sp.manual_seed(0)
    encoder = GNNEncoder("pretrain_gnns", args.layers, args.emb_dim, "gin", "last", 0.0)
    task = pt.AttributeMasking(encoder, 0.15, seed=0)
    loader = ChainedLoader([DataLoader(d, 256, shuffle=True, seed=0) for d in datasets])
    checkpoint = os.path.join(args.out, "pretrain", encoder_name(args) + ".ckpt.h5")
    result = pt.pretrain(task, loader, args.pretrain_epochs, 1e-3, checkpoint=checkpoint,
                         on_epoch=lambda e, r: print(f"  attr_mask epoch {e}/{args.pretrain_epochs}: loss {r['loss']:.4f} "
                                                     f"acc {r['accuracy']:.3f}", flush=True))
    pt.save_encoder(encoder, encoder_path(args), {
        "task": "attr_mask", "molecules": sum(len(d) for d in datasets), "epochs": args.pretrain_epochs,
        "batch_size": 256, "lr": 1e-3, "history": result["history"], "seconds": result["seconds"]})


def finetune_unit(args, mode, name, seed):
    dataset = load_dataset(os.path.join(DATA, "moleculenet", FILES[name]), featurizer="pretrain_gnns")
    start = time.perf_counter()
    summary, _ = finetune_dataset(dataset, "scaffold", [seed], args.epochs, 32, 1e-3, "roc_auc", args.layers,
                                  args.emb_dim, "gin", "last", "mean", 0.5,
                                  encoder_path(args) if mode == "attr_mask" else None,
                                  checkpoint_dir=run_dir(args, mode, name), checkpoint_every=args.checkpoint_every,
                                  keep_best_model=False, on_epoch=lambda s, e, r: report_epoch(args, mode, name, s, e, r))
    run = summary["runs"][0]
    print(f"  {mode} {name} seed {seed}: test ROC-AUC {100 * run['test']:.1f} at epoch {run['best_epoch']} "
          f"({time.perf_counter() - start:.0f} s this session)", flush=True)


def report_epoch(args, mode, name, seed, epoch, record):
    """Every 10th epoch of a fine-tuning unit: where it stands and when it will end at its pace."""
    if epoch % 10 and epoch != args.epochs:
        return
    per_epoch = record["seconds"] / epoch
    print(f"  {mode} {name} seed {seed}: epoch {epoch}/{args.epochs}, loss {record['train_loss']:.4f}, valid "
          f"{100 * record['valid']:.1f}, test {100 * record['test']:.1f}; {per_epoch:.1f} s/epoch, "
          f"{per_epoch * (args.epochs - epoch) / 60:.0f} min left", flush=True)


def units(args):
    """(key, needs the encoder, done?, run) per work unit: pretraining first, then seed by seed
    over the datasets, so that every dataset has a first number early."""
    out = []
    if "attr_mask" in args.modes:
        out.append((f"pretrain_{encoder_name(args)}", False, lambda: os.path.exists(encoder_path(args)),
                    lambda: pretrain_encoder(args)))
    for seed in args.seeds:
        for mode in args.modes:
            for name in args.datasets:
                out.append((f"{mode}_{name}_seed{seed}", mode == "attr_mask",
                            lambda m=mode, n=name, s=seed: os.path.exists(seed_result(args, m, n, s)),
                            lambda m=mode, n=name, s=seed: finetune_unit(args, m, n, s)))
    return out


def work(args):
    """Claims and runs units until none is left; waits while others hold the remaining ones."""
    pending = units(args)
    while pending:
        progressed = False
        for unit in list(pending):
            key, needs_encoder, done, run = unit
            if done():
                pending.remove(unit)
                continue
            if needs_encoder and not os.path.exists(encoder_path(args)):
                continue
            lock = Lock(os.path.join(args.out, "locks", key + ".lock"))
            if not lock.acquire():
                continue
            try:
                if not done():  # another process may have finished it meanwhile
                    left = sum(not u[2]() for u in pending)
                    print(f"[{os.getpid()}] {key} ({left} of {len(units(args))} units not finished)", flush=True)
                    run()
                pending.remove(unit)
                progressed = True
            finally:
                lock.release()
        if pending and not progressed:
            time.sleep(args.poll_seconds)  # the rest is held by other processes or waits for pretraining


def summarize(args):
    """Per (mode, dataset) summary JSON over the seeds that finished, and table1.md."""
    results, label = {}, protocol_label(args)
    for name in args.datasets:
        for mode in args.modes:
            runs = [json.load(open(p)) for s in args.seeds if os.path.exists(p := seed_result(args, mode, name, s))]
            if not runs:
                continue
            tests = np.array([r["test"] for r in runs])
            summary = {"protocol": label, "mode": mode, "dataset": name, "seeds": [r["seed"] for r in runs],
                       "test_mean": float(np.mean(tests)), "test_std": float(np.std(tests)),
                       "best_epochs": [r["best_epoch"] for r in runs], "seconds": [r["seconds"] for r in runs]}
            write_json_atomic(os.path.join(args.out, f"{mode}_{name}.json"), summary)
            results[(name, mode)] = summary
            m, s = 100 * summary["test_mean"], 100 * summary["test_std"]
            pm, ps = PAPER[mode][name]
            print(f"{name:8s} {mode:9s} test ROC-AUC {m:5.1f} +- {s:4.1f} over {len(runs)} seed(s) (paper {pm} +- {ps}; "
                  f"{'within' if abs(m - pm) <= ps else 'outside'} 1 sd)", flush=True)
    lines = [f"Protocol: {label}; scaffold split; test ROC-AUC % at the best-validation epoch, mean +- std over "
             f"the seeds that finished (of {args.seeds}).", "",
             "| dataset | " + " | ".join(f"{m} (ours) | seeds | {m} (Hu et al.)" for m in args.modes) + " |",
             "|---|" + "---|---|---|" * len(args.modes)]
    for name in args.datasets:
        cells = []
        for mode in args.modes:
            r = results.get((name, mode))
            cells += ([f"{100 * r['test_mean']:.1f} +- {100 * r['test_std']:.1f}", str(len(r["seeds"]))] if r else ["-", "0"])
            cells.append("{} +- {}".format(*PAPER[mode][name]))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for mode in args.modes:
        done = [n for n in args.datasets if (n, mode) in results]
        if done:
            ours = np.mean([100 * results[(n, mode)]["test_mean"] for n in done])
            paper = np.mean([PAPER[mode][n][0] for n in done])
            lines.append(f"\nmean over {', '.join(done)}, {mode}: ours {ours:.1f}, Hu et al. {paper:.1f}")
    text = "\n".join(lines) + "\n"
    tmp = os.path.join(args.out, "table1.md.tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(args.out, "table1.md"))
    print(text)


def protocol_label(args):
    full = (args.layers, args.emb_dim, args.epochs, len(args.seeds) >= 3) == (5, 300, 100, True)
    return "full protocol" if full else (f"REDUCED: {args.layers} layers, {args.emb_dim} dims, {args.epochs} epochs, "
                                        f"{len(args.seeds)} seeds, pretraining {args.pretrain_epochs} epochs on the ZINC subset")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["bbbp", "tox21", "toxcast", "sider", "clintox", "bace"],
                        choices=sorted(FILES))
    parser.add_argument("--modes", nargs="+", default=["none", "attr_mask"], choices=["none", "attr_mask"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--layers", type=int, default=5)
    parser.add_argument("--emb-dim", type=int, default=300)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--pretrain-epochs", type=int, default=100)
    parser.add_argument("--checkpoint-every", type=int, default=5, help="fine-tuning epochs between checkpoints")
    parser.add_argument("--threads", type=int, default=1, help="threads per process")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (each --threads threads)")
    parser.add_argument("--poll-seconds", type=float, default=30.0, help=argparse.SUPPRESS)
    parser.add_argument("--report", action="store_true", help="only summarize the finished runs")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # started by --jobs
    parser.add_argument("--out", default=os.path.join(REPO, "build", "helix_table1"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.report:
        summarize(args)
        return
    sp.set_num_threads(args.threads)
    if not args.worker:
        print(f"Table 1 protocol ({protocol_label(args)}), {args.jobs} process(es), results in {args.out}", flush=True)
    if args.jobs > 1 and not args.worker:
        # The last --jobs wins in argparse: each worker runs the same command as one process.
        workers = [subprocess.Popen([sys.executable, os.path.abspath(__file__), *sys.argv[1:], "--jobs", "1", "--worker"])
                   for _ in range(args.jobs)]
        codes = [w.wait() for w in workers]
        if any(codes):
            sys.exit(f"table1: worker exit codes {codes}; rerun the same command to continue")
    else:
        work(args)
    if not args.worker:
        summarize(args)


if __name__ == "__main__":
    main()
