"""Molecular graph datasets and mini-batches.

A :class:`MoleculeDataset` holds many featurized molecules in flat NumPy arrays (OGB's layout,
concatenated; see helix/include/sampan/helix/featurize.h): graph ``g`` owns atoms
``node_offsets[g]:node_offsets[g+1]`` and directed edges ``edge_offsets[g]:edge_offsets[g+1]``,
whose endpoints are atom indices local to the graph. Labels are ``y`` [G, T] float32 with
``y_mask`` [G, T] bool (False where the label is missing; ``y`` is 0 there, never NaN).

Indexing with an int array, a boolean mask or a slice gives a new dataset of those molecules;
``dataset.batch(indices)`` and :class:`DataLoader` give :class:`GraphBatch` objects, one
disjoint-union graph per batch (no padding): node and edge arrays concatenated, edge endpoints
offset by the running atom count, and ``batch`` mapping each atom to its graph.
"""
import dataclasses
import hashlib
import json
import os

import numpy as np

import sampan

from . import csv_columns
from ._native import native
from .graph_arrays import featurize_graphs
from .user_warning import warn

__all__ = ["GraphBatch", "MoleculeDataset", "DataLoader", "load_dataset", "read_csv_table", "cache_path_for"]


@dataclasses.dataclass
class GraphBatch:
    """Several molecules as one disjoint-union graph.

    Fields::

        x:          int64 [N, n_atom_features] categorical atom features
        edge_index: int64 [2, E] source (row 0) and target (row 1) atom of each directed edge, indices
                    into the batch's atoms; every bond appears in both directions
        edge_attr:  int64 [E, n_bond_features] categorical bond features of each directed edge
        batch:      int64 [N] the graph (0..num_graphs-1) of each atom
        num_graphs: number of molecules G
        counts:     int64 [G] atoms per molecule; node_offsets int64 [G+1] their prefix sums (CSR)
        edge_counts:int64 [G] directed edges per molecule
        y:          float32 [G, T] labels (0 where missing); y_mask bool [G, T] (False where missing)
        indices:    int64 [G] positions of these molecules in the dataset they came from
        smiles:     list of G SMILES
        featurizer: the featurizer's name ('ogb' or 'pretrain_gnns')
    """
    x: np.ndarray
    edge_index: np.ndarray
    edge_attr: np.ndarray
    batch: np.ndarray
    num_graphs: int
    counts: np.ndarray
    node_offsets: np.ndarray
    edge_counts: np.ndarray
    y: np.ndarray
    y_mask: np.ndarray
    indices: np.ndarray
    smiles: list
    featurizer: str

    @property
    def num_nodes(self):
        return int(self.x.shape[0])

    @property
    def num_edges(self):
        return int(self.edge_index.shape[1])

    def __len__(self):
        return self.num_graphs

    def to(self, device):
        """This batch with its arrays as sampan tensors on `device` ('cpu', 'cuda'), for a model
        there (sp.Model places batches so); the SMILES and counts stay as they are."""
        moved = {f: sampan.tensor(np.ascontiguousarray(getattr(self, f)), device=device) for f in _BATCH_ARRAYS}
        return dataclasses.replace(self, **moved)


# The fields of a GraphBatch that GraphBatch.to moves.
_BATCH_ARRAYS = ("x", "edge_index", "edge_attr", "batch", "counts", "node_offsets", "edge_counts", "y", "y_mask",
                 "indices")


def _ranges(starts, counts):
    """Concatenation of arange(starts[i], starts[i] + counts[i]) over i (vectorized)."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    out_starts = np.cumsum(counts) - counts
    return np.repeat(np.asarray(starts, dtype=np.int64) - out_starts, counts) + np.arange(total, dtype=np.int64)


def _gather_graphs(node_offsets, edge_offsets, idx):
    """For graphs `idx`: (atom rows, edge rows, atoms per graph, edges per graph)."""
    counts = node_offsets[idx + 1] - node_offsets[idx]
    edge_counts = edge_offsets[idx + 1] - edge_offsets[idx]
    return (_ranges(node_offsets[idx], counts), _ranges(edge_offsets[idx], edge_counts), counts, edge_counts)


def _offsets(counts):
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


class MoleculeDataset:
    """Featurized molecules with labels (see the module docstring for the layout)."""

    def __init__(self, featurizer, atom_features, bond_features, edge_index, node_offsets, edge_offsets,
                 labels=None, smiles=None, rows=None, label_names=None, source=None, invalid=None):
        spec = native().featurizer_spec(featurizer)
        self.featurizer = featurizer
        self.atom_feature_sizes = tuple(spec["atom_feature_sizes"])
        self.bond_feature_sizes = tuple(spec["bond_feature_sizes"])
        self.atom_features = np.ascontiguousarray(atom_features, dtype=np.int64)
        self.bond_features = np.ascontiguousarray(bond_features, dtype=np.int64)
        self.edge_index = np.ascontiguousarray(edge_index, dtype=np.int64)  # local to each graph
        self.node_offsets = np.ascontiguousarray(node_offsets, dtype=np.int64)
        self.edge_offsets = np.ascontiguousarray(edge_offsets, dtype=np.int64)
        g = len(self.node_offsets) - 1
        if labels is None:
            labels = np.zeros((g, 0), dtype=np.float64)
        labels = np.asarray(labels, dtype=np.float64)
        if labels.ndim == 1:
            labels = labels[:, None]
        # Missing labels are NaN in `labels`; y holds 0 there and y_mask False.
        self.y_mask = ~np.isnan(labels)
        self.y = np.where(self.y_mask, labels, 0.0).astype(np.float32)
        self.smiles = list(smiles) if smiles is not None else [""] * g
        self.rows = np.asarray(rows if rows is not None else np.full(g, -1), dtype=np.int64)
        self.label_names = list(label_names) if label_names is not None else [f"task_{t}" for t in range(labels.shape[1])]
        self.source = source
        self.invalid = list(invalid) if invalid is not None else []
        self._check()

    def _check(self):
        g = len(self)
        n_atom, n_bond = len(self.atom_feature_sizes), len(self.bond_feature_sizes)
        problems = []
        if self.atom_features.ndim != 2 or self.atom_features.shape[1] != n_atom:
            problems.append(f"atom_features has shape {self.atom_features.shape}, expected [N, {n_atom}]")
        if self.bond_features.ndim != 2 or self.bond_features.shape[1] != n_bond:
            problems.append(f"bond_features has shape {self.bond_features.shape}, expected [E, {n_bond}]")
        if self.edge_index.shape != (2, self.bond_features.shape[0]):
            problems.append(f"edge_index has shape {self.edge_index.shape}, expected (2, {self.bond_features.shape[0]})")
        if len(self.edge_offsets) != g + 1 or self.node_offsets[-1] != self.atom_features.shape[0] \
                or self.edge_offsets[-1] != self.bond_features.shape[0]:
            problems.append("node_offsets/edge_offsets do not match the feature arrays")
        if self.y.shape[0] != g or len(self.smiles) != g or len(self.rows) != g:
            problems.append(f"labels ({self.y.shape[0]}), smiles ({len(self.smiles)}) and rows ({len(self.rows)}) "
                            f"must have one entry per graph ({g})")
        if self.y.shape[1] != len(self.label_names):
            problems.append(f"{self.y.shape[1]} label columns but {len(self.label_names)} label names")
        if problems:
            raise ValueError("MoleculeDataset: " + "; ".join(problems))

    # ---- size and indexing ----
    def __len__(self):
        return len(self.node_offsets) - 1

    @property
    def num_tasks(self):
        return self.y.shape[1]

    @property
    def num_nodes(self):
        return int(self.node_offsets[-1])

    @property
    def num_edges(self):
        return int(self.edge_offsets[-1])

    @property
    def labels(self):
        """float64 [G, T] with NaN where a label is missing."""
        return np.where(self.y_mask, self.y.astype(np.float64), np.nan)

    def _index_array(self, index):
        g = len(self)
        if isinstance(index, slice):
            return np.arange(g, dtype=np.int64)[index]
        idx = np.asarray(index)
        if idx.dtype == np.bool_:
            if idx.shape != (g,):
                raise IndexError(f"MoleculeDataset: a boolean mask must have shape ({g},), got {idx.shape}")
            return np.nonzero(idx)[0].astype(np.int64)
        if idx.size and not np.issubdtype(idx.dtype, np.integer):
            raise IndexError(f"MoleculeDataset: indices must be integers, a boolean mask or a slice; got dtype {idx.dtype}")
        idx = idx.astype(np.int64).reshape(-1)
        if idx.size and (idx.min() < -g or idx.max() >= g):
            bad = idx[(idx < -g) | (idx >= g)][0]
            raise IndexError(f"MoleculeDataset: index {bad} is out of range for {g} molecules")
        return np.where(idx < 0, idx + g, idx)

    def __getitem__(self, index):
        """dataset[i] -> a one-molecule GraphBatch; dataset[array|mask|slice] -> a MoleculeDataset."""
        if isinstance(index, (int, np.integer)):
            return self.batch([int(index)])
        return self.subset(index)

    def subset(self, index):
        """A new dataset with the molecules at `index` (int array, boolean mask or slice), in that order."""
        idx = self._index_array(index)
        nodes, edges, counts, edge_counts = _gather_graphs(self.node_offsets, self.edge_offsets, idx)
        return MoleculeDataset(
            self.featurizer, self.atom_features[nodes], self.bond_features[edges], self.edge_index[:, edges],
            _offsets(counts), _offsets(edge_counts), labels=self.labels[idx],
            smiles=[self.smiles[i] for i in idx], rows=self.rows[idx], label_names=self.label_names,
            source=self.source, invalid=self.invalid)

    def batch(self, indices):
        """The molecules at `indices` as one GraphBatch (a disjoint-union graph)."""
        idx = self._index_array(indices)
        nodes, edges, counts, edge_counts = _gather_graphs(self.node_offsets, self.edge_offsets, idx)
        node_offsets = _offsets(counts)
        # Local endpoints + the first atom of their graph in the batch.
        shift = np.repeat(node_offsets[:-1], edge_counts)
        edge_index = self.edge_index[:, edges] + shift
        return GraphBatch(
            x=self.atom_features[nodes], edge_index=edge_index, edge_attr=self.bond_features[edges],
            batch=np.repeat(np.arange(len(idx), dtype=np.int64), counts), num_graphs=int(len(idx)),
            counts=counts, node_offsets=node_offsets, edge_counts=edge_counts, y=self.y[idx],
            y_mask=self.y_mask[idx], indices=idx, smiles=[self.smiles[i] for i in idx], featurizer=self.featurizer)

    def __repr__(self):
        return (f"MoleculeDataset({len(self)} molecules, {self.num_nodes} atoms, {self.num_edges} directed edges, "
                f"{self.num_tasks} tasks, featurizer={self.featurizer!r})")

    # ---- construction ----
    @classmethod
    def from_graphs(cls, graphs, labels=None, smiles=None, rows=None, label_names=None, source=None):
        """From the dict the C++ featurizer returns (sampan._C.helix.featurize_smiles / read_sdf)."""
        edge_index = np.stack([graphs["edge_source"], graphs["edge_target"]])
        return cls(graphs["featurizer"], graphs["atom_features"], graphs["bond_features"], edge_index,
                   graphs["node_offsets"], graphs["edge_offsets"], labels=labels, smiles=smiles, rows=rows,
                   label_names=label_names, source=source, invalid=graphs.get("invalid"))

    # ---- HDF5 ----
    def save(self, path, extra=None):
        """Writes the dataset to an HDF5 file (sampan.save: atomic, readable with h5py)."""
        import sampan
        t = sampan.from_numpy
        spec = native().featurizer_spec(self.featurizer)
        record = {
            "format": "sampan-helix-dataset",
            "format_version": _FORMAT_VERSION,
            "featurizer": self.featurizer,
            "featurizer_version": int(spec["version"]),
            "atom_features": t(self.atom_features),
            "bond_features": t(self.bond_features),
            "edge_index": t(self.edge_index),
            "node_offsets": t(self.node_offsets),
            "edge_offsets": t(self.edge_offsets),
            "labels": t(np.ascontiguousarray(self.labels)),
            "rows": t(self.rows),
            # SMILES never contain a newline: one string instead of G small HDF5 datasets.
            "smiles": "\n".join(self.smiles),
            "label_names": list(self.label_names),
            "source": "" if self.source is None else str(self.source),
            "invalid": [[int(m["index"]), int(m["row"]), str(m["text"]), str(m["reason"])] for m in self.invalid],
        }
        if extra:
            record["extra"] = dict(extra)
        sampan.save(record, os.fspath(path))

    @classmethod
    def load(cls, path):
        """Reads a file written by save(). OSError/ValueError naming the file when it is not one."""
        import sampan
        path = os.fspath(path)
        record = sampan.load(path)
        return cls._from_record(record, path)

    @classmethod
    def _from_record(cls, record, path):
        if not isinstance(record, dict) or record.get("format") != "sampan-helix-dataset":
            raise ValueError(f"{path}: not a sampan helix dataset (no 'format' = 'sampan-helix-dataset')")
        if record.get("format_version") != _FORMAT_VERSION:
            raise ValueError(f"{path}: helix dataset format version {record.get('format_version')}, "
                             f"this sampan reads version {_FORMAT_VERSION}")
        missing = [k for k in _RECORD_KEYS if k not in record]
        if missing:
            raise ValueError(f"{path}: helix dataset lacks {', '.join(missing)}")
        a = lambda key: np.asarray(record[key].numpy())  # noqa: E731
        smiles = record["smiles"].split("\n") if record["smiles"] else []
        g = len(a("node_offsets")) - 1
        if g == 1 and not smiles:
            smiles = [""]
        invalid = [dict(index=i, row=r, text=s, reason=why) for i, r, s, why in record["invalid"]]
        return cls(record["featurizer"], a("atom_features"), a("bond_features"), a("edge_index"), a("node_offsets"),
                   a("edge_offsets"), labels=a("labels"), smiles=smiles, rows=a("rows"),
                   label_names=record["label_names"], source=record["source"] or None, invalid=invalid)


_FORMAT_VERSION = 1
_RECORD_KEYS = ("featurizer", "featurizer_version", "atom_features", "bond_features", "edge_index",
                "node_offsets", "edge_offsets", "labels", "rows", "smiles", "label_names", "source", "invalid")


class DataLoader:
    """Mini-batches of a MoleculeDataset as GraphBatch objects.

    shuffle=True draws a new order every epoch (every iteration over the loader) from a NumPy
    generator seeded with `seed`, so the same seed gives the same sequence of epochs.
    """

    def __init__(self, dataset, batch_size=32, shuffle=False, seed=None, drop_last=False):
        if batch_size < 1:
            raise ValueError(f"DataLoader: batch_size must be >= 1, got {batch_size}")
        self.dataset = dataset
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.drop_last = drop_last
        self._rng = np.random.default_rng(seed)

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size

    def rng_state(self):
        """The shuffling generator's state as a JSON string (for checkpoints): restoring it with
        set_rng_state makes the following epochs draw the same orders as without the pause."""
        return json.dumps(self._rng.bit_generator.state)

    def set_rng_state(self, state):
        self._rng.bit_generator.state = json.loads(state) if isinstance(state, str) else state

    def state_dict(self):
        """The shuffling state as sp.Model checkpoints take a loader's ({"rng": rng_state()})."""
        return {"rng": self.rng_state()}

    def load_state_dict(self, state):
        self.set_rng_state(state["rng"])

    def __iter__(self):
        return self.shard(0, 1)

    def shard(self, rank, size, max_batches=None):
        """One epoch's batches b with b % size == rank, of the first max_batches (all: None)
        rounded down to a multiple of size, so that every rank gets as many. The epoch's order is
        drawn as by iterating the loader (one draw per epoch), so ranks with the same seed agree
        on it and each batch goes to exactly one rank. Batches of other ranks are not built."""
        n = len(self.dataset)
        order = self._rng.permutation(n) if self.shuffle else np.arange(n)
        stop = (n // self.batch_size) * self.batch_size if self.drop_last else n
        starts = range(0, stop, self.batch_size)
        count = len(starts) if max_batches is None else min(len(starts), int(max_batches))
        count -= count % size
        for b in range(rank, count, size):
            yield self.dataset.batch(order[starts[b]:starts[b] + self.batch_size])


# ---------------------------------------------------------------------------------------------
# Reading files, with the HDF5 cache
# ---------------------------------------------------------------------------------------------

def _file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _default_cache_dir():
    return os.environ.get("SAMPAN_HELIX_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "sampan", "helix")


def input_kind(path):
    name = os.path.basename(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for ext, kind in ((".csv", "csv"), (".sdf", "sdf"), (".sd", "sdf"), (".smi", "smi"), (".smiles", "smi"),
                      (".txt", "smi"), (".h5", "h5"), (".hdf5", "h5")):
        if name.endswith(ext):
            return kind
    raise ValueError(f"{path}: cannot tell the file type from its name; expected .csv, .smi, .txt, .sdf "
                     f"(each optionally .gz) or .h5 (a featurized dataset)")


def _cache_key(sha256, featurizer, options):
    spec = native().featurizer_spec(featurizer)
    text = "|".join([sha256, featurizer, str(spec["version"]), str(_FORMAT_VERSION), repr(options)])
    return hashlib.sha256(text.encode()).hexdigest()


def cache_path_for(path, featurizer="ogb", cache_dir=None, smiles_column=None, label_columns=None, _sha=None):
    """Where load_dataset caches the featurized `path`: keyed by the file's SHA-256, the
    featurizer and its version, and the reader options."""
    sha = _sha or _file_sha256(path)
    inferred = ("inferred labels", csv_columns.RULE_VERSION)  # a new rule must not reuse old caches
    options = (smiles_column, tuple(label_columns) if label_columns is not None else inferred)
    key = _cache_key(sha, featurizer, options)
    stem = os.path.basename(path).split(".")[0] or "input"
    return os.path.join(cache_dir or _default_cache_dir(), f"{stem}.{featurizer}.{key[:20]}.h5"), sha, key


def _warn_dropped(path, errors, invalid):
    messages = [e["reason"] for e in errors] + [
        f"{path}: row {m['row']}: SMILES '{m['text']}' skipped: {m['reason']}" for m in invalid]
    if messages:
        shown = "\n  ".join(messages[:10])
        more = f"\n  ... and {len(messages) - 10} more" if len(messages) > 10 else ""
        warn(f"{path}: {len(messages)} row(s) left out:\n  {shown}{more}")


def read_csv_table(path, smiles_column=None, label_columns=None, on_bad_row="skip"):
    """The C++ reader's table of a molecule CSV: its SMILES, rows and label columns. With
    label_columns None the labels are inferred (sampan.helix.csv_columns) and the columns left
    out are reported once."""
    h = native()
    if label_columns is None:
        found = h.read_smiles_csv(path, smiles_column or "", [], False, on_bad_row)["smiles_column"]
        columns = csv_columns.infer_columns(path, found)
        message = columns.ignored_message(path)
        if message:
            warn(message)
        smiles_column, label_columns = found, columns.labels
    return h.read_smiles_csv(path, smiles_column or "", list(label_columns), False, on_bad_row)


def _tasks_or_label_columns(tasks, label_columns):
    if tasks is not None and label_columns is not None and list(tasks) != list(label_columns):
        raise ValueError(f"tasks={list(tasks)} and label_columns={list(label_columns)} disagree; give one of them")
    chosen = tasks if tasks is not None else label_columns
    if isinstance(chosen, str):
        raise TypeError(f"tasks must be a list of column names, got the string {chosen!r} (write [{chosen!r}])")
    return None if chosen is None else list(chosen)


def read_dataset(path, featurizer="ogb", smiles_column=None, label_columns=None, on_bad_row="skip",
                 num_threads=0, label_properties=None, progress=None, tasks=None):
    """Reads and featurizes `path` (no cache). See load_dataset."""
    path = os.fspath(path)
    label_columns = _tasks_or_label_columns(tasks, label_columns)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file")
    kind = input_kind(path)
    h = native()
    if kind == "h5":
        return MoleculeDataset.load(path)
    if kind == "sdf":
        d = h.read_sdf(path, featurizer, list(label_properties or label_columns or []), on_bad_row)
        ds = MoleculeDataset.from_graphs(d, labels=d["labels"], smiles=d["smiles"], rows=d["rows"],
                                         label_names=d["label_names"], source=path)
        _warn_dropped(path, [], [dict(m, text=m["text"]) for m in d["invalid"]])
        return ds
    if kind == "csv":
        table = read_csv_table(path, smiles_column, label_columns, on_bad_row)
    else:
        table = h.read_smiles_lines(path)
    if progress is not None and hasattr(progress, "reset"):
        progress.reset(total=len(table["smiles"]))
    graphs = featurize_graphs(table["smiles"], featurizer, table["rows"], num_threads,
                              progress=None if progress is None else getattr(progress, "update", progress))
    keep = graphs["source_index"]
    ds = MoleculeDataset.from_graphs(graphs, labels=table["labels"][keep], smiles=[table["smiles"][i] for i in keep],
                                     rows=table["rows"][keep], label_names=table["label_names"], source=path)
    ds.invalid = list(table["errors"]) + list(graphs["invalid"])
    _warn_dropped(path, table["errors"], graphs["invalid"])
    return ds


def load_dataset(path, featurizer="ogb", smiles_column=None, label_columns=None, cache=True, cache_dir=None,
                 on_bad_row="skip", num_threads=0, progress=None, tasks=None):
    """Reads molecules and labels from `path` and featurizes them, through an HDF5 cache.

    Arguments::

        path:          .csv (a SMILES column and label columns; .csv.gz too), .smi/.txt (one SMILES per
                       line), .sdf (RDKit's SDMolSupplier; label_columns name SD properties), or .h5 (a
                       dataset written by MoleculeDataset.save or `sampan helix featurize`)
        smiles_column: the SMILES column of a CSV; None picks it by name (smiles, mol, ...)
        tasks:         the label columns (label_columns is the same option under its older name);
                       None infers them for a CSV: numeric columns that are not identifiers (num,
                       name, mol_id, ... or a row counter; see sampan.helix.csv_columns), the
                       others reported once as ignored
        cache:         reuse/write the featurized dataset under cache_dir (default
                       $SAMPAN_HELIX_CACHE or ~/.cache/sampan/helix), keyed by the file's SHA-256, the
                       featurizer and its version and these options. A cache file that cannot be read
                       is reported and rebuilt; writes are atomic.
        on_bad_row:    'skip' (default: bad rows are left out with a warning naming file, row and
                       column) or 'raise'.
        progress:      None, a tqdm bar (reset to the molecule count, then updated) or a callable
                       taking the number of molecules done per chunk.

    Invalid SMILES are always skipped with a warning naming their rows; they are listed in
    dataset.invalid.
    """
    path = os.fspath(path)
    label_columns = _tasks_or_label_columns(tasks, label_columns)
    if not cache or input_kind(path) == "h5":
        return read_dataset(path, featurizer, smiles_column, label_columns, on_bad_row, num_threads, progress=progress)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file")
    cache_file, sha, key = cache_path_for(path, featurizer, cache_dir, smiles_column, label_columns)
    if os.path.exists(cache_file):
        try:
            import sampan
            record = sampan.load(cache_file)
            if not isinstance(record, dict) or record.get("extra", {}).get("cache_key") != key:
                raise ValueError(f"{cache_file}: its cache key does not match {path}")
            return MoleculeDataset._from_record(record, cache_file)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            warn(f"helix: the cache {cache_file} of {path} cannot be used ({error}); rebuilding it")
    dataset = read_dataset(path, featurizer, smiles_column, label_columns, on_bad_row, num_threads, progress=progress)
    try:
        os.makedirs(os.path.dirname(cache_file), exist_ok=True)
        dataset.save(cache_file, extra={"cache_key": key, "input_sha256": sha, "input_path": os.path.abspath(path)})
    except OSError as error:  # a read-only cache folder must not stop the run
        warn(f"helix: could not write the cache {cache_file}: {error}")
    return dataset
