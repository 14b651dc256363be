"""Measurement in the computational basis of a state: a state vector [2^n] or a density matrix
[2^n, 2^n] (complex sp tensors), through the ops ``quantum::probabilities``, ``quantum::measure``
(differentiable) and ``quantum::sample`` (seeded shots). ``Circuit`` and ``DensityMatrix`` measure
through these functions; the ops validate the qubits and outcomes.

Conventions: an outcome of the measured qubits ``qubits = [q_0, ..., q_{m-1}]`` is the integer
b = sum_j bit(q_j) 2^j, written as the bitstring ``format(b, '0mb')`` whose LAST character is q_0
(Qiskit's order; with qubits = [] meaning all, the bitstring reads q_{n-1} ... q_0).

``order="big"`` (qubit_order.py) reverses all of that: the state given is in big order, the outcome
index is b = sum_j bit(q_j) 2^(m-1-j), a bitstring's FIRST character is q_0, and the returned
probabilities and post-measurement state are in big order. The shots drawn for one seed are the same
in both orders (only their labels differ).
"""
import numbers

import sampan as sp
from sampan._random import draw

from .qubit_order import BIG, DEFAULT_ORDER, check_order, convert, reverse_bits


def _little(state, order, who):
    """The state (ket or density matrix) in sampan's little order."""
    return convert(state, order, f"measurement.{who}")


def _n_measured(state, qubits):
    return len(qubits) if qubits else int(state.shape[0]).bit_length() - 1


def probabilities(state, qubits, order=DEFAULT_ORDER):
    """Probabilities (float64 sp tensor [2^m], differentiable) of the outcomes of ``qubits`` ([]: all),
    the state and the outcome index in ``order``."""
    p = sp.ops.quantum.probabilities(_little(state, order, "probabilities"), list(qubits))
    return convert(p, order, "measurement.probabilities")


def sample(state, qubits, shots, seed=None, generator=None, format="counts", order=DEFAULT_ORDER):
    """``shots`` outcomes of ``qubits`` ([]: all). format='counts': {bitstring: count}; 'bitstrings':
    a list of str; 'outcomes': int64 sp tensor of outcome integers. Seeded: seed=int (a fresh
    sp.Generator(seed)) or generator= (one draw taken from it); else the default generator.
    ``order``: of the state, of the outcome integers and of the characters of a bitstring."""
    if not isinstance(shots, numbers.Integral) or shots < 0:
        raise ValueError(f"sample: shots must be a non-negative integer, got {shots!r}")
    if seed is not None and generator is not None:
        raise ValueError("sample: give seed or generator, not both")
    state = _little(state, order, "sample")
    gen = sp.Generator(int(seed)) if seed is not None else generator
    s, offset = draw(gen)
    out = sp.ops.quantum.sample(state.detach(), list(qubits), int(shots), s, offset).cpu()  # labels: on the host
    m = _n_measured(state, qubits)
    if order == BIG:  # the same shots, their indices read with q_0 as the most significant bit
        out = sp.tensor(reverse_bits(out.numpy(), m))
    if format == "outcomes":
        return out
    bits = [format_bits(int(b), m) for b in out.numpy()]
    if format == "bitstrings":
        return bits
    if format != "counts":
        raise ValueError(f"sample: format is 'counts', 'bitstrings' or 'outcomes', got {format!r}")
    counts = {}
    for b in bits:
        counts[b] = counts.get(b, 0) + 1
    return dict(sorted(counts.items()))


def measure(state, qubits, outcome, order=DEFAULT_ORDER):
    """Measures ``qubits`` and keeps ``outcome`` (a list of bits, outcome[j] for qubits[j], or a
    bitstring with qubits[0] LAST, FIRST for order='big'): (normalised post-measurement state in
    ``order``, its probability), both differentiable sp tensors."""
    check_order(order, "measure")
    if not qubits:
        raise ValueError("measure: give the qubits to measure")
    if isinstance(outcome, str):
        if len(outcome) != len(qubits) or set(outcome) - {"0", "1"}:
            raise ValueError(f"measure: the bitstring {outcome!r} must have one 0/1 per measured qubit "
                             f"({len(qubits)})")
        bits = [int(c) for c in (outcome if order == BIG else reversed(outcome))]  # qubits[0] first / last
    else:
        bits = [int(b) for b in ([outcome] if isinstance(outcome, numbers.Integral) else outcome)]
    post, p = sp.ops.quantum.measure(_little(state, order, "measure"), list(qubits), bits)
    return convert(post, order, "measurement.measure"), p


def format_bits(b, m):
    """The bitstring of outcome index b over m qubits, its most significant bit first (so qubits[0]
    is the last character in little order, the first in big)."""
    return format(b, f"0{m}b") if m else ""
