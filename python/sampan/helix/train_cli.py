"""`sampan helix pretrain` and `sampan helix finetune` (added to the helix command by cli.py).

finetune: reads a labelled CSV/SDF/featurized .h5 through sampan.helix.data.load_dataset (cached),
splits it (scaffold by default), fine-tunes one model per seed with Hu et al.'s protocol, writes
the metrics (mean +- std and every run's history) to JSON and the best model to HDF5.
pretrain: attribute masking, context prediction or supervised multi-task pretraining of an
encoder on a SMILES/CSV/SDF file, written to HDF5 with its provenance.
"""
import json
import os
import sys
import time


def comma_list(text):
    """--tasks A,B -> ["A", "B"] (names may not contain commas here; use the Python API for those)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def print_warnings(command, caught):
    """Recorded warnings as one line each on stderr (no source line)."""
    for w in caught:
        print(f"sampan helix {command}: warning: {w.message}", file=sys.stderr)


def _write_json(path, record):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1, default=float)
    os.replace(tmp, path)


def _model_arguments(p, dropout):
    p.add_argument("--featurizer", default="pretrain_gnns", choices=["ogb", "pretrain_gnns"],
                   help="atom/bond features (default: Hu et al.'s pretrain_gnns)")
    p.add_argument("--layers", type=int, default=5, help="message-passing layers (5)")
    p.add_argument("--emb-dim", type=int, default=300, help="embedding width (300)")
    p.add_argument("--conv", default="gin", choices=["gin", "gcn", "gat"])
    p.add_argument("--jk", default="last", choices=["last", "concat", "max", "sum"], help="jumping knowledge")
    p.add_argument("--dropout", type=float, default=dropout)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--max-molecules", type=int, default=None, help="use only the first N molecules (quick runs)")
    p.add_argument("--max-batches", type=int, default=None, help="at most N training batches per epoch")
    p.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: sampan's)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--smiles-column", default=None)
    p.add_argument("--tasks", "--label-columns", dest="tasks", type=comma_list, default=None,
                   help="comma-separated label columns; default: the CSV's numeric columns that are not "
                        "identifiers (num, name, mol_id, ... or a row counter)")


def add_finetune_parser(subparsers):
    p = subparsers.add_parser("finetune", help="fine-tune a GNN on a labelled dataset, several seeds",
                              description="Fine-tunes GIN (Hu et al. 2020 protocol) on a labelled molecule file "
                                          "and writes metrics JSON and the best model (HDF5).")
    p.add_argument("--dataset", required=True,
                   help="CSV (SMILES + label columns), SDF, featurized .h5, or an OGB dataset folder "
                        "(e.g. dataset/ogbg_molhiv: mapping/mol.csv.gz and its official split/)")
    p.add_argument("--split", default="scaffold", choices=["scaffold", "random_scaffold", "random"],
                   help="for an OGB folder: the split folder under split/ (OGB's molecule datasets have "
                        "scaffold), used as written")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--pool", default="mean", choices=["sum", "mean", "max", "attention"])
    p.add_argument("--metric", default=None, choices=["roc_auc", "average_precision", "rmse", "mae"],
                   help="default: roc_auc for 0/1 labels, else rmse")
    p.add_argument("--pretrained", default=None, help="encoder HDF5 written by `sampan helix pretrain`")
    p.add_argument("--out", default="finetune_metrics.json", help="metrics JSON (default finetune_metrics.json)")
    p.add_argument("--model-out", default=None, help="best model HDF5 (default: next to --out, .h5)")
    p.add_argument("--checkpoint-dir", default=None,
                   help="resumable: per-seed checkpoints and results here; rerun the command to continue")
    p.add_argument("--amp", default=None, choices=["bfloat16", "float16"],
                   help="mixed precision: forward passes under sp.amp.autocast with this dtype, float32 weights")
    p.add_argument("--virtual-node", action="store_true",
                   help="OGB's virtual node in the encoder (GIN-virtual): a graph-wide node added to every "
                        "atom before each layer")
    p.add_argument("--device", default="cpu",
                   help="where to train: cpu (default), cuda or cuda:N (the model and each batch go there)")
    _model_arguments(p, dropout=0.5)
    p.set_defaults(run=run_finetune)
    return p


def add_pretrain_parser(subparsers):
    p = subparsers.add_parser("pretrain", help="pretrain a GNN encoder (attribute masking, context prediction, "
                                               "supervised)",
                              description="Pretrains a GIN encoder as Hu et al. 2020 and writes it to HDF5.")
    p.add_argument("--dataset", required=True, help="SMILES list (.smi/.txt), CSV or SDF; labels for supervised")
    p.add_argument("--task", default="attr_mask", choices=["attr_mask", "context_pred", "supervised"])
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--mask-rate", type=float, default=0.15)
    p.add_argument("--context-size", type=int, default=3, help="r2 - r1 of context prediction (3)")
    p.add_argument("--init", default=None, help="start from this encoder (e.g. supervised after attr_mask)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="encoder.h5", help="encoder HDF5 (default encoder.h5)")
    p.add_argument("--checkpoint", default=None,
                   help="resumable (attr_mask, context_pred): training state after every epoch; rerun to continue")
    p.add_argument("--device", default="cpu",
                   help="where to train: cpu (default), cuda or cuda:N (the task model and each batch go there)")
    _model_arguments(p, dropout=0.0)
    p.set_defaults(run=run_pretrain)
    return p


def _load(args, with_labels, official_split=False):
    """The dataset (its first --max-molecules), and for an OGB folder with official_split its
    split as positions in it (else None). Data warnings are printed as one line each."""
    import warnings
    from .data import load_dataset
    from .ogb_folder import is_ogb_folder, load_ogb_folder
    tasks = args.tasks if with_labels else []
    split = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if os.path.isdir(args.dataset):
            if not is_ogb_folder(args.dataset):
                raise ValueError(f"{args.dataset}: a folder, but not an OGB dataset folder (no mapping/mol.csv.gz)")
            dataset, split = load_ogb_folder(args.dataset, args.featurizer, args.split, tasks=tasks)
        else:
            dataset = load_dataset(args.dataset, featurizer=args.featurizer, smiles_column=args.smiles_column,
                                   tasks=tasks)
    print_warnings(args.helix_command, caught)
    if args.max_molecules is not None:
        dataset = dataset[: args.max_molecules]
        if split is not None:
            split = tuple(part[part < args.max_molecules] for part in split)
    return (dataset, split) if official_split else dataset


def _reported(command):
    """Runs command(args); a ValueError/OSError (bad file, bad option) becomes one line on stderr
    and exit status 2 instead of a traceback."""
    def run(args):
        try:
            return command(args)
        except (ValueError, OSError) as error:
            print(f"sampan helix {args.helix_command}: error: {error}", file=sys.stderr)
            return 2
    return run


def run_finetune(args):
    return _reported(_finetune)(args)


def run_pretrain(args):
    return _reported(_pretrain)(args)


def _finetune(args):
    import sampan
    from .. import distributed as dist
    from .._device import device_problem
    from .finetune import finetune_dataset, save_model
    if args.threads:
        sampan.set_num_threads(args.threads)
    problem = device_problem(args.device)
    if problem:
        print(f"sampan helix finetune: error: --device {args.device}: {problem}", file=sys.stderr)
        return 2
    dataset, official_split = _load(args, True, official_split=True)
    if dataset.num_tasks == 0:
        print(f"sampan helix finetune: error: {args.dataset} has no label columns", file=sys.stderr)
        return 2
    ranks = dist.world_size()  # under mpirun: data-parallel (--batch-size per rank), rank 0 prints and writes
    root = dist.rank() == 0
    if root:
        print(f"{args.dataset}: {len(dataset)} molecules, {dataset.num_tasks} tasks ({args.featurizer} features)"
              + (f", data-parallel over {ranks} ranks" if ranks > 1 else ""))
    start = time.perf_counter()
    summary, best = finetune_dataset(dataset, official_split or args.split, args.seeds, args.epochs, args.batch_size, args.lr,
                                     args.metric, args.layers, args.emb_dim, args.conv, args.jk, args.pool,
                                     args.dropout, args.pretrained, progress=not args.no_progress,
                                     max_batches=args.max_batches, checkpoint_dir=args.checkpoint_dir,
                                     virtual_node=args.virtual_node, amp=args.amp, device=args.device)
    if not root:
        return 0
    if best is None:
        raise ValueError(f"no seed got a validation {summary['metric']} on {args.dataset} (for ROC-AUC the validation "
                         f"part, {summary['split_sizes'][1]} molecules, needs both classes of some task); no model written")
    summary["ranks"] = ranks
    summary["dataset"] = os.path.abspath(args.dataset)
    if official_split is not None:
        summary["split"] = f"{args.split} (official, {os.path.join(args.dataset, 'split', args.split)})"
    summary["seconds"] = time.perf_counter() - start
    model_out = args.model_out or os.path.splitext(args.out)[0] + ".h5"
    os.makedirs(os.path.dirname(os.path.abspath(model_out)), exist_ok=True)
    save_model(best, model_out, extra={"dataset": summary["dataset"], "metric": summary["metric"],
                                       "tasks": list(dataset.label_names),
                                       "test_mean": summary["test_mean"], "test_std": summary["test_std"]})
    summary["model"] = dict(summary["model"], path=os.path.abspath(model_out))
    _write_json(args.out, summary)
    for run in summary["runs"]:
        print(f"  seed {run['seed']}: best epoch {run['best_epoch']}, valid {run['valid']:.4f}, test {run['test']:.4f}")
    print(f"test {summary['metric']}: {summary['test_mean']:.4f} +- {summary['test_std']:.4f} over "
          f"{len(summary['runs'])} seeds ({summary['split']} split {summary['split_sizes']}); "
          f"metrics -> {args.out}, model -> {model_out}")
    return 0


def _pretrain(args):
    import sampan
    from .data import DataLoader
    from .models import GNNEncoder
    from . import pretrain as pt
    from .._device import device_problem
    if args.threads:
        sampan.set_num_threads(args.threads)
    problem = device_problem(args.device)
    if problem:  # before the dataset is read
        print(f"sampan helix pretrain: error: --device {args.device}: {problem}", file=sys.stderr)
        return 2
    from .. import distributed as dist
    ranks = dist.world_size()  # under mpirun: data-parallel, rank 0 prints and writes
    if ranks > 1 and args.task == "supervised":
        print("sampan helix pretrain: error: data-parallel pretraining (mpirun) covers attr_mask and "
              "context_pred; run supervised pretraining in one process", file=sys.stderr)
        return 2
    dataset = _load(args, args.task == "supervised")
    if dist.rank() == 0:
        print(f"{args.dataset}: {len(dataset)} molecules ({args.featurizer} features), task {args.task}"
              + (f", data-parallel over {ranks} ranks" if ranks > 1 else ""))
    sampan.manual_seed(args.seed)
    if args.init:
        encoder, _ = pt.load_encoder(args.init)
        if encoder.config["featurizer"] != args.featurizer:
            print(f"sampan helix pretrain: error: {args.init} uses featurizer {encoder.config['featurizer']!r}, "
                  f"--featurizer is {args.featurizer!r}", file=sys.stderr)
            return 2
    else:
        encoder = GNNEncoder(args.featurizer, args.layers, args.emb_dim, args.conv, args.jk, args.dropout)
    loader = DataLoader(dataset, args.batch_size, shuffle=True, seed=args.seed)
    progress = not args.no_progress

    def report(epoch, record):
        print(f"  epoch {epoch}: " + ", ".join(f"{k} {v:.4f}" for k, v in record.items()), flush=True)

    if args.task == "supervised":
        if dataset.num_tasks == 0:
            print(f"sampan helix pretrain: error: supervised pretraining needs label columns in {args.dataset}",
                  file=sys.stderr)
            return 2
        result = pt.pretrain_supervised(encoder, dataset.num_tasks, loader, args.epochs, args.lr, progress=progress,
                                        max_batches=args.max_batches, device=args.device)
        for epoch, loss in enumerate(result["history"]["loss"], 1):
            report(epoch, {"loss": loss})
    else:
        task = (pt.AttributeMasking(encoder, args.mask_rate, args.seed) if args.task == "attr_mask"
                else pt.ContextPrediction(encoder, args.context_size, seed=args.seed))
        result = pt.pretrain(task, loader, args.epochs, args.lr, progress, args.max_batches, on_epoch=report,
                             checkpoint=args.checkpoint, device=args.device)
    provenance = {"task": args.task, "dataset": os.path.abspath(args.dataset), "molecules": len(dataset),
                  "epochs": args.epochs, "batch_size": args.batch_size, "lr": args.lr, "seed": args.seed,
                  "init": args.init or "", "history": result["history"], "ranks": ranks}
    if dist.rank() == 0:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        pt.save_encoder(encoder, args.out, provenance)
        print(f"encoder -> {args.out}")
    return 0
