"""The `sampan helix` commands.

  sampan helix featurize INPUT -o OUT.h5 [--featurizer ogb|pretrain_gnns] [--smiles-column NAME]
                         [--tasks A,B] [--on-bad-row skip|raise] [--threads N] [--quiet]
  sampan helix pretrain ... / sampan helix finetune ...   (train_cli.py)
  sampan helix predict --model BEST.h5 --dataset NEW.csv --out PREDICTIONS.csv [--smiles-column NAME]

Each command is added by an ``_add_<command>(subparsers)`` function below and sets ``run=``.
"""
import os
import sys
import time
import warnings

from .train_cli import add_finetune_parser, add_pretrain_parser, comma_list, print_warnings


def register(subparsers):
    parser = subparsers.add_parser("helix", help="molecular representation learning (featurize, pretrain, finetune)",
                                   description="helix: molecular representation learning on RDKit graphs")
    commands = parser.add_subparsers(dest="helix_command", metavar="COMMAND")
    commands.required = True
    _add_featurize(commands)
    add_pretrain_parser(commands)
    add_finetune_parser(commands)
    _add_predict(commands)
    return commands


# ---------------------------------------------------------------------------------------------
# progress bars
# ---------------------------------------------------------------------------------------------

class _SimpleBar:
    """A minimal text progress bar on stderr, used where tqdm is not installed."""

    def __init__(self, total=0, desc="", disable=False, unit="mol"):
        self.total, self.n, self.desc, self.disable, self.unit = total, 0, desc, disable, unit
        self.start = time.perf_counter()

    def reset(self, total=None):
        if total is not None:
            self.total = total
        self.n = 0
        self.start = time.perf_counter()
        self._draw()

    def update(self, k=1):
        self.n += k
        self._draw()

    def _draw(self):
        if self.disable:
            return
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        frac = self.n / self.total if self.total else 0.0
        filled = int(30 * frac)
        sys.stderr.write(f"\r{self.desc}: [{'#' * filled}{'.' * (30 - filled)}] {self.n}/{self.total} "
                         f"{self.n / elapsed:,.0f} {self.unit}/s")
        sys.stderr.flush()

    def close(self):
        if not self.disable:
            sys.stderr.write("\n")


def progress_bar(total=0, desc="", disable=False, unit="mol"):
    """A tqdm bar when tqdm is installed (it is in requirements.txt), else a small text bar."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _SimpleBar(total, desc, disable, unit)
    return tqdm(total=total, desc=desc, disable=disable, unit=unit, file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# featurize
# ---------------------------------------------------------------------------------------------

def _add_featurize(commands):
    p = commands.add_parser(
        "featurize", help="featurize molecules (CSV/SMILES/SDF) into an HDF5 dataset",
        description="Reads molecules and labels (SMILES CSV, .smi, SDF; .gz allowed), featurizes them "
                    "with RDKit in parallel and writes a dataset HDF5 file that helix's pretrain and "
                    "finetune commands and sampan.helix.load_dataset read. Bad rows and invalid SMILES "
                    "are reported with their row numbers and left out.")
    p.add_argument("input", help="input file: .csv[.gz], .smi/.txt[.gz] or .sdf[.gz]")
    p.add_argument("-o", "--output", required=True, help="output HDF5 file (written atomically)")
    p.add_argument("--featurizer", default="ogb", choices=["ogb", "pretrain_gnns"],
                   help="ogb: OGB smiles2graph, 9 atom + 3 bond features (default); pretrain_gnns: Hu et al.")
    p.add_argument("--smiles-column", default=None, help="CSV column with the SMILES (default: found by name)")
    p.add_argument("--tasks", "--label-columns", dest="tasks", type=comma_list, default=None,
                   help="comma-separated label columns (CSV) or SD properties (SDF); default: the CSV's "
                        "numeric columns that are not identifiers (num, name, mol_id, ...), no SDF labels")
    p.add_argument("--on-bad-row", default="skip", choices=["skip", "raise"],
                   help="a label that is not a number: skip the row with a warning (default) or stop")
    p.add_argument("--threads", type=int, default=0, help="featurization threads (default: all)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run_featurize)
    return p


def run_featurize(args):
    from .data import read_dataset
    if not os.path.exists(args.input):
        print(f"sampan helix featurize: error: {args.input}: no such file", file=sys.stderr)
        return 2
    bar = progress_bar(desc=f"featurize {os.path.basename(args.input)}", disable=args.quiet)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dataset = read_dataset(args.input, featurizer=args.featurizer, smiles_column=args.smiles_column,
                                   tasks=args.tasks, on_bad_row=args.on_bad_row, num_threads=args.threads,
                                   progress=bar)
    except (ValueError, OSError, RuntimeError) as error:
        bar.close()
        print(f"sampan helix featurize: error: {error}", file=sys.stderr)
        return 2
    bar.close()
    print_warnings("featurize", caught)
    elapsed = time.perf_counter() - start
    try:
        dataset.save(args.output, extra={"command": "sampan helix featurize", "input": os.path.abspath(args.input)})
    except (OSError, ValueError) as error:
        print(f"sampan helix featurize: error: cannot write {args.output}: {error}", file=sys.stderr)
        return 2
    print(f"{args.input}: {len(dataset)} molecules ({dataset.num_nodes} atoms, {dataset.num_edges // 2} bonds), "
          f"{dataset.num_tasks} label column(s), {len(dataset.invalid)} row(s) left out; featurizer "
          f"{args.featurizer}; {elapsed:.2f} s ({len(dataset) / max(elapsed, 1e-9):,.0f} mol/s) -> {args.output}")
    return 0


# ---------------------------------------------------------------------------------------------
# predict
# ---------------------------------------------------------------------------------------------

def _add_predict(commands):
    p = commands.add_parser(
        "predict", help="apply a fine-tuned model to new molecules, predictions to CSV",
        description="Reads SMILES (a CSV with a SMILES column, or a .smi list), applies the model that "
                    "`sampan helix finetune` wrote (--model-out, default next to --out) and writes a CSV: "
                    "the SMILES and one column per task, probabilities for classification, values for "
                    "regression. Rows whose SMILES RDKit cannot read keep their place with empty cells.")
    p.add_argument("--model", required=True, help="model HDF5 written by `sampan helix finetune`")
    p.add_argument("--dataset", required=True, help="molecules: .csv[.gz] with a SMILES column, or .smi/.txt")
    p.add_argument("--out", required=True, help="predictions CSV (written to a temp file, then renamed)")
    p.add_argument("--smiles-column", default=None, help="CSV column with the SMILES (default: found by name)")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--threads", type=int, default=0, help="featurization threads (default: all)")
    p.set_defaults(run=run_predict)
    return p


def run_predict(args):
    from .predict import predict, read_smiles_file
    try:
        if not os.path.exists(args.dataset):
            raise FileNotFoundError(f"{args.dataset}: no such file")
        smiles, rows, problems = read_smiles_file(args.dataset, args.smiles_column)
        result = predict(args.model, smiles, batch_size=args.batch_size, num_threads=args.threads)
        result.values[[i for i, row in enumerate(rows) if row in problems]] = float("nan")  # malformed rows
        result.write_csv(args.out)
    except (ValueError, OSError, RuntimeError) as error:
        print(f"sampan helix predict: error: {error}", file=sys.stderr)
        return 2
    unread = {rows[m["index"]]: m["reason"] for m in result.invalid}
    unread.update(problems)
    for row in sorted(unread):
        print(f"sampan helix predict: warning: {args.dataset}: row {row}: no prediction: {unread[row]}",
              file=sys.stderr)
    print(f"{args.dataset}: {len(smiles) - len(unread)} of {len(smiles)} molecules predicted "
          f"({', '.join(result.tasks)}: {result.kind}); {len(unread)} row(s) left empty -> {args.out}")
    return 0
