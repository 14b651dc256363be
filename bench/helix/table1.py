"""Hu et al. 2020 Table 1 protocol with sampan.helix: GIN without pretraining and with attribute-
masking pretraining (on the offline ZINC subset), fine-tuned on the MoleculeNet classification
sets with the deterministic scaffold split; test ROC-AUC at the best-validation epoch, mean +- std
over seeds, next to the paper's numbers (shared/reference/helix.md section 1.6).

The full protocol (5 layers, 300 dims, 100 epochs, batch 32, Adam 1e-3, dropout 0.5, >= 3 seeds)
takes hours on CPU; it is not a test. Options reduce it (and the output says so):

    PYTHONPATH=python .venv/bin/python bench/helix/table1.py                       # the full protocol
    PYTHONPATH=python .venv/bin/python bench/helix/table1.py --emb-dim 128 --epochs 20 \
        --datasets bbbp bace clintox sider --pretrain-epochs 2                    # a reduced run

Writes <out>/<mode>_<dataset>.json per run (resumable: an existing file is reused) and
<out>/table1.md.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

import sampan as sp  # noqa: E402
from sampan.helix import pretrain as pt  # noqa: E402
from sampan.helix.data import DataLoader, load_dataset  # noqa: E402
from sampan.helix.finetune import finetune_dataset  # noqa: E402
from sampan.helix.models import GNNEncoder  # noqa: E402

DATA = os.path.join(REPO, "..", "shared", "data")
FILES = {"bbbp": "bbbp.csv", "tox21": "tox21.csv", "toxcast": "toxcast.csv.gz", "sider": "sider.csv",
         "clintox": "clintox.csv", "muv": "muv.csv.gz", "hiv": "hiv.csv.gz", "bace": "bace.csv"}
# Hu et al. 2020, Table 1 (GIN), test ROC-AUC % mean +- std over 10 seeds.
PAPER = {
    "none": {"bbbp": (65.8, 4.5), "tox21": (74.0, 0.8), "toxcast": (63.4, 0.6), "sider": (57.3, 1.6),
             "clintox": (58.0, 4.4), "muv": (71.8, 2.5), "hiv": (75.3, 1.9), "bace": (70.1, 5.4)},
    "attr_mask": {"bbbp": (64.3, 2.8), "tox21": (76.7, 0.4), "toxcast": (64.2, 0.5), "sider": (61.0, 0.7),
                  "clintox": (71.8, 4.1), "muv": (74.7, 1.4), "hiv": (77.2, 1.1), "bace": (79.3, 1.6)},
}


def _write_json(path, record):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1, default=float)
    os.replace(tmp, path)


def pretrain_encoder(args, path):
    if os.path.exists(path):
        return path
    zinc = [os.path.join(DATA, "zinc", f) for f in ("zinc250k_jtvae_valid.txt", "zinc250k_jtvae_test.txt")]
    datasets = [load_dataset(z, featurizer="pretrain_gnns") for z in zinc if os.path.exists(z)]
    if not datasets:
        sys.exit(f"table1: no ZINC SMILES under {DATA}/zinc for attribute-masking pretraining")
    sp.manual_seed(0)
    encoder = GNNEncoder("pretrain_gnns", args.layers, args.emb_dim, "gin", "last", 0.0)
    task = pt.AttributeMasking(encoder, 0.15, seed=0)
    loaders = [DataLoader(d, 256, shuffle=True, seed=0) for d in datasets]

    class Both:
        def __iter__(self):
            for loader in loaders:
                yield from loader

    start = time.perf_counter()
    result = pt.pretrain(task, Both(), args.pretrain_epochs, 1e-3,
                         on_epoch=lambda e, r: print(f"  attr_mask epoch {e}: loss {r['loss']:.4f} acc {r['accuracy']:.3f}",
                                                     flush=True))
    pt.save_encoder(encoder, path, {"task": "attr_mask", "molecules": sum(len(d) for d in datasets),
                                    "epochs": args.pretrain_epochs, "batch_size": 256, "lr": 1e-3,
                                    "history": result["history"], "seconds": time.perf_counter() - start})
    return path


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
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=os.path.join(REPO, "build", "helix_table1"))
    args = parser.parse_args()
    sp.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    full = (args.layers, args.emb_dim, args.epochs, len(args.seeds) >= 3) == (5, 300, 100, True)
    label = "full protocol" if full else (f"REDUCED: {args.layers} layers, {args.emb_dim} dims, {args.epochs} epochs, "
                                         f"{len(args.seeds)} seeds, pretraining {args.pretrain_epochs} epochs on the ZINC subset")
    print(f"Table 1 protocol ({label})", flush=True)
    encoder_path = None
    if "attr_mask" in args.modes:
        encoder_path = pretrain_encoder(args, os.path.join(args.out, f"attr_mask_L{args.layers}_D{args.emb_dim}_E{args.pretrain_epochs}.h5"))
    results = {}
    for name in args.datasets:
        dataset = load_dataset(os.path.join(DATA, "moleculenet", FILES[name]), featurizer="pretrain_gnns")
        for mode in args.modes:
            path = os.path.join(args.out, f"{mode}_{name}.json")
            if os.path.exists(path):
                summary = json.load(open(path))
            else:
                summary, _ = finetune_dataset(dataset, "scaffold", args.seeds, args.epochs, 32, 1e-3, "roc_auc",
                                              args.layers, args.emb_dim, "gin", "last", "mean", 0.5,
                                              encoder_path if mode == "attr_mask" else None)
                summary["protocol"] = label
                _write_json(path, summary)
            results[(name, mode)] = summary
            m, s = 100 * summary["test_mean"], 100 * summary["test_std"]
            pm, ps = PAPER[mode][name]
            print(f"{name:8s} {mode:9s} test ROC-AUC {m:5.1f} +- {s:4.1f}  (paper {pm} +- {ps}; "
                  f"{'within' if abs(m - pm) <= ps else 'outside'} 1 sd)", flush=True)
    lines = [f"Protocol: {label}; scaffold split; test ROC-AUC % at the best-validation epoch, mean +- std over "
             f"seeds {args.seeds}.", "", "| dataset | " + " | ".join(f"{m} (ours) | {m} (Hu et al.)" for m in args.modes) + " |",
             "|---|" + "---|---|" * len(args.modes)]
    for name in args.datasets:
        cells = []
        for mode in args.modes:
            r = results[(name, mode)]
            cells += [f"{100 * r['test_mean']:.1f} +- {100 * r['test_std']:.1f}", "{} +- {}".format(*PAPER[mode][name])]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for mode in args.modes:
        ours = np.mean([100 * results[(n, mode)]["test_mean"] for n in args.datasets])
        paper = np.mean([PAPER[mode][n][0] for n in args.datasets])
        lines.append(f"\nmean over these datasets, {mode}: ours {ours:.1f}, Hu et al. {paper:.1f}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "table1.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
