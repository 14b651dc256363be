"""The GNN encoder (atom embedding, K message-passing layers, jumping knowledge) and the graph
property predictor (encoder, readout, multi-task linear head), following Hu et al. 2020's
GNN / GNN_graphpred (their chem/model.py) and PaddleHelix's PretrainGNNModel (reference notes
shared/reference/helix.md section 1.3): after every layer BatchNorm, ReLU except after the last
layer, then dropout; GIN-300x5 with JK 'last' and mean readout is the paper's model.
"""
import sampan
from sampan import nn
from .conv import CONVOLUTIONS
from .features import CategoricalEncoder, as_tensor, feature_dims
from .pooling import GraphPool

JUMPING_KNOWLEDGE = ("last", "concat", "max", "sum")


class GNNEncoder(nn.Module):
    """Node embeddings of a batch of molecular graphs.

    Arguments::

        featurizer: 'ogb', 'pretrain_gnns' or a pair (atom_dims, bond_dims) of vocabulary sizes.
        jk: 'last' (the last layer), 'concat' (the input embedding and every layer side by side:
            (num_layers + 1) * emb_dim wide), 'max' or 'sum' (elementwise over the input embedding
            and every layer), as Hu et al.'s JK options.
    """

    def __init__(self, featurizer="pretrain_gnns", num_layers=5, emb_dim=300, conv="gin", jk="last", dropout=0.0,
                 gat_heads=2):
        super().__init__()
        if num_layers < 1:
            raise ValueError(f"GNNEncoder: num_layers must be >= 1, got {num_layers}")
        if jk not in JUMPING_KNOWLEDGE:
            raise ValueError(f"GNNEncoder: jk must be one of {', '.join(JUMPING_KNOWLEDGE)}, got {jk!r}")
        if conv not in CONVOLUTIONS:
            raise ValueError(f"GNNEncoder: conv must be one of {', '.join(CONVOLUTIONS)}, got {conv!r}")
        atom_dims, bond_dims = feature_dims(featurizer)
        self.config = {"featurizer": featurizer if isinstance(featurizer, str) else [list(atom_dims), list(bond_dims)],
                       "num_layers": num_layers, "emb_dim": emb_dim, "conv": conv, "jk": jk, "dropout": dropout,
                       "gat_heads": gat_heads}
        self.num_layers, self.emb_dim, self.jk = num_layers, emb_dim, jk
        self.atom_dims, self.bond_dims = atom_dims, bond_dims
        self.atom_encoder = CategoricalEncoder(atom_dims, emb_dim, what="atom")
        make = CONVOLUTIONS[conv]
        self.convs = nn.ModuleList([make(emb_dim, bond_dims, gat_heads) if conv == "gat" else make(emb_dim, bond_dims)
                                    for _ in range(num_layers)])
        self.norms = nn.ModuleList([nn.BatchNorm1d(emb_dim) for _ in range(num_layers)])
        self.dropout = nn.Dropout(dropout)

    @property
    def out_dim(self):
        return self.emb_dim * (self.num_layers + 1) if self.jk == "concat" else self.emb_dim

    def forward(self, x, edge_index, edge_attr):
        x, edge_index, edge_attr = as_tensor(x), as_tensor(edge_index), as_tensor(edge_attr)
        h = self.atom_encoder(x)
        layers = [h]
        for k in range(self.num_layers):
            h = self.norms[k](self.convs[k](h, edge_index, edge_attr))
            if k < self.num_layers - 1:  # Hu et al.: no ReLU after the last layer
                h = sampan.relu(h)
            h = self.dropout(h)
            layers.append(h)
        if self.jk == "last":
            return layers[-1]
        if self.jk == "concat":
            return sampan.concat(layers, 1)
        stacked = sampan.stack(layers, 0)
        return sampan.amax(stacked, [0], False) if self.jk == "max" else stacked.sum([0])


class GraphModel(nn.Module):
    """encoder -> graph pooling -> Linear(out_dim, num_tasks): one logit (or regression value)
    per task and graph, [G, T]. ``embed(batch)`` gives the pooled graph embeddings."""

    def __init__(self, num_tasks, featurizer="pretrain_gnns", num_layers=5, emb_dim=300, conv="gin", jk="last",
                 pool="mean", dropout=0.5, gat_heads=2):
        super().__init__()
        self.encoder = GNNEncoder(featurizer, num_layers, emb_dim, conv, jk, dropout, gat_heads)
        self.pool = GraphPool(pool, self.encoder.out_dim)
        self.head = nn.Linear(self.encoder.out_dim, num_tasks)
        self.config = dict(self.encoder.config, num_tasks=num_tasks, pool=pool)

    def embed(self, batch):
        h = self.encoder(batch.x, batch.edge_index, batch.edge_attr)
        return self.pool(h, as_tensor(batch.batch), batch.num_graphs)

    def forward(self, batch):
        return self.head(self.embed(batch))


def model_from_config(config):
    """A GraphModel built from its ``config`` dict (as stored next to the weights)."""
    c = dict(config)
    featurizer = c.pop("featurizer")
    if not isinstance(featurizer, str):
        featurizer = (tuple(featurizer[0]), tuple(featurizer[1]))
    return GraphModel(c.pop("num_tasks"), featurizer, c["num_layers"], c["emb_dim"], c["conv"], c["jk"],
                      c["pool"], c["dropout"], c.get("gat_heads", 2))
