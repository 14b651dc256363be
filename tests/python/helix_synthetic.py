"""Synthetic molecule-like graphs for the helix model tests (no RDKit needed): random trees plus
a few ring-closing bonds, categorical features inside the 'pretrain_gnns' vocabularies, batched
into the same disjoint-union layout as sampan.helix.data.GraphBatch."""
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
    ns = SimpleNamespace(x=sp.tensor(np.concatenate(xs, 0)), edge_index=sp.tensor(edge_index),
                         edge_attr=sp.tensor(np.concatenate(attrs, 0)), batch=sp.tensor(np.concatenate(batch)),
                         num_graphs=len(graphs), counts=sp.tensor(np.array(counts, np.int64)))
    if y is not None:
        ns.y = sp.tensor(np.asarray(y, np.float32))
        ns.y_mask = sp.tensor(np.ones(np.shape(y), bool) if y_mask is None else np.asarray(y_mask, bool))
    return ns
