"""Synthetic molecule-like graphs for the helix model tests (no RDKit needed): random trees plus
a few ring-closing bonds, categorical features inside the 'pretrain_gnns' vocabularies, batched
into the same disjoint-union layout (NumPy arrays) as sampan.helix.data.GraphBatch."""
from types import SimpleNamespace

import numpy as np

import sampan as sp

ATOM_DIMS = (119, 4)
BOND_DIMS = (5, 4)


def random_graph(rng, n_min=3, n_max=9, atom_types=(5, 6, 7, 8, 15)):
    n = int(rng.integers(n_min, n_max + 1))
    x = np.stack([rng.choice(atom_types, n), rng.integers(0, 4, n)], 1).astype(np.int64)
    bonds = [(int(rng.integers(0, i)), i) for i in range(1, n)]
    if n >= 5 and rng.random() < 0.5:
        bonds.append((0, n - 1))
    attr = np.stack([rng.integers(0, 4, len(bonds)), rng.integers(0, 3, len(bonds))], 1).astype(np.int64)
    return x, np.array(bonds, np.int64).reshape(-1, 2), attr


def phosphorus_rule_set(seed=7, count=48):
    """Graphs labelled 1 iff the molecule holds a phosphorus (atom type 15) bonded by a double bond
    (type 1): a rule that needs atom and bond features and a neighbourhood, so a GNN must fit it.
    Returns (graphs, y [count, 1])."""
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, atom_types=(5, 6, 7, 15)) for _ in range(count)]

    def label(g):
        x, bonds, attr = g
        return float(any(attr[k, 0] == 1 and (x[i, 0] == 15 or x[j, 0] == 15) for k, (i, j) in enumerate(bonds)))
    return graphs, np.array([[label(g)] for g in graphs])


def make_batch(graphs, y=None, y_mask=None):
    """graphs: list of (x [n, 2], bonds [b, 2], bond_attr [b, 2]); edges stored in both directions."""
    xs, edges, attrs, batch, counts, offset = [], [], [], [], [], 0
    for g, (x, bonds, attr) in enumerate(graphs):
        xs.append(x)
        both = np.concatenate([bonds, bonds[:, ::-1]], 0) + offset
        edges.append(both)
        attrs.append(np.concatenate([attr, attr], 0))
        batch.append(np.full(len(x), g, np.int64))
        counts.append(len(x))
        offset += len(x)
    edge_index = np.concatenate(edges, 0).T.copy()
    ns = SimpleNamespace(x=np.concatenate(xs, 0), edge_index=edge_index, edge_attr=np.concatenate(attrs, 0),
                         batch=np.concatenate(batch), num_graphs=len(graphs), counts=np.array(counts, np.int64))
    if y is not None:
        ns.y_mask = np.ones(np.shape(y), bool) if y_mask is None else np.asarray(y_mask, bool)
        ns.y = np.where(ns.y_mask, np.nan_to_num(np.asarray(y, np.float64)), 0.0).astype(np.float32)
    return ns


def as_tensors(batch):
    """The same batch with sampan Tensors instead of NumPy arrays (both layouts are accepted)."""
    out = SimpleNamespace(**vars(batch))
    for name in ("x", "edge_index", "edge_attr", "batch", "counts", "y", "y_mask"):
        if hasattr(out, name):
            setattr(out, name, sp.tensor(getattr(out, name)))
    return out
