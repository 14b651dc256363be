"""Parameter initialization (``sp.nn.init``), in place and without recording gradients.

Random draws come from sampan's generator (``sp.manual_seed`` makes them reproducible) or from
the ``generator`` argument. Fan-in and fan-out follow PyTorch: for a weight of shape
``(out, in, *kernel)``, fan_in = in * prod(kernel) and fan_out = out * prod(kernel).
"""
import math

import sampan


def _fill_(tensor, values):
    with sampan.no_grad():
        sampan.copy_(tensor, values)
    return tensor


def _random_dtype(tensor):
    # Draw in the tensor's floating dtype; other dtypes draw in float64 and are converted.
    return tensor.dtype if tensor.dtype in (sampan.float32, sampan.float64) else sampan.float64


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' variance through ``nonlinearity`` (PyTorch's table):
    1 for linear/sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + a^2)) for leaky_relu
    with slope a (default 0.01), 3/4 for selu."""
    if nonlinearity in ("linear", "identity", "conv1d", "conv2d", "conv3d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3.0
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1.0 + slope * slope))
    if nonlinearity == "selu":
        return 0.75
    raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}")


def fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight of shape ``(out, in, *kernel)``; needs at least 2 dimensions."""
    if tensor.ndim < 2:
        raise ValueError(f"fan in and fan out need a tensor of at least 2 dimensions, got shape {tuple(tensor.shape)}")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    if mode == "fan_in":
        return fan_in
    if mode == "fan_out":
        return fan_out
    raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills with values drawn uniformly from [a, b)."""
    values = sampan.uniform(a, b, tuple(tensor.shape), dtype=_random_dtype(tensor), generator=generator)
    return _fill_(tensor, values)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills with values drawn from N(mean, std^2)."""
    values = sampan.normal(mean, std, tuple(tensor.shape), dtype=_random_dtype(tensor), generator=generator)
    return _fill_(tensor, values)


def constant_(tensor, value):
    return _fill_(tensor, sampan.full_like(tensor, value))


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot and Bengio (2010): U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He et al. (2015): U(-b, b) with b = gain * sqrt(3 / fan). Linear's default, a = sqrt(5)
    with leaky_relu, gives b = 1 / sqrt(fan_in)."""
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)
