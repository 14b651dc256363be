"""Layers: Linear, Bilinear, Embedding, LayerNorm, BatchNorm1d, Dropout, activations, MLP.

Parameters are created in ``dtype`` (float32 by default, as PyTorch; DeePMD-style models pass
sp.float64) and initialized as PyTorch does, drawing from sampan's generator.
"""
import copy
import math

import sampan
from . import functional as F
from . import init
from .containers import Sequential
from .module import Module
from .parameter import Parameter


def _empty(shape, dtype):
    return sampan.empty(*shape, dtype=sampan.float32 if dtype is None else dtype)


def _positive_int(value, what, owner):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{owner}: {what} must be a positive int, got {value!r}")
    return value


class Identity(Module):
    """Returns its input."""

    def forward(self, x):
        return x


class Linear(Module):
    """y = x @ weight.T + bias, weight (out_features, in_features).

    Initialization as PyTorch: weight ~ U(-1/sqrt(in), 1/sqrt(in)) (Kaiming-uniform with
    a = sqrt(5)), bias ~ U(-1/sqrt(in), 1/sqrt(in))."""

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__()
        self.in_features = _positive_int(in_features, "in_features", "Linear")
        self.out_features = _positive_int(out_features, "out_features", "Linear")
        self.weight = Parameter(_empty((out_features, in_features), dtype))
        if bias:
            self.bias = Parameter(_empty((out_features,), dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self, generator=None):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5), generator=generator)
        if self.bias is not None:
            bound = 1.0 / math.sqrt(self.in_features)
            init.uniform_(self.bias, -bound, bound, generator)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """y[k] = x1 @ weight[k] @ x2 + bias[k], weight (out, in1, in2); initialized
    U(-1/sqrt(in1), 1/sqrt(in1)) as PyTorch."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, dtype=None):
        super().__init__()
        self.in1_features = _positive_int(in1_features, "in1_features", "Bilinear")
        self.in2_features = _positive_int(in2_features, "in2_features", "Bilinear")
        self.out_features = _positive_int(out_features, "out_features", "Bilinear")
        self.weight = Parameter(_empty((out_features, in1_features, in2_features), dtype))
        if bias:
            self.bias = Parameter(_empty((out_features,), dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self, generator=None):
        bound = 1.0 / math.sqrt(self.in1_features)
        init.uniform_(self.weight, -bound, bound, generator)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound, generator)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Embedding(Module):
    """A lookup table: integer indices -> rows of weight (num_embeddings, embedding_dim),
    initialized N(0, 1). The row ``padding_idx`` starts at zero and gets no gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, dtype=None):
        super().__init__()
        self.num_embeddings = _positive_int(num_embeddings, "num_embeddings", "Embedding")
        self.embedding_dim = _positive_int(embedding_dim, "embedding_dim", "Embedding")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx {padding_idx} is outside [-{num_embeddings}, {num_embeddings})")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        self.weight = Parameter(_empty((num_embeddings, embedding_dim), dtype))
        self.reset_parameters()

    def reset_parameters(self, generator=None):
        init.normal_(self.weight, 0.0, 1.0, generator)
        if self.padding_idx is not None:
            with sampan.no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, indices):
        return F.embedding(indices, self.weight, self.padding_idx)

    def extra_repr(self):
        pad = f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}"


class LayerNorm(Module):
    """Normalizes over the trailing ``normalized_shape`` dimensions, then scales by weight (ones)
    and shifts by bias (zeros) when ``elementwise_affine``."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(sampan.ones(*shape, dtype=dtype or sampan.float32))
            if bias:
                self.bias = Parameter(sampan.zeros(*shape, dtype=dtype or sampan.float32))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class BatchNorm1d(Module):
    """Batch normalization of (N, C) or (N, C, L) inputs over all but the channel dimension.

    Buffers running_mean (zeros), running_var (ones) and num_batches_tracked (int64) are updated
    in training with ``momentum`` (None: cumulative average); eval() normalizes with them."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__()
        self.num_features = _positive_int(num_features, "num_features", "BatchNorm1d")
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        dtype = dtype or sampan.float32
        if affine:
            self.weight = Parameter(sampan.ones(num_features, dtype=dtype))
            self.bias = Parameter(sampan.zeros(num_features, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", sampan.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", sampan.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", sampan.zeros((), dtype=sampan.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        if self.track_running_stats:
            with sampan.no_grad():
                init.zeros_(self.running_mean)
                init.ones_(self.running_var)
                sampan.copy_(self.num_batches_tracked, sampan.zeros_like(self.num_batches_tracked))

    def forward(self, x):
        if x.ndim not in (2, 3) or x.shape[1] != self.num_features:
            raise ValueError(f"BatchNorm1d({self.num_features}): expected input (N, {self.num_features}) or "
                             f"(N, {self.num_features}, L), got shape {tuple(x.shape)}")
        # Batch statistics in training, or always when there are no running statistics.
        use_batch = self.training or not self.track_running_stats
        return F.batch_norm(x, self.running_mean if self.track_running_stats else None,
                            self.running_var if self.track_running_stats else None,
                            self.weight, self.bias, use_batch, self.momentum, self.eps,
                            self.num_batches_tracked if self.training else None)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class Dropout(Module):
    """Zeroes elements with probability p in training (scaling the rest by 1/(1-p)); the
    identity in eval mode."""

    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        return F.dropout(x, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}"


# ---- activations -------------------------------------------------------------------------------

class ReLU(Module):
    def forward(self, x):
        return F.relu(x)


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}" if self.approximate != "none" else ""


class SiLU(Module):
    def forward(self, x):
        return F.silu(x)


class Tanh(Module):
    def forward(self, x):
        return F.tanh(x)


class Sigmoid(Module):
    def forward(self, x):
        return F.sigmoid(x)


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x):
        return F.softplus(x, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}"


class Softmax(Module):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        return F.softmax(x, self.axis)

    def extra_repr(self):
        return f"axis={self.axis}"


_ACTIVATIONS = {"relu": ReLU, "gelu": GELU, "silu": SiLU, "swish": SiLU, "tanh": Tanh, "sigmoid": Sigmoid,
                "softplus": Softplus, "leaky_relu": LeakyReLU, "identity": Identity, "linear": Identity}


def make_activation(activation):
    """A Module for ``activation``: a name ("relu", "gelu", "silu", "tanh", "sigmoid",
    "softplus", "leaky_relu", "identity"), a Module class, a Module instance (used as is) or a
    function of one tensor."""
    if isinstance(activation, str):
        try:
            return _ACTIVATIONS[activation.lower()]()
        except KeyError:
            raise ValueError(f"unknown activation {activation!r}; known: {', '.join(sorted(_ACTIVATIONS))}") from None
    if isinstance(activation, Module):
        return activation
    if isinstance(activation, type) and issubclass(activation, Module):
        return activation()
    if callable(activation):
        return _Lambda(activation)
    raise TypeError(f"activation must be a name, a Module or a callable, got {type(activation).__name__}")


class _Lambda(Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)

    def extra_repr(self):
        return getattr(self.fn, "__name__", repr(self.fn))


class MLP(Sequential):
    """A multilayer perceptron: Linear(in, h1), act, [Dropout], ..., Linear(h_last, out).

    hidden: list of hidden widths (empty: a single Linear). activation: see make_activation; each
    layer gets its own (a Module instance is copied). final_activation: also apply it after the
    last Linear."""

    def __init__(self, in_features, hidden, out_features, activation="relu", bias=True, dropout=0.0,
                 final_activation=False, dtype=None):
        widths = [in_features] + list(hidden) + [out_features]
        layers = []
        for i in range(len(widths) - 1):
            layers.append(Linear(widths[i], widths[i + 1], bias=bias, dtype=dtype))
            last = i == len(widths) - 2
            if not last or final_activation:
                layers.append(copy.deepcopy(activation) if isinstance(activation, Module)
                              else make_activation(activation))
            if dropout > 0 and not last:
                layers.append(Dropout(dropout))
        super().__init__(*layers)
