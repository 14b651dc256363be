"""The virtual node of OGB's GIN-virtual (Hu et al. 2020, "Open Graph Benchmark", arXiv:2005.00687;
their GNN_node_Virtualnode; the idea is Gilmer et al. 2017's master node): one extra node per
graph, joined to every atom of it, that carries a graph-wide state from layer to layer.

With L layers, emb_dim d, the atoms' representations h_k [N, d] and the virtual nodes' v_k [G, d]:

    v_0 = the virtual-node embedding: one learned row, initialised to zero, the same for every graph
    for k = 0 .. L-1:
        h_k <- h_k + v_k[batch]                      before the layer (jumping knowledge sees this h_k)
        h_{k+1} = layer k of the encoder applied to h_k
        if k < L-1:
            v_{k+1} = dropout(MLP_k(sum_pool(h_k) + v_k))    (h_k: the layer's input, as OGB)
    MLP_k = Linear(d, 2d) -> BatchNorm1d(2d) -> ReLU -> Linear(2d, d) -> BatchNorm1d(d) -> ReLU

The MLPs' BatchNorm normalizes over the graphs of a batch, so a training batch needs two graphs
(OGB's training loop skips one-graph batches; sampan.helix.finetune does for these models).
"""
import sampan
from sampan import nn


class VirtualNode(nn.Module):
    """The virtual-node embedding and the L-1 MLPs that update it between layers."""

    def __init__(self, emb_dim, num_layers):
        super().__init__()
        self.embedding = nn.Parameter(sampan.zeros(1, emb_dim))
        self.mlps = nn.ModuleList([_update_mlp(emb_dim) for _ in range(num_layers - 1)])

    def start(self):
        """v_0: one row [1, d] that broadcasts over the graphs (its gradient sums over them)."""
        return self.embedding

    @staticmethod
    def add_to_atoms(h, v, batch):
        """h + v[batch]: every atom gets its graph's virtual node (v_0 is one row for all)."""
        return h + (v if v.shape[0] == 1 else sampan.index_select(v, 0, batch))

    def update(self, k, h, v, batch, num_graphs, dropout):
        """v_{k+1} = dropout(MLP_k(sum_pool(h_k) + v_k)), h being layer k's input."""
        return dropout(self.mlps[k](sampan.segment_sum(h, batch, num_graphs) + v))


def _update_mlp(emb_dim):
    return nn.Sequential(nn.Linear(emb_dim, 2 * emb_dim), nn.BatchNorm1d(2 * emb_dim), nn.ReLU(),
                         nn.Linear(2 * emb_dim, emb_dim), nn.BatchNorm1d(emb_dim), nn.ReLU())
