"""Measurement in the computational basis of a state: a state vector [2^n] or a density matrix
[2^n, 2^n] (complex sp tensors), through the ops ``quantum::probabilities``, ``quantum::measure``
(differentiable) and ``quantum::sample`` (seeded shots). ``Circuit`` and ``DensityMatrix`` measure
through these functions; the ops validate the qubits and outcomes.

Conventions: an outcome of the measured qubits ``qubits = [q_0, ..., q_{m-1}]`` is the integer
b = sum_j bit(q_j) 2^j, written as the bitstring ``format(b, '0mb')`` whose LAST character is q_0
(Qiskit's order; with qubits = [] meaning all, the bitstring reads q_{n-1} ... q_0).
"""
import numbers

import sampan as sp
from sampan._random import draw


def probabilities(state, qubits):
    """Probabilities (float64 sp tensor [2^m], differentiable) of the outcomes of ``qubits`` ([]: all)."""
    return sp.ops.quantum.probabilities(state, list(qubits))


def sample(state, qubits, shots, seed=None, generator=None, format="counts"):
    """``shots`` outcomes of ``qubits`` ([]: all). format='counts': {bitstring: count}; 'bitstrings':
    a list of str; 'outcomes': int64 sp tensor of outcome integers. Seeded: seed=int (a fresh
    sp.Generator(seed)) or generator= (one draw taken from it); else the default generator."""
    if not isinstance(shots, numbers.Integral) or shots < 0:
        raise ValueError(f"sample: shots must be a non-negative integer, got {shots!r}")
    if seed is not None and generator is not None:
        raise ValueError("sample: give seed or generator, not both")
    gen = sp.Generator(int(seed)) if seed is not None else generator
    s, offset = draw(gen)
    out = sp.ops.quantum.sample(state.detach(), list(qubits), int(shots), s, offset)
    if format == "outcomes":
        return out
    m = len(qubits) if qubits else int(state.shape[0]).bit_length() - 1
    bits = [format_bits(int(b), m) for b in out.numpy()]
    if format == "bitstrings":
        return bits
    if format != "counts":
        raise ValueError(f"sample: format is 'counts', 'bitstrings' or 'outcomes', got {format!r}")
    counts = {}
    for b in bits:
        counts[b] = counts.get(b, 0) + 1
    return dict(sorted(counts.items()))


def measure(state, qubits, outcome):
    """Measures ``qubits`` and keeps ``outcome`` (a list of bits, outcome[j] for qubits[j], or a
    bitstring with qubits[0] LAST): (normalised post-measurement state, its probability), both
    differentiable sp tensors."""
    if not qubits:
        raise ValueError("measure: give the qubits to measure")
    if isinstance(outcome, str):
        if len(outcome) != len(qubits) or set(outcome) - {"0", "1"}:
            raise ValueError(f"measure: the bitstring {outcome!r} must have one 0/1 per measured qubit "
                             f"({len(qubits)})")
        bits = [int(c) for c in reversed(outcome)]  # last character is qubits[0]
    else:
        bits = [int(b) for b in ([outcome] if isinstance(outcome, numbers.Integral) else outcome)]
    return sp.ops.quantum.measure(state, list(qubits), bits)


def format_bits(b, m):
    """The bitstring of outcome b over m qubits, qubits[0] last (Qiskit's order)."""
    return format(b, f"0{m}b") if m else ""
