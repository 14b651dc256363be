"""Message-passing layers on a disjoint-union batch of molecular graphs.

Every layer follows Hu et al. 2020 (Strategies for Pre-training GNNs, appendix A; their
chem/model.py): the bond features enter each layer through its own bond embedding, which is
added to the message; every node gets a self loop whose bond is the special "self loop" type.
Messages are gathered with index_select over the source of each directed edge and reduced onto
the destination with segment_sum, both core ops whose gradients are each other (scatter/gather),
so there is no backward code here (GIN does both in one core op, gather_add_scatter). The self loop is not materialized as extra edges: its message
(h_i + e_self) is added to the aggregate directly, which is the same sum.

edge_index is int64 [2, E] with row 0 the source and row 1 the destination of each directed
edge; molecules store both directions of every bond.
"""
import math

import sampan
from sampan import nn
from .features import CategoricalEncoder


class _BondEmbedding(CategoricalEncoder):
    """Per-layer bond embedding, plus the embedding of the self-loop bond (type = the row after
    the bond-type vocabulary, every other column 0, as Hu et al.)."""

    def __init__(self, bond_dims, emb_dim):
        super().__init__(bond_dims, emb_dim, what="bond")

    def self_loop(self):
        row = self.tables[0].weight[self.special_index(0)]
        for table in list(self.tables)[1:]:
            row = row + table.weight[0]
        return row


def _gather_sources(h, edge_index):
    return sampan.index_select(h, 0, edge_index[0])


def check_edges(h, edge_index, edge_attr, what):
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"{what}: edge_index must be int64 [2, E], got shape {tuple(edge_index.shape)}")
    if edge_attr.shape[0] != edge_index.shape[1]:
        raise ValueError(f"{what}: edge_attr has {edge_attr.shape[0]} rows but edge_index has "
                         f"{edge_index.shape[1]} edges")


class GINConv(nn.Module):
    """Graph isomorphism layer with edge features (Hu et al. eq. 2 / GINE):
    h_i' = MLP( sum_{j in N(i) + {i}} (h_j + e_ji) ), MLP = Linear(d, 2d) -> ReLU -> Linear(2d, d)."""

    def __init__(self, emb_dim, bond_dims):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(emb_dim, 2 * emb_dim), nn.ReLU(), nn.Linear(2 * emb_dim, emb_dim))
        self.bond_embedding = _BondEmbedding(bond_dims, emb_dim)

    def forward(self, h, edge_index, edge_attr):
        check_edges(h, edge_index, edge_attr, "GINConv")
        # segment_sum(index_select(h, src) + bond, dst) in one op (the same bits, no [E, d]
        # temporaries; its gradient is the same op with src and dst swapped).
        aggregated = sampan.ops.core.gather_add_scatter(h, edge_index[0], edge_index[1], h.shape[0],
                                                        self.bond_embedding(edge_attr))
        aggregated = aggregated + h + self.bond_embedding.self_loop()
        return self.mlp(aggregated)


class GCNConv(nn.Module):
    """Graph convolution (Kipf & Welling) with edge features as in Hu et al.:
    h_i' = sum_{j in N(i) + {i}} (W h_j + e_ji) / sqrt(deg_i deg_j), degrees counting the self loop."""

    def __init__(self, emb_dim, bond_dims):
        super().__init__()
        self.linear = nn.Linear(emb_dim, emb_dim)
        self.bond_embedding = _BondEmbedding(bond_dims, emb_dim)

    def forward(self, h, edge_index, edge_attr):
        check_edges(h, edge_index, edge_attr, "GCNConv")
        n = h.shape[0]
        src, dst = edge_index[0], edge_index[1]
        degree = sampan.segment_count(dst, n).to(h.dtype) + 1.0  # + the self loop
        inv_sqrt = sampan.rsqrt(degree)
        norm = sampan.index_select(inv_sqrt, 0, src) * sampan.index_select(inv_sqrt, 0, dst)
        wh = self.linear(h)
        messages = (sampan.index_select(wh, 0, src) + self.bond_embedding(edge_attr)) * sampan.unsqueeze(norm, -1)
        aggregated = sampan.segment_sum(messages, dst, n)
        self_term = (wh + self.bond_embedding.self_loop()) * sampan.unsqueeze(inv_sqrt * inv_sqrt, -1)
        return aggregated + self_term


def segment_softmax(scores, segment_ids, num_segments):
    """softmax of scores [E, H] over the rows that share a segment id (each segment separately);
    the segment max is subtracted first so exp cannot overflow."""
    peak = sampan.segment_max(scores.detach(), segment_ids, num_segments)
    peak = peak[0] if isinstance(peak, (tuple, list)) else peak
    shifted = sampan.exp(scores - sampan.index_select(peak, 0, segment_ids))
    total = sampan.segment_sum(shifted, segment_ids, num_segments)
    return shifted / sampan.index_select(total, 0, segment_ids)


class GATConv(nn.Module):
    """Graph attention (Velickovic et al.) with edge features as in Hu et al.: x = W h split into
    `heads` heads of size d; for edge j->i, a_ji = softmax_j LeakyReLU_0.2(att . [x_i, x_j + e_ji]);
    h_i' = mean over heads of sum_j a_ji (x_j + e_ji) + bias. The self loop is an edge."""

    def __init__(self, emb_dim, bond_dims, heads=2, negative_slope=0.2):
        super().__init__()
        self.emb_dim, self.heads, self.negative_slope = emb_dim, heads, negative_slope
        self.linear = nn.Linear(emb_dim, heads * emb_dim)
        self.att = nn.Parameter(sampan.empty(1, heads, 2 * emb_dim))
        nn.init.xavier_uniform_(self.att)
        self.bias = nn.Parameter(sampan.zeros(emb_dim))
        self.bond_embedding = _BondEmbedding(bond_dims, heads * emb_dim)

    def forward(self, h, edge_index, edge_attr):
        check_edges(h, edge_index, edge_attr, "GATConv")
        n, heads, d = h.shape[0], self.heads, self.emb_dim
        loops = sampan.arange(n, dtype=sampan.int64)
        src = sampan.concat([edge_index[0], loops], 0)
        dst = sampan.concat([edge_index[1], loops], 0)
        edge_emb = sampan.concat([self.bond_embedding(edge_attr),
                                  sampan.broadcast_to(sampan.unsqueeze(self.bond_embedding.self_loop(), 0),
                                                      (n, heads * d))], 0)
        x = self.linear(h).reshape(n, heads, d)
        x_j = sampan.index_select(x, 0, src) + edge_emb.reshape(-1, heads, d)
        x_i = sampan.index_select(x, 0, dst)
        att_i, att_j = self.att[:, :, :d], self.att[:, :, d:]
        scores = (x_i * att_i).sum([-1]) + (x_j * att_j).sum([-1])  # [E + n, heads]
        scores = sampan.where(scores > 0, scores, scores * self.negative_slope)
        alpha = segment_softmax(scores, dst, n)
        out = sampan.segment_sum(x_j * sampan.unsqueeze(alpha, -1), dst, n)  # [n, heads, d]
        return sampan.mean(out, [1], False) + self.bias


CONVOLUTIONS = {"gin": GINConv, "gcn": GCNConv, "gat": GATConv}
