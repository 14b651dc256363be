"""Graph readout: node embeddings [N, d] -> one vector per graph [G, d], with `batch` [N] the
graph id of each node (nodes need not be sorted by graph). Empty graphs read as zeros."""
import sampan
from sampan import nn
from .conv import segment_softmax


def sum_pool(h, batch, num_graphs):
    return sampan.segment_sum(h, batch, num_graphs)


def mean_pool(h, batch, num_graphs):
    return sampan.segment_mean(h, batch, num_graphs)


def max_pool(h, batch, num_graphs):
    out = sampan.segment_max(h, batch, num_graphs)
    return out[0] if isinstance(out, (tuple, list)) else out


class AttentionPool(nn.Module):
    """Global attention pooling (Li et al. 2016, gated graph sequence NNs, eq. 7, as Hu et al.'s
    'attention' readout): out_g = sum_{i in g} softmax_i(gate(h_i)) h_i, gate = Linear(d, 1)."""

    def __init__(self, emb_dim):
        super().__init__()
        self.gate = nn.Linear(emb_dim, 1)

    def forward(self, h, batch, num_graphs):
        weights = segment_softmax(self.gate(h), batch, num_graphs)  # [N, 1]
        return sampan.segment_sum(h * weights, batch, num_graphs)


class GraphPool(nn.Module):
    """One of 'sum', 'mean', 'max', 'attention'."""

    KINDS = ("sum", "mean", "max", "attention")

    def __init__(self, kind, emb_dim):
        super().__init__()
        if kind not in self.KINDS:
            raise ValueError(f"graph pooling must be one of {', '.join(self.KINDS)}, got {kind!r}")
        self.kind = kind
        self.attention = AttentionPool(emb_dim) if kind == "attention" else None

    def forward(self, h, batch, num_graphs):
        if self.kind == "sum":
            return sum_pool(h, batch, num_graphs)
        if self.kind == "mean":
            return mean_pool(h, batch, num_graphs)
        if self.kind == "max":
            return max_pool(h, batch, num_graphs)
        return self.attention(h, batch, num_graphs)

    def extra_repr(self):
        return self.kind
