"""ogbg-molhiv with OGB's protocol (Hu et al. 2020, "Open Graph Benchmark", arXiv:2005.00687):
GIN or GIN-virtual, 5 layers, 300 dims, dropout 0.5, mean readout, JK last, OGB's 9 atom / 3
bond features, batch 32, Adam 1e-3, 100 epochs, scaffold split; the model of the epoch with the
best validation ROC-AUC is scored on test with OGB's evaluator rule (sp.helix.Evaluator
"ogbg-molhiv"); mean +- std over seeds beside the paper's numbers.

    .venv/bin/python bench/helix/ogb_molhiv.py --model gin --seeds 0 1 2             # the protocol
    .venv/bin/python bench/helix/ogb_molhiv.py --model gin-virtual --epochs 10       # fewer epochs
    .venv/bin/python bench/helix/ogb_molhiv.py --model gin --max-molecules 2000 --max-batches 20 --epochs 1
    mpirun -n 2 .venv/bin/python bench/helix/ogb_molhiv.py --model gin --threads 1   # data-parallel

Training is sampan.helix.finetune's (finetune_dataset over finetune_seeds): resumable, a
checkpoint after every epoch (temp file, then rename) under --out/<model>/seed<k>.ckpt.h5 and the
seed's result in seed<k>.json; rerun the same command and it continues where it stopped with the
numbers of an uninterrupted run. --session-epochs N stops this invocation after N epochs (exit
status 3: rerun to continue). Under mpirun the ranks train data-parallel: --batch-size is the
step's batch over all ranks (each takes batch/ranks molecules), rank 0 prints and writes, and a
run resumes on as many ranks as it started with.

Writes --out/<model>.json: the settings, per seed the best-validation epoch, its validation and
test ROC-AUC (sampan's masked metric, and OGB's evaluator on the best weights' test predictions),
mean and population std over the seeds, and the paper's numbers.

The model is sampan.helix's GIN (Hu et al.'s pretrain-gnns layer: sum of (h_j + bond embedding)
over neighbours and a self loop, MLP Linear-ReLU-Linear) with BatchNorm, ReLU and dropout after
each layer, not OGB's GINConv ((1 + eps) h_i, ReLU on messages, BatchNorm inside the MLP); the
split is sampan's scaffold split, the same procedure as OGB's (docs/helix-measurements.md,
"ogbg-molhiv"); an OGB dataset folder given as --dataset uses its official split files instead.
"""
import argparse
import json
import math
import os
import sys
import time
import warnings

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

import sampan as sp  # noqa: E402
from sampan.helix.checkpoint import load_checkpoint, write_json_atomic  # noqa: E402
from sampan.helix.data import DataLoader, load_dataset  # noqa: E402
from sampan.helix.evaluator import Evaluator  # noqa: E402
from sampan.helix.finetune import finetune_dataset, predict  # noqa: E402
from sampan.helix.models import GraphModel  # noqa: E402
from sampan.helix.ogb_folder import is_ogb_folder, load_ogb_folder  # noqa: E402

DATA = os.environ.get("SAMPAN_SHARED_DATA") or os.path.join(REPO, "..", "shared", "data")
DATASET = "ogbg-molhiv"
# OGB's protocol for ogbg-molhiv (the paper's section 4.2 / its examples/graphproppred/mol).
PROTOCOL = dict(num_layers=5, emb_dim=300, conv="gin", jk="last", pool="mean", dropout=0.5, lr=1e-3,
                featurizer="ogb", split="scaffold")
# Hu et al. 2020 (OGB), ogbg-molhiv results: test ROC-AUC %, mean +- std over 10 seeds.
PAPER = {"gin": (75.58, 1.40), "gin-virtual": (77.07, 1.49)}
EXIT_UNFINISHED = 3  # --session-epochs reached: rerun the command to continue


class SessionDone(Exception):
    """--session-epochs epochs ran in this invocation (the checkpoint of the last one is written)."""


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, choices=sorted(PAPER))
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=32, help="molecules per step, over all ranks (32)")
    p.add_argument("--dataset", default=os.path.join(DATA, "moleculenet", "hiv.csv.gz"),
                   help="HIV CSV (smiles,HIV_active; default: the shared MoleculeNet copy) or an OGB folder "
                        "(dataset/ogbg_molhiv: its official scaffold split)")
    p.add_argument("--max-molecules", type=int, default=None, help="the first N molecules only (quick runs)")
    p.add_argument("--max-batches", type=int, default=None, help="at most N steps per epoch (quick runs)")
    p.add_argument("--session-epochs", type=int, default=None,
                   help=f"stop after N epochs in this invocation (exit status {EXIT_UNFINISHED}; rerun to continue)")
    p.add_argument("--threads", type=int, default=None, help="OpenMP threads per process")
    p.add_argument("--out", default=os.path.join(REPO, "build", "ogb_molhiv"))
    return p.parse_args(argv)


def load(args):
    """(dataset, split): split is 'scaffold' for a CSV, the official index arrays for an OGB folder.
    Rank 0 featurizes first (the cache), the other ranks then read the cache."""
    dist = sp.distributed
    for turn in (0, 1):
        if (dist.rank() == 0) == (turn == 0):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # none for HIV; a CSV's ignored columns are reported once
                if os.path.isdir(args.dataset):
                    if not is_ogb_folder(args.dataset):
                        raise SystemExit(f"ogb_molhiv: {args.dataset}: a folder but not an OGB dataset folder "
                                         "(no mapping/mol.csv.gz)")
                    dataset, split = load_ogb_folder(args.dataset, "ogb", PROTOCOL["split"])
                else:
                    dataset, split = load_dataset(args.dataset, featurizer="ogb"), PROTOCOL["split"]
        if dist.world_size() > 1:
            dist.barrier()
    if dataset.num_tasks != 1:
        raise SystemExit(f"ogb_molhiv: {args.dataset}: expected 1 task (HIV_active), found {dataset.num_tasks}: "
                         f"{', '.join(dataset.label_names)}")
    if args.max_molecules is not None:
        dataset = dataset[: args.max_molecules]
        if not isinstance(split, str):
            split = tuple(part[part < args.max_molecules] for part in split)
    return dataset, split


def settings(args, ranks):
    """What a resumed run must share with the run that wrote the checkpoints."""
    return dict(PROTOCOL, model=args.model, virtual_node=args.model == "gin-virtual", epochs=args.epochs,
                batch_size=args.batch_size, ranks=ranks, dataset=os.path.abspath(args.dataset),
                max_molecules=args.max_molecules, max_batches=args.max_batches)


def check_settings(path, wanted):
    """Writes the run's settings next to its checkpoints, or checks them against those there."""
    if not os.path.exists(path):
        if sp.distributed.rank() == 0:
            write_json_atomic(path, wanted)
        return
    with open(path) as f:
        saved = json.load(f)
    for field, value in wanted.items():
        if saved.get(field) != value:
            raise SystemExit(f"ogb_molhiv: {path}: the run there has {field}={saved.get(field)!r} but this command "
                             f"{field}={value!r}; use another --out or the original settings")


def evaluator_test(run_dir, seed, config, test):
    """OGB's evaluator on the test predictions of a finished seed's best weights."""
    model = GraphModel(**config)
    model.load_state_dict(load_checkpoint(os.path.join(run_dir, f"seed{seed}.ckpt.h5"), f"seed {seed}")["best_state"])
    y_true, y_pred, y_mask = predict(model, DataLoader(test, 256))
    return Evaluator(DATASET).eval({"y_true": np.where(y_mask, y_true, np.nan), "y_pred": y_pred})["rocauc"]


def mean_std(values):
    values = np.asarray(values, dtype=np.float64)
    return float(np.mean(values)), float(np.std(values))


def main(argv=None):
    args = parse_args(argv)
    dist = sp.distributed
    ranks, root = dist.world_size(), dist.rank() == 0
    if args.batch_size % ranks:
        raise SystemExit(f"ogb_molhiv: --batch-size {args.batch_size} is not a multiple of the {ranks} ranks")
    if args.threads:
        sp.set_num_threads(args.threads)
    dataset, split = load(args)
    run_dir = os.path.join(args.out, args.model)
    os.makedirs(run_dir, exist_ok=True)
    wanted = settings(args, ranks)
    check_settings(os.path.join(run_dir, "settings.json"), wanted)
    if root:
        print(f"{DATASET} ({args.dataset}): {len(dataset)} molecules, {args.model}, {args.epochs} epochs, "
              f"batch {args.batch_size}" + (f" over {ranks} ranks" if ranks > 1 else "")
              + f", {sp.get_num_threads()} thread(s) per process", flush=True)
    session = {"epochs": 0}

    def on_epoch(seed, epoch, record):
        if root:
            print(f"  seed {seed} epoch {epoch}: loss {record['train_loss']:.4f} valid {record['valid']:.4f} "
                  f"test {record['test']:.4f} ({record['seconds']:.0f} s)", flush=True)
        session["epochs"] += 1
        if args.session_epochs is not None and session["epochs"] >= args.session_epochs:
            raise SessionDone()

    start = time.perf_counter()
    try:
        summary, _ = finetune_dataset(
            dataset, split, args.seeds, args.epochs, args.batch_size // ranks, PROTOCOL["lr"], "roc_auc",
            PROTOCOL["num_layers"], PROTOCOL["emb_dim"], PROTOCOL["conv"], PROTOCOL["jk"], PROTOCOL["pool"],
            PROTOCOL["dropout"], None, max_batches=None if args.max_batches is None else args.max_batches * ranks,
            checkpoint_dir=run_dir, checkpoint_every=1, keep_best_model=False, on_epoch=on_epoch,
            virtual_node=wanted["virtual_node"])
    except SessionDone:
        if root:
            print(f"stopped after {session['epochs']} epoch(s) this session ({time.perf_counter() - start:.0f} s); "
                  f"rerun the command to continue", flush=True)
        return EXIT_UNFINISHED
    if not root:
        return 0
    test = dataset.subset(np.asarray(summary["split_indices"]["test"], dtype=np.int64))
    runs = []
    for run in summary["runs"]:
        official = evaluator_test(run_dir, run["seed"], summary["model"], test) if run["best_epoch"] else math.nan
        runs.append({"seed": run["seed"], "best_epoch": run["best_epoch"], "valid": run["valid"], "test": run["test"],
                     "test_evaluator": official, "epochs_run": len(run["history"]["valid"]),
                     "seconds": run["seconds"], "history": run["history"]})
    test_mean, test_std = mean_std([r["test_evaluator"] for r in runs])
    valid_mean, valid_std = mean_std([r["valid"] for r in runs])
    paper_mean, paper_std = PAPER[args.model]
    record = dict(dataset=DATASET, settings=wanted, split=summary["split"], split_sizes=summary["split_sizes"],
                  parameters=int(sum(p.numel() for p in GraphModel(**summary["model"]).parameters())),
                  seeds=args.seeds, runs=runs, test_mean=test_mean, test_std=test_std, valid_mean=valid_mean,
                  valid_std=valid_std, std="population (numpy.std)", paper={"test_mean": paper_mean / 100,
                                                                            "test_std": paper_std / 100,
                                                                            "seeds": 10, "epochs": 100})
    out = os.path.join(args.out, f"{args.model}.json")
    write_json_atomic(out, record)
    for r in runs:
        print(f"  seed {r['seed']}: best epoch {r['best_epoch']}/{r['epochs_run']}, valid {r['valid']:.4f}, "
              f"test {r['test_evaluator']:.4f}")
    print(f"{args.model}: test ROC-AUC {100 * test_mean:.2f} +- {100 * test_std:.2f} over {len(runs)} seed(s), "
          f"{args.epochs} epochs; paper (OGB, 10 seeds, 100 epochs): {paper_mean:.2f} +- {paper_std:.2f}; -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
