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
from .graph_arrays import featurize_graphs

__all__ = ["FEATURIZERS", "featurizer_spec", "feature_sizes", "featurize", "featurize_graphs", "smiles2graph"]

FEATURIZERS = ("ogb", "pretrain_gnns")


def featurizer_spec(name="ogb"):
    """dict: name, version, atom/bond feature names and vocabulary sizes."""
    return native().featurizer_spec(name)


def feature_sizes(name="ogb"):
    """(atom_feature_sizes, bond_feature_sizes) as tuples."""
    spec = featurizer_spec(name)
    return tuple(spec["atom_feature_sizes"]), tuple(spec["bond_feature_sizes"])


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
