"""GNN models for molecules: categorical atom/bond encoders, GIN/GCN/GAT layers with edge
features (Hu et al. 2020), jumping knowledge, OGB's virtual node, graph pooling, multi-task heads."""
from .conv import CONVOLUTIONS, GATConv, GCNConv, GINConv, segment_softmax
from .encoder import JUMPING_KNOWLEDGE, GNNEncoder, GraphModel, encoder_from_config, model_from_config
from .features import FEATURE_DIMS, CategoricalEncoder, as_numpy, as_tensor, feature_dims
from .pooling import AttentionPool, GraphPool, max_pool, mean_pool, sum_pool
from .virtual_node import VirtualNode

__all__ = ["CONVOLUTIONS", "GATConv", "GCNConv", "GINConv", "segment_softmax", "JUMPING_KNOWLEDGE", "GNNEncoder",
           "GraphModel", "encoder_from_config", "model_from_config", "FEATURE_DIMS", "CategoricalEncoder", "feature_dims", "as_numpy", "as_tensor", "AttentionPool",
           "GraphPool", "max_pool", "mean_pool", "sum_pool", "VirtualNode"]
