"""Functional forms of the layers (``sp.nn.functional``, usually imported as F).

Every function is a composition of registered sampan ops, so gradients (and second
derivatives) flow through all of them without any backward code here.
"""
import math

import sampan
from .losses import (  # noqa: F401  (re-exported: F.mse_loss ...)
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, huber_loss, l1_loss,
    mse_loss, nll_loss, smooth_l1_loss,
)


# sampan.clamp takes NaN for an absent bound.

# ---- activations -------------------------------------------------------------------------------

def relu(x):
    return sampan.relu(x)


def gelu(x, approximate="none"):
    """GELU: x * Phi(x) exactly ("none"), or its tanh approximation ("tanh", as GPT-2 and BERT
    used): x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))."""
    if approximate == "none":
        return sampan.gelu(x)
    if approximate == "tanh":
        inner = (x + x * x * x * 0.044715) * math.sqrt(2.0 / math.pi)
        return x * 0.5 * (sampan.tanh(inner) + 1.0)
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")


def silu(x):
    return sampan.silu(x)


def tanh(x):
    return sampan.tanh(x)


def sigmoid(x):
    return sampan.sigmoid(x)


def softplus(x, beta=1.0, threshold=20.0):
    return sampan.softplus(x, beta, threshold)


def leaky_relu(x, negative_slope=0.01):
    return sampan.where(x > 0, x, x * negative_slope)


def elu(x, alpha=1.0):
    # expm1 of min(x, 0): exact near 0 and no overflow for large positive x in the unused branch.
    return sampan.where(x > 0, x, sampan.expm1(sampan.clamp(x, math.nan, 0.0)) * alpha)


def softmax(x, axis=-1):
    return sampan.softmax(x, axis)


def log_softmax(x, axis=-1):
    return sampan.log_softmax(x, axis)


# ---- layers ------------------------------------------------------------------------------------

def _check_features(x, expected, what, dim=-1):
    if x.ndim == 0 or x.shape[dim] != expected:
        raise ValueError(f"{what}: expected input with {expected} features in dimension {dim}, "
                         f"got shape {tuple(x.shape)}")


def linear(x, weight, bias=None):
    """x @ weight.T + bias, for x of shape (..., in_features) and weight (out_features, in_features)."""
    _check_features(x, weight.shape[1], "linear")
    y = sampan.matmul(x, weight.mT)
    return y + bias if bias is not None else y


def bilinear(x1, x2, weight, bias=None):
    """y[..., k] = x1[..., :] @ weight[k] @ x2[..., :] + bias[k], for weight (out, in1, in2)."""
    out_features, in1, in2 = weight.shape
    _check_features(x1, in1, "bilinear (input1)")
    _check_features(x2, in2, "bilinear (input2)")
    # One matmul: x1 (..., in1) @ W' (in1, out*in2), then contract in2 with x2.
    w = weight.permute(1, 0, 2).reshape(in1, out_features * in2)
    t = sampan.matmul(x1, w).reshape(tuple(x1.shape[:-1]) + (out_features, in2))
    y = (t * sampan.unsqueeze(x2, -2)).sum([-1])
    return y + bias if bias is not None else y


def embedding(indices, weight, padding_idx=None):
    """Rows of ``weight`` picked by integer ``indices``: shape indices.shape + (dim,). The row
    ``padding_idx`` reads as zeros and receives no gradient."""
    if indices.dtype not in (sampan.int32, sampan.int64):
        raise TypeError(f"embedding: indices must be int32 or int64, got {indices.dtype}")
    flat = indices.reshape(-1)
    rows = sampan.index_select(weight, 0, flat)
    if padding_idx is not None:
        keep = sampan.unsqueeze(flat != padding_idx, -1)
        rows = sampan.where(keep, rows, sampan.zeros_like(rows))
    return rows.reshape(tuple(indices.shape) + (weight.shape[1],))


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalizes over the trailing dimensions ``normalized_shape`` (biased variance)."""
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    n = len(normalized_shape)
    if tuple(x.shape[x.ndim - n:]) != normalized_shape or x.ndim < n:
        raise ValueError(f"layer_norm: the input's trailing dimensions {tuple(x.shape)} do not end "
                         f"with normalized_shape {normalized_shape}")
    axes = list(range(x.ndim - n, x.ndim))
    mean = sampan.mean(x, axes, True)
    centered = x - mean
    var = sampan.mean(centered * centered, axes, True)
    y = centered * sampan.rsqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5,
               num_batches_tracked=None):
    """Batch normalization over dimension 1 of (N, C) or (N, C, L) inputs.

    In training the batch statistics normalize (biased variance) and, when running buffers are
    given, update them in place: running = (1 - momentum) * running + momentum * batch, with the
    unbiased variance (n / (n - 1)) as PyTorch; momentum=None gives the cumulative average over
    ``num_batches_tracked`` batches. Outside training the running statistics normalize."""
    if x.ndim not in (2, 3):
        raise ValueError(f"batch_norm: expected a 2-d (N, C) or 3-d (N, C, L) input, got shape {tuple(x.shape)}")
    axes = [0] if x.ndim == 2 else [0, 2]
    stat_shape = (1, x.shape[1]) if x.ndim == 2 else (1, x.shape[1], 1)
    if training:
        count = x.numel() // x.shape[1]
        if count <= 1:
            raise ValueError(f"batch_norm: training needs more than one value per channel, got input shape "
                             f"{tuple(x.shape)}")
        fused = x.ndim == 2 and x.dtype in (sampan.float32, sampan.float64) and all(
            t is None or t.dtype == x.dtype for t in (weight, bias))
        if fused:
            # core::batch_norm_train: statistics, normalization and affine map in one op, its
            # gradient in one more (the composition below made ~10 ops each way).
            w = weight if weight is not None else sampan.ones(x.shape[1], dtype=x.dtype, device=x.device)
            b = bias if bias is not None else sampan.zeros(x.shape[1], dtype=x.dtype, device=x.device)
            y, mean, var = sampan.ops.core.batch_norm_train(x, w, b, float(eps))
        else:
            mean = sampan.mean(x, axes, False)
            centered = x - mean.reshape(stat_shape)
            var = sampan.mean(centered * centered, axes, False)
        if running_mean is not None and running_var is not None:
            with sampan.no_grad():
                if num_batches_tracked is not None:
                    num_batches_tracked.add_(1)
                factor = momentum
                if factor is None:  # cumulative moving average
                    factor = 1.0 / float(num_batches_tracked.item()) if num_batches_tracked is not None else 0.0
                unbiased = var.detach() * (count / (count - 1))
                running_mean.mul_(1.0 - factor).add_(mean.detach().to(running_mean.dtype) * factor)
                running_var.mul_(1.0 - factor).add_(unbiased.to(running_var.dtype) * factor)
        if fused:
            return y
        y = centered * sampan.rsqrt(var + eps).reshape(stat_shape)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: evaluation needs running statistics (track_running_stats=True)")
        y = (x - running_mean.reshape(stat_shape)) * sampan.rsqrt(running_var + eps).reshape(stat_shape)
    if weight is not None:
        y = y * weight.reshape(stat_shape)
    if bias is not None:
        y = y + bias.reshape(stat_shape)
    return y


def _dropout_mask(shape, p, dtype, generator, device="cpu"):
    from .._random import draw
    seed, offset = draw(generator)
    return sampan.ops.core.dropout_mask(shape, float(p), dtype.name, seed, offset, device)


def dropout(x, p=0.5, training=True, generator=None):
    """Zeroes each element with probability ``p`` and scales the rest by 1/(1-p) (so the
    expectation is unchanged); the identity outside training or for p = 0."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    # One uniform draw per element compared with 1 - p gives the same Bernoulli(1 - p) mask as
    # sampan.bernoulli, about 3x faster (no probability tensor to fill and read); core::dropout_mask
    # draws, compares and scales in one pass (the mask of rand(...) < 1 - p from the same draw),
    # so the graph holds a single product.
    dtype = sampan.float64 if x.dtype == sampan.float64 else sampan.float32
    # made where x is (on a GPU by the op's CUDA kernel: the CPU's mask for the same draw)
    mask = _dropout_mask(list(x.shape), p, dtype, generator, str(x.device))
    return x * (mask if mask.dtype == x.dtype else mask.to(x.dtype))
