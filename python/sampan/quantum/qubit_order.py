"""The two qubit orders of a basis-state index, and the one conversion between them.

``order="little"``: qubit 0 is the least significant bit of the basis-state index, i = sum_q b_q 2^q
(Qiskit's order, and sampan's own: the simulator, ``Circuit.state()`` and every default).
``order="big"``: qubit 0 is the most significant bit, i = sum_q b_q 2^(n-1-q) (Paddle Quantum,
QuAIRKit, PennyLane, Cirq): ``|q_0 q_1 ... q_{n-1}>`` read left to right is the binary index.

Every function that takes or returns a vector or matrix over qubits accepts ``order=`` and converts
with ``convert`` below at its boundary; inside, everything is little. Which qubits an argument names
(``qubits=[0, 2]``) is by label and never depends on the order.
"""
import functools

import numpy as np

import sampan as sp

LITTLE = "little"
BIG = "big"
ORDERS = (LITTLE, BIG)
DEFAULT_ORDER = LITTLE   # sampan's order since the start; existing callers rely on it


def check_order(order, who):
    """``order`` itself when it is 'little' or 'big'; ValueError naming ``who`` otherwise."""
    if order not in ORDERS:
        raise ValueError(f"{who}: order must be 'little' (qubit 0 = least significant bit, as Qiskit) or "
                         f"'big' (qubit 0 = most significant bit, as PennyLane), got {order!r}")
    return order


def _n_qubits(dim, who):
    n = int(dim).bit_length() - 1
    if dim < 1 or 2 ** n != dim:
        raise ValueError(f"{who}: a dimension over qubits must be a power of two, got {dim}")
    return n


def convert(x, order, who="convert"):
    """``x`` (a vector [2^n] or a matrix [2^n, 2^n]; sp tensor or NumPy array) between sampan's
    little order and ``order``: for 'big', the index bits reversed (reshape to [2]*n, reverse the
    axes; on both sides of a matrix). The reversal is its own inverse, so the same call converts
    little to big and big to little. Differentiable for sp tensors."""
    if check_order(order, who) == LITTLE:
        return x
    is_numpy = not isinstance(x, sp.Tensor)
    shape = tuple(np.shape(x)) if is_numpy else tuple(x.shape)
    if len(shape) not in (1, 2) or (len(shape) == 2 and shape[0] != shape[1]):
        raise ValueError(f"{who}: expected a vector [2^n] or a square matrix [2^n, 2^n], got shape {shape}")
    n = _n_qubits(shape[0], who)
    reversed_axes = list(range(n - 1, -1, -1))
    axes = reversed_axes if len(shape) == 1 else reversed_axes + [n + a for a in reversed_axes]
    if is_numpy:
        return np.ascontiguousarray(np.transpose(np.reshape(x, [2] * (n * len(shape))), axes)).reshape(shape)
    return sp.reshape(sp.permute(sp.reshape(x, [2] * (n * len(shape))), axes), list(shape))


def reverse_bits(values, m):
    """The m-bit integers ``values`` (a NumPy integer array) with their bit order reversed: an outcome
    index of m measured qubits from one order to the other."""
    values = np.asarray(values, dtype=np.int64)
    out = np.zeros_like(values)
    for j in range(m):
        out |= ((values >> j) & 1) << (m - 1 - j)
    return out


def with_order(fn):
    """``fn`` (which returns a little-order vector or matrix over qubits) with a keyword ``order``
    that returns the same state or operator laid out in that order."""
    @functools.wraps(fn)
    def call(*args, order=DEFAULT_ORDER, **kwargs):
        return convert(fn(*args, **kwargs), order, fn.__name__)
    return call
