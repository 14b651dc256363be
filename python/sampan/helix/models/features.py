"""Categorical atom and bond features -> dense vectors (one embedding table per feature column,
the per-column embeddings summed, as Hu et al. 2020 and OGB's AtomEncoder/BondEncoder do).

Vocabulary sizes are fixed per featurizer (never taken from RDKit enums, which drift between
releases; see shared/reference/helix.md section 1). Every table has two extra rows after the
featurizer's vocabulary:
  index dims[c]     : bonds: the self-loop bond type (Hu et al. use bond type 4 for the self loop);
                      atoms: the mask token of attribute masking (Hu et al. use atom type 119);
  index dims[c] + 1 : bonds: the mask token of edge masking (Hu et al. bond type 5).
"""
import math

import numpy as np

import sampan
from sampan import nn


def as_tensor(a):
    """A sampan Tensor for a batch field: Tensors pass through, NumPy arrays are wrapped without
    copying when contiguous (sampan.helix.data.GraphBatch holds NumPy arrays)."""
    if isinstance(a, np.ndarray):
        return sampan.from_numpy(np.ascontiguousarray(a))
    return a


def as_numpy(a):
    """A NumPy array for a batch field (a CPU Tensor's zero-copy view, a GPU Tensor's host copy,
    or the array itself)."""
    if isinstance(a, np.ndarray):
        return a
    return a.numpy() if a.device == "cpu" else a.cpu().numpy()

# Feature-column vocabulary sizes per featurizer.
#  'ogb': OGB smiles2graph's 9 atom features (atomic number, chirality, degree, formal charge,
#         number of Hs, radical electrons, hybridization, aromatic, in ring) and 3 bond features
#         (type, stereo, conjugated); sizes from ogb.utils.features get_atom/bond_feature_dims.
#  'pretrain_gnns': Hu et al.'s scheme: atom type (atomic number - 1, 0..117, other 118) and
#         chirality tag (unspecified, CW, CCW, other); bond type (single, double, triple,
#         aromatic, other) and bond direction (none, end-up-right, end-down-right, other).
# These are the sizes of helix's featurizers (helix/include/sampan/helix/featurize.h).
FEATURE_DIMS = {
    "ogb": {"atom": (119, 5, 12, 12, 10, 6, 6, 2, 2), "bond": (5, 6, 2)},
    "pretrain_gnns": {"atom": (119, 4), "bond": (5, 4)},
}


def feature_dims(featurizer):
    """(atom_dims, bond_dims) for a featurizer name, or the pair itself when given one."""
    if isinstance(featurizer, str):
        try:
            dims = FEATURE_DIMS[featurizer]
        except KeyError:
            raise ValueError(f"unknown featurizer {featurizer!r}; known: {', '.join(sorted(FEATURE_DIMS))}") from None
        return tuple(dims["atom"]), tuple(dims["bond"])
    atom, bond = featurizer
    return tuple(int(d) for d in atom), tuple(int(d) for d in bond)


class CategoricalEncoder(nn.Module):
    """sum_c table_c[x[:, c]] for an int64 feature matrix x [n, len(dims)]; tables have
    dims[c] + 2 rows (the special rows described in the module docstring), Xavier-uniform
    initialized as in Hu et al.'s code."""

    def __init__(self, dims, emb_dim, what="feature"):
        super().__init__()
        self.dims = tuple(int(d) for d in dims)
        self.emb_dim = emb_dim
        self.what = what
        self.tables = nn.ModuleList([nn.Embedding(d + 2, emb_dim) for d in self.dims])
        for table in self.tables:
            nn.init.xavier_uniform_(table.weight)

    def special_index(self, column, which=0):
        """The row after the vocabulary of `column` (which=0: self loop / atom mask; 1: bond mask)."""
        return self.dims[column] + which

    def forward(self, x):
        return self.sum_rows(x, [table.weight for table in self.tables])

    def _checked(self, x):
        x = as_tensor(x)
        if x.ndim != 2 or x.shape[1] != len(self.dims):
            raise ValueError(f"{self.what} encoder: expected an int64 matrix [n, {len(self.dims)}] of categorical "
                             f"{self.what} features, got shape {tuple(x.shape)}")
        return x

    def sum_rows(self, x, tables):
        """sum_c tables[c][x[:, c]] for tables shaped as this encoder's (the fast path passes them
        multiplied by a layer's weight)."""
        x = self._checked(x)
        out = None
        for c, table in enumerate(tables):
            rows = sampan.index_select(table, 0, x[:, c])
            out = rows if out is None else out + rows
        return out

    def combinations(self):
        """How many rows combined_table has: the product of the tables' row counts."""
        return math.prod(d + 2 for d in self.dims)

    def combined_index(self, x):
        """The row of each feature combination of x in combined_table (mixed radix, column 0 first)."""
        x = self._checked(x)
        index = x[:, 0]
        for c, d in enumerate(self.dims[1:], 1):
            index = index * (d + 2) + x[:, c]
        return index

    def combined_table(self, tables):
        """Every sum tables[0][i0] + tables[1][i1] + ..., added in column order as sum_rows adds, so
        combined_table(t)[combined_index(x)] has the bits of sum_rows(x, t) with one gather."""
        out = tables[0]
        for table in tables[1:]:
            out = (sampan.unsqueeze(out, 1) + sampan.unsqueeze(table, 0)).reshape(-1, table.shape[1])
        return out

    def check_range(self, x):
        """Raises a ValueError naming the column if a feature index lies outside its table."""
        if x.numel() == 0:
            return
        values = as_numpy(x)
        for c, d in enumerate(self.dims):
            lo, hi = int(values[:, c].min()), int(values[:, c].max())
            if lo < 0 or hi >= d + 2:
                raise ValueError(f"{self.what} feature column {c}: values in [{lo}, {hi}] but the table holds "
                                 f"[0, {d + 2}) (vocabulary {d} + 2 special rows); wrong featurizer for this model?")
