"""The GIN training step as it was before the fused ops, for same-run comparisons.

``with unfused(): ...`` runs GINConv's aggregation as segment_sum(index_select(h, src) + bond,
dst) and training-mode BatchNorm as the elementwise composition (mean, centered, var, rsqrt,
affine), instead of core::gather_add_scatter and core::batch_norm_train. bench/helix/train_bench.py
(--compare-unfused) times both in one run; tests/python/test_helix_models.py checks that both train
the same model.
"""
import contextlib

import sampan
from sampan.helix.models import GNNEncoder, conv
from sampan.nn import functional as F


def _gin_forward_unfused(self, h, edge_index, edge_attr):
    conv.check_edges(h, edge_index, edge_attr, "GINConv")
    messages = sampan.index_select(h, 0, edge_index[0]) + self.bond_embedding(edge_attr)
    aggregated = sampan.segment_sum(messages, edge_index[1], h.shape[0])
    aggregated = aggregated + h + self.bond_embedding.self_loop()
    return self.mlp(aggregated)


def _batch_norm_unfused(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
                        eps=1e-5, num_batches_tracked=None):
    if not training or x.ndim != 2:
        return _fused_batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps,
                                 num_batches_tracked)
    count = x.shape[0]
    mean = sampan.mean(x, [0], False)
    centered = x - mean.reshape((1, x.shape[1]))
    var = sampan.mean(centered * centered, [0], False)
    if running_mean is not None and running_var is not None:
        with sampan.no_grad():
            if num_batches_tracked is not None:
                num_batches_tracked.add_(1)
            factor = momentum
            if factor is None:
                factor = 1.0 / float(num_batches_tracked.item()) if num_batches_tracked is not None else 0.0
            unbiased = var.detach() * (count / (count - 1))
            running_mean.mul_(1.0 - factor).add_(mean.detach().to(running_mean.dtype) * factor)
            running_var.mul_(1.0 - factor).add_(unbiased.to(running_var.dtype) * factor)
    y = centered * sampan.rsqrt(var + eps).reshape((1, x.shape[1]))
    if weight is not None:
        y = y * weight.reshape((1, x.shape[1]))
    if bias is not None:
        y = y + bias.reshape((1, x.shape[1]))
    return y


_fused_batch_norm = F.batch_norm


@contextlib.contextmanager
def unfused():
    """GINConv and BatchNorm1d (training) run their pre-fusion compositions inside the block."""
    saved_forward, saved_bn, saved_fast = conv.GINConv.forward, F.batch_norm, GNNEncoder.fast_path
    conv.GINConv.forward, F.batch_norm = _gin_forward_unfused, _batch_norm_unfused
    GNNEncoder.fast_path = False  # the encoder's regrouped GIN arithmetic would bypass GINConv.forward
    try:
        yield
    finally:
        conv.GINConv.forward, F.batch_norm, GNNEncoder.fast_path = saved_forward, saved_bn, saved_fast
