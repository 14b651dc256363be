"""An OGB graph-property dataset folder, read as OGB writes it, with its official split.

    <root>/mapping/mol.csv.gz              a header, then one molecule per line: task columns,
                                           smiles, mol_id (OGB's order; any order is read)
    <root>/split/<name>/train.csv.gz       one 0-based row index of mol.csv.gz per line, no header
    <root>/split/<name>/valid.csv.gz       (likewise; .csv without .gz is read too)
    <root>/split/<name>/test.csv.gz

<root> is the folder OGB creates for a dataset, e.g. dataset/ogbg_molhiv. OGB's featurized
files (raw/, processed/) are not read: the molecules are featurized from mol.csv.gz.
"""
import gzip
import os

import numpy as np

from . import csv_columns
from .user_warning import warn

SPLIT_PARTS = ("train", "valid", "test")
MOLECULES_FILE = os.path.join("mapping", "mol.csv.gz")
SMILES_COLUMN, ID_COLUMN = "smiles", "mol_id"  # OGB's names; every other column of mol.csv.gz is a task


def is_ogb_folder(path):
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, MOLECULES_FILE))


def split_names(root):
    """The splits the folder holds (the folders under <root>/split)."""
    folder = os.path.join(root, "split")
    return sorted(n for n in os.listdir(folder) if os.path.isdir(os.path.join(folder, n))) if os.path.isdir(folder) else []


def _part_file(root, split, part):
    for name in (f"{part}.csv.gz", f"{part}.csv"):
        path = os.path.join(root, "split", split, name)
        if os.path.isfile(path):
            return path
    return None


def _read_indices(path, count):
    """The row indices of one split file; ValueError naming file and line for a bad one."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = f.read().splitlines()
    out = []
    for number, text in enumerate(lines, 1):
        text = text.strip()
        if not text:
            continue
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{path}: line {number}: expected a row index of {MOLECULES_FILE} (an integer), "
                             f"found {text!r}") from None
        if not 0 <= value < count:
            raise ValueError(f"{path}: line {number}: row index {value} is outside 0..{count - 1} "
                             f"({count} molecules in {MOLECULES_FILE})")
        out.append(value)
    return np.asarray(out, dtype=np.int64)


def read_split(root, split="scaffold", count=None):
    """(train, valid, test): the row indices of mol.csv.gz in <root>/split/<split>, as written."""
    if count is None:
        count = len(csv_columns.record_lines(os.path.join(root, MOLECULES_FILE)))
    paths = [_part_file(root, split, part) for part in SPLIT_PARTS]
    if None in paths:
        missing = SPLIT_PARTS[paths.index(None)]
        raise ValueError(f"{root}: no split/{split}/{missing}.csv.gz; the splits there: "
                         f"{', '.join(split_names(root)) or 'none'}")
    parts = tuple(_read_indices(p, count) for p in paths)
    seen = np.concatenate(parts)
    if len(np.unique(seen)) != len(seen):
        raise ValueError(f"{root}: split/{split}: a row index appears more than once across {', '.join(SPLIT_PARTS)}")
    return parts


def load_ogb_folder(root, featurizer="ogb", split="scaffold", tasks=None, cache=True, num_threads=0, progress=None):
    """(dataset, (train, valid, test)): the molecules of <root>/mapping/mol.csv.gz (tasks: every
    column but smiles and mol_id, unless `tasks` names them) and the official split as positions
    in that dataset.
    A split row whose SMILES RDKit cannot read has no molecule; it is reported and left out."""
    from .data import load_dataset
    root = os.fspath(root)
    if not is_ogb_folder(root):
        raise ValueError(f"{root}: not an OGB dataset folder (no {MOLECULES_FILE})")
    csv_path = os.path.join(root, MOLECULES_FILE)
    columns = csv_columns.infer_columns(csv_path, SMILES_COLUMN)
    lines = columns.record_lines
    parts = read_split(root, split, len(lines))
    if tasks is None:  # OGB's layout says which columns are tasks: all but smiles and mol_id
        tasks = [c for c in columns.header if c not in (SMILES_COLUMN, ID_COLUMN)]
    dataset = load_dataset(csv_path, featurizer=featurizer, smiles_column=SMILES_COLUMN, tasks=tasks, cache=cache,
                           num_threads=num_threads, progress=progress)
    position_of_line = {int(line): i for i, line in enumerate(dataset.rows)}
    positions, lost = [], []
    for part, indices in zip(SPLIT_PARTS, parts):
        found = [position_of_line.get(lines[k]) for k in indices]
        lost += [f"{part} row {k}" for k, p in zip(indices, found) if p is None]
        positions.append(np.asarray([p for p in found if p is not None], dtype=np.int64))
    if lost:
        warn(f"{root}: {len(lost)} split row(s) have no molecule (left out of the dataset): "
             f"{', '.join(lost[:10])}{' ...' if len(lost) > 10 else ''}")
    return dataset, tuple(positions)
