"""Featurization of molecules into integer graphs (C++ over RDKit, parallel over molecules).

Featurizers (vocabularies fixed in code; see helix/include/sampan/helix/featurize.h):
  'ogb'            OGB's smiles2graph: 9 atom features [119, 5, 12, 12, 10, 6, 6, 2, 2] and 3 bond
                   features [5, 6, 2]; identical output to ogb.utils.smiles2graph.
  'pretrain_gnns'  Hu et al. 2020: atom type and chirality [119, 4]; bond type and direction [5, 4]
                   (each with a last 'other' id where Hu's lists stop).
"""
import warnings

import numpy as np

from ._native import native
from .data import MoleculeDataset

__all__ = ["FEATURIZERS", "featurizer_spec", "feature_sizes", "featurize", "featurize_graphs", "smiles2graph"]

FEATURIZERS = ("ogb", "pretrain_gnns")


def featurizer_spec(name="ogb"):
    """dict: name, version, atom/bond feature names and vocabulary sizes."""
    return native().featurizer_spec(name)


def feature_sizes(name="ogb"):
    """(atom_feature_sizes, bond_feature_sizes) as tuples."""
    spec = featurizer_spec(name)
    return tuple(spec["atom_feature_sizes"]), tuple(spec["bond_feature_sizes"])


def featurize_graphs(smiles, featurizer="ogb", rows=None, num_threads=0, progress=None, chunk_size=4096):
    """The C++ featurizer's dict of flat arrays for `smiles` (see sampan._C.helix.featurize_smiles).

    progress: None, or a callable called with the number of molecules done after each chunk (a
    tqdm bar's update); the molecules are then featurized in chunks of `chunk_size` (each chunk
    in parallel) and the chunks joined.
    """
    h = native()
    rows = [] if rows is None else list(np.asarray(rows, dtype=np.int64))
    if progress is None or len(smiles) <= chunk_size:
        out = h.featurize_smiles(smiles, featurizer, rows, num_threads)
        if progress is not None:
            progress(len(smiles))
        return out
    parts = []
    for start in range(0, len(smiles), chunk_size):
        stop = min(start + chunk_size, len(smiles))
        parts.append((start, h.featurize_smiles(smiles[start:stop], featurizer, rows[start:stop] if rows else [],
                                                num_threads)))
        progress(stop - start)
    return _join_graphs(parts)


def _join_graphs(parts):
    """One featurizer dict from chunks [(first input index, dict)]."""
    def offsets(key):
        pieces, base = [np.zeros(1, dtype=np.int64)], 0
        for _, p in parts:
            pieces.append(p[key][1:] + base)
            base += int(p[key][-1])
        return np.concatenate(pieces)
    out = {"featurizer": parts[0][1]["featurizer"], "node_offsets": offsets("node_offsets"),
           "edge_offsets": offsets("edge_offsets")}
    for key in ("atom_features", "edge_source", "edge_target", "bond_features"):
        out[key] = np.concatenate([p[key] for _, p in parts])
    out["source_index"] = np.concatenate([p["source_index"] + start for start, p in parts])
    out["invalid"] = [dict(m, index=m["index"] + start) for start, p in parts for m in p["invalid"]]
    return out


def featurize(smiles, featurizer="ogb", labels=None, label_names=None, num_threads=0, warn=True):
    """A MoleculeDataset from SMILES strings (and optional labels [G, T], NaN = missing).

    SMILES that RDKit cannot read are skipped (listed in dataset.invalid, with a warning), so the
    dataset can be shorter than the input; dataset.rows holds each molecule's input position.
    """
    if isinstance(smiles, str):
        smiles = [smiles]
    smiles = list(smiles)
    graphs = native().featurize_smiles(smiles, featurizer, [], num_threads)
    keep = graphs["source_index"]
    if labels is not None:
        labels = np.asarray(labels, dtype=np.float64)
        if labels.ndim == 1:
            labels = labels[:, None]
        if labels.shape[0] != len(smiles):
            raise ValueError(f"featurize: {labels.shape[0]} label rows for {len(smiles)} SMILES")
        labels = labels[keep]
    if warn and graphs["invalid"]:
        shown = "; ".join(f"#{m['index']} '{m['text']}': {m['reason']}" for m in graphs["invalid"][:5])
        warnings.warn(f"featurize: {len(graphs['invalid'])} SMILES skipped: {shown}", stacklevel=2)
    return MoleculeDataset.from_graphs(graphs, labels=labels, smiles=[smiles[i] for i in keep], rows=keep,
                                       label_names=label_names)


def smiles2graph(smiles, featurizer="ogb"):
    """One molecule as OGB's smiles2graph returns it: dict with edge_index int64 [2, E],
    edge_feat int64 [E, n_bond], node_feat int64 [N, n_atom], num_nodes. ValueError when RDKit
    cannot read the SMILES."""
    graphs = native().featurize_smiles([smiles], featurizer, [], 1)
    if graphs["invalid"]:
        raise ValueError(f"smiles2graph: '{smiles}': {graphs['invalid'][0]['reason']}")
    return {
        "edge_index": np.stack([graphs["edge_source"], graphs["edge_target"]]),
        "edge_feat": graphs["bond_features"],
        "node_feat": graphs["atom_features"],
        "num_nodes": int(graphs["node_offsets"][1]),
    }
