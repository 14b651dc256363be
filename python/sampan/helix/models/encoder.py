"""The GNN encoder (atom embedding, K message-passing layers, jumping knowledge) and the graph
property predictor (encoder, readout, multi-task linear head), following Hu et al. 2020's
GNN / GNN_graphpred (their chem/model.py) and PaddleHelix's PretrainGNNModel (reference notes
shared/reference/helix.md section 1.3): after every layer BatchNorm, ReLU except after the last
layer, then dropout; GIN-300x5 with JK 'last' and mean readout is the paper's model.
"""
import sampan
from sampan import nn
from . import fast_path
from .conv import CONVOLUTIONS
from .features import CategoricalEncoder, as_tensor, feature_dims
from .pooling import GraphPool
from .virtual_node import VirtualNode

JUMPING_KNOWLEDGE = ("last", "concat", "max", "sum")


class GNNEncoder(nn.Module):
    """Node embeddings of a batch of molecular graphs.

    Arguments::

        featurizer: 'ogb', 'pretrain_gnns' or a pair (atom_dims, bond_dims) of vocabulary sizes.
        jk: 'last' (the last layer), 'concat' (the input embedding and every layer side by side:
            (num_layers + 1) * emb_dim wide), 'max' or 'sum' (elementwise over the input embedding
            and every layer), as Hu et al.'s JK options.
        virtual_node: OGB's virtual node (GIN-virtual; see virtual_node.py): a graph-wide node
            added to every atom before each layer and updated by an MLP between layers. Its
            forward needs the batch (graph id of each atom) and the number of graphs.

    With conv='gin' the layers run GIN's arithmetic regrouped by linearity (the same function to
    rounding, less work; see fast_path.py): the first layer from embedding tables multiplied by
    its weight, the self loop in the bias, and in eval BatchNorm folded into the Linear before it.
    ``encoder.fast_path = False`` runs the plain modules instead. With a virtual node the first
    layer does not start from the projected tables (its input is the atom embedding plus the
    virtual node, no longer a sum of table rows); everything else of the fast path stays.
    """

    fast_path = True

    def __init__(self, featurizer="pretrain_gnns", num_layers=5, emb_dim=300, conv="gin", jk="last", dropout=0.0,
                 gat_heads=2, virtual_node=False):
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
                       "gat_heads": gat_heads, "virtual_node": bool(virtual_node)}
        self.num_layers, self.emb_dim, self.jk, self.conv_kind = num_layers, emb_dim, jk, conv
        self.atom_dims, self.bond_dims = atom_dims, bond_dims
        self.atom_encoder = CategoricalEncoder(atom_dims, emb_dim, what="atom")
        make = CONVOLUTIONS[conv]
        self.convs = nn.ModuleList([make(emb_dim, bond_dims, gat_heads) if conv == "gat" else make(emb_dim, bond_dims)
                                    for _ in range(num_layers)])
        self.norms = nn.ModuleList([nn.BatchNorm1d(emb_dim) for _ in range(num_layers)])
        self.dropout = nn.Dropout(dropout)
        self.virtual_node = VirtualNode(emb_dim, num_layers) if virtual_node else None

    @property
    def out_dim(self):
        return self.emb_dim * (self.num_layers + 1) if self.jk == "concat" else self.emb_dim

    def forward(self, x, edge_index, edge_attr, batch=None, num_graphs=None):
        """Node embeddings [N, out_dim]; batch (graph id of each atom) and num_graphs are needed
        with a virtual node and unused without."""
        return self._run(x, edge_index, edge_attr, self._graphs(batch, num_graphs))

    def forward_pooled(self, x, edge_index, edge_attr, pool, batch, num_graphs):
        """pool(self(x, edge_index, edge_attr, batch, num_graphs), batch, num_graphs) for a
        GraphPool ``pool``; in eval with jk 'last' and a 'sum' or 'mean' readout the last Linear
        runs after the readout."""
        batch = as_tensor(batch)
        graphs = self._graphs(batch, num_graphs)
        if fast_path.uses_pooled_readout(self, pool.kind):
            return self._run(x, edge_index, edge_attr, graphs, (pool.kind, batch, num_graphs))
        return pool(self._run(x, edge_index, edge_attr, graphs), batch, num_graphs)

    def _graphs(self, batch, num_graphs):
        """(batch, num_graphs) for the virtual node; None without one."""
        if self.virtual_node is None:
            return None
        if batch is None or num_graphs is None:
            raise ValueError("GNNEncoder(virtual_node=True): forward needs batch (the graph id of each atom) "
                             "and num_graphs; got " + ("no batch" if batch is None else "no num_graphs"))
        return as_tensor(batch), int(num_graphs)

    def _run(self, x, edge_index, edge_attr, graphs=None, readout=None):
        x, edge_index, edge_attr = as_tensor(x), as_tensor(edge_index), as_tensor(edge_attr)
        fast = self.fast_path and self.conv_kind == "gin"
        vn = self.virtual_node
        project = fast and vn is None and fast_path.projection_pays(self.atom_encoder, self.convs[0], x.shape[0])
        h = None if project and self.jk == "last" else self.atom_encoder(x)
        combos = fast_path.bond_combinations_index(self.convs[0].bond_embedding, edge_attr) if fast else None
        layers = [h]
        v = None if vn is None else vn.start()
        for k in range(self.num_layers):
            conv, norm, last = self.convs[k], self.norms[k], k == self.num_layers - 1
            if vn is not None:  # OGB keeps h_k + v_k[batch] as layer k's entry of the JK list
                h = layers[k] = vn.add_to_atoms(h, v, graphs[0])
            if not fast:
                h = norm(conv(h, edge_index, edge_attr))
            else:
                if k == 0 and project:
                    z = fast_path.first_linear_from_atoms(conv, self.atom_encoder, x, edge_index, edge_attr,
                                                          combos)
                else:
                    z = fast_path.first_linear(conv, h, edge_index, edge_attr, combos)
                r = fast_path.relu(z)
                if last and readout is not None:  # eval: dropout is the identity
                    return fast_path.second_linear_pooled(conv, norm, r, *readout)
                h = fast_path.second_linear(conv, norm, r)
            if not last:  # Hu et al.: no ReLU after the last layer
                h = fast_path.relu(h) if fast else sampan.relu(h)
            h = self.dropout(h)
            layers.append(h)
            if vn is not None and not last:
                v = vn.update(k, layers[k], v, *graphs, self.dropout)
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
                 pool="mean", dropout=0.5, gat_heads=2, virtual_node=False):
        super().__init__()
        self.encoder = GNNEncoder(featurizer, num_layers, emb_dim, conv, jk, dropout, gat_heads, virtual_node)
        self.pool = GraphPool(pool, self.encoder.out_dim)
        self.head = nn.Linear(self.encoder.out_dim, num_tasks)
        self.config = dict(self.encoder.config, num_tasks=num_tasks, pool=pool)

    def embed(self, batch):
        return self.encoder.forward_pooled(batch.x, batch.edge_index, batch.edge_attr, self.pool, batch.batch,
                                           batch.num_graphs)

    def forward(self, batch):
        return self.head(self.embed(batch))


def _featurizer_of(config):
    featurizer = config["featurizer"]
    return featurizer if isinstance(featurizer, str) else (tuple(featurizer[0]), tuple(featurizer[1]))


def encoder_from_config(config):
    """A GNNEncoder built from its ``config`` dict (as stored next to the weights; files written
    before a field existed get its default: gat_heads 2, no virtual node)."""
    c = config
    return GNNEncoder(_featurizer_of(c), c["num_layers"], c["emb_dim"], c["conv"], c["jk"], c["dropout"],
                      c.get("gat_heads", 2), c.get("virtual_node", False))


def model_from_config(config):
    """A GraphModel built from its ``config`` dict (as stored next to the weights; defaults as
    encoder_from_config)."""
    c = config
    return GraphModel(c["num_tasks"], _featurizer_of(c), c["num_layers"], c["emb_dim"], c["conv"], c["jk"],
                      c["pool"], c["dropout"], c.get("gat_heads", 2), c.get("virtual_node", False))
