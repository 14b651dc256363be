"""GIN's arithmetic regrouped by linearity: the same function as GINConv + BatchNorm1d + readout,
with less work. Each rewrite is exact in real arithmetic; in floating point the results equal the
plain composition to rounding (the summation order changes). GNNEncoder uses them for conv='gin'
unless ``encoder.fast_path = False``.

In training and in eval:
- self loop into the bias: W1 (agg + h + e_self) + b1 = W1 (agg + h) + (W1 e_self + b1), one
  [N, d] add fewer per layer;
- first layer from projected tables: the first layer's input is the atom embedding, a sum of
  table rows, and its messages add bond-table rows, so W1 times a node row is the sum of the rows
  of the tables multiplied by W1 once ([rows, d] x [d, 2d], 141 rows for 'pretrain_gnns') instead
  of the [N, d] x [d, 2d] product (and its two gradient products); taken when the batch has more
  nodes than the tables have rows.
In eval only (running statistics):
- BatchNorm folded into the Linear before it: BN(W r + b) = W' r + b' with s = gamma / sqrt(var +
  eps), W' = s * W (row-wise), b' = s * (b - mean) + beta;
- jk 'last' with a 'sum' or 'mean' readout: the last layer's W' commutes with the readout,
  pool(W' r + b') = W' pool(r) + c b' (c = the graph's node count for sum, 1 for a non-empty graph
  for mean, 0 for an empty one), so it multiplies [G, 2d] instead of [N, 2d].
The folded weights are computed on every call (a few [2d, d]-sized passes), so they can never be
stale after the weights or statistics change.
"""
import sampan
from .conv import check_edges

LINEAR_READOUTS = ("sum", "mean")  # the readouts that commute with a Linear layer


def _plus(fresh, other):
    """fresh + other, in place when no gradient is recorded (``fresh`` is a temporary we made) and
    the sum keeps its dtype (under autocast a bfloat16 product plus a float32 bias does not)."""
    in_place = not sampan.is_grad_enabled() and sampan.promote_types(fresh.dtype, other.dtype) == fresh.dtype
    return fresh.add_(other) if in_place else fresh + other


def relu(fresh):
    """relu(fresh), in place when no gradient is recorded."""
    return sampan.ops.core.relu_(fresh) if not sampan.is_grad_enabled() else sampan.relu(fresh)


def self_loop_bias(linear, bond_embedding):
    """W e_self + b of the MLP's first Linear: the self loop's message, moved into the bias."""
    shift = sampan.matmul(linear.weight, bond_embedding.self_loop())
    return shift + linear.bias if linear.bias is not None else shift


def table_rows(encoder):
    """How many rows the embedding tables of a CategoricalEncoder hold in all."""
    return sum(table.weight.shape[0] for table in encoder.tables)


def projection_pays(atom_encoder, conv, num_nodes):
    """Projecting the tables costs one row product per table row; the plain path one per node."""
    return num_nodes > table_rows(atom_encoder) + table_rows(conv.bond_embedding)


def bond_combinations_index(bond_embedding, edge_attr):
    """Without a gradient, the bond embedding is one gather from the table of every bond-feature
    combination (42 rows for 'pretrain_gnns', the same bits as the per-column sum) when there are
    fewer combinations than edges: the index of each edge's row, else None. With a gradient the
    per-column gathers stay (their gradient sums keep their order)."""
    if sampan.is_grad_enabled() or bond_embedding.combinations() > edge_attr.shape[0]:
        return None
    return bond_embedding.combined_index(edge_attr)


def bond_rows(bond_embedding, edge_attr, tables, combinations_index):
    """sum_c tables[c][edge_attr[:, c]], through the combination table when an index is given."""
    if combinations_index is None:
        return bond_embedding.sum_rows(edge_attr, tables)
    return sampan.index_select(bond_embedding.combined_table(tables), 0, combinations_index)


def first_linear(conv, h, edge_index, edge_attr, combinations_index=None):
    """GINConv's aggregation followed by its MLP's first Linear (before the ReLU)."""
    check_edges(h, edge_index, edge_attr, "GINConv")
    linear = conv.mlp[0]
    bonds = bond_rows(conv.bond_embedding, edge_attr, [t.weight for t in conv.bond_embedding.tables],
                      combinations_index)
    aggregated = sampan.ops.core.gather_add_scatter(h, edge_index[0], edge_index[1], h.shape[0], bonds)
    aggregated = _plus(aggregated, h)
    return _plus(sampan.matmul(aggregated, linear.weight.mT), self_loop_bias(linear, conv.bond_embedding))


def first_linear_from_atoms(conv, atom_encoder, x, edge_index, edge_attr, combinations_index=None):
    """first_linear(conv, atom_encoder(x), ...) from the tables multiplied by W1 once."""
    check_edges(x, edge_index, edge_attr, "GINConv")
    linear = conv.mlp[0]
    project = linear.weight.mT
    h = atom_encoder.sum_rows(x, [sampan.matmul(t.weight, project) for t in atom_encoder.tables])
    bonds = bond_rows(conv.bond_embedding, edge_attr, [sampan.matmul(t.weight, project)
                                                       for t in conv.bond_embedding.tables], combinations_index)
    aggregated = sampan.ops.core.gather_add_scatter(h, edge_index[0], edge_index[1], h.shape[0], bonds)
    aggregated = _plus(aggregated, h)
    return _plus(aggregated, self_loop_bias(linear, conv.bond_embedding))


def can_fold(norm):
    """BatchNorm1d normalizes with running statistics outside training only when it tracks them."""
    return not norm.training and norm.running_mean is not None and norm.running_var is not None


def folded_linear(linear, norm):
    """(W', b') with linear(r) followed by norm (eval) equal to r @ W'.T + b'."""
    scale = sampan.rsqrt(norm.running_var + norm.eps)
    if norm.weight is not None:
        scale = scale * norm.weight
    shift = -norm.running_mean if linear.bias is None else linear.bias - norm.running_mean
    bias = shift * scale
    if norm.bias is not None:
        bias = bias + norm.bias
    return linear.weight * sampan.unsqueeze(scale, -1), bias


def second_linear(conv, norm, r):
    """norm(conv.mlp[2](r)), BatchNorm folded into the Linear in eval."""
    if can_fold(norm):
        weight, bias = folded_linear(conv.mlp[2], norm)
        return _plus(sampan.matmul(r, weight.mT), bias)
    return norm(conv.mlp[2](r))


def second_linear_pooled(conv, norm, r, kind, batch, num_graphs):
    """readout(norm(conv.mlp[2](r))) for kind 'sum' or 'mean' in eval: W' applied after the readout."""
    weight, bias = folded_linear(conv.mlp[2], norm)
    pool = sampan.segment_sum if kind == "sum" else sampan.segment_mean
    pooled = sampan.matmul(pool(r, batch, num_graphs), weight.mT)
    count = sampan.segment_count(batch, num_graphs)
    weight_of_bias = count.to(r.dtype) if kind == "sum" else (count > 0).to(r.dtype)
    return pooled + sampan.unsqueeze(weight_of_bias, -1) * bias


def uses_pooled_readout(encoder, kind):
    """The last layer can run after the readout: eval, jk 'last', a linear readout, a foldable norm."""
    return (encoder.fast_path and encoder.conv_kind == "gin" and encoder.jk == "last" and kind in LINEAR_READOUTS
            and can_fold(encoder.norms[encoder.num_layers - 1]))


__all__ = ["LINEAR_READOUTS", "bond_combinations_index", "bond_rows", "first_linear", "first_linear_from_atoms", "folded_linear", "can_fold",
           "relu", "second_linear", "second_linear_pooled", "projection_pays", "self_loop_bias",
           "uses_pooled_readout"]
