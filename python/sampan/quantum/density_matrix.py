"""``DensityMatrix``: a mixed state with the observables of sampan.quantum, ``apply(circuit)`` and
one shortcut per noise channel of the gate table (``rho.amplitude_damping(0.2, 0)``).

A density matrix on n qubits is a complex sp tensor [2^n, 2^n], rho[r, c] with qubit q = bit q of
r and of c. Everything is differentiable. Measurement conventions: measurement.py.

It is stored in sampan's little qubit order; ``order='big'`` (qubit_order.py) on the constructor,
``from_state``, ``to_tensor``/``numpy`` and the measurement methods reads or writes big order.
"""
import numbers

import numpy as np

import sampan as sp

from . import measurement, shots as shot_estimates
from .circuit import Circuit
from .gates import CHANNEL_OPCODES
from .hamiltonian import Hamiltonian
from .qubit_order import DEFAULT_ORDER, convert


def _as_tensor(x):
    return x if isinstance(x, sp.Tensor) else sp.tensor(np.asarray(x))


class DensityMatrix:
    """A density matrix (complex sp tensor [2^n, 2^n], rho[r, c] with qubit q = bit q of r and c)
    with the observables of sampan.quantum, ``apply(circuit)`` and one method per channel
    (``rho.amplitude_damping(0.2, 0)``), all differentiable. ``DensityMatrix(circuit)`` runs a circuit (with or
    without channels) from ``|0...0><0...0|``; ``DensityMatrix(tensor)`` wraps a matrix;
    ``DensityMatrix.from_state(psi)`` is ``|psi><psi|`` (differentiable in psi). ``order``: the qubit
    order of a given matrix or ket (not of a circuit, which carries its own)."""

    def __init__(self, data, order=DEFAULT_ORDER):
        if hasattr(data, "density_matrix") and hasattr(data, "n_qubits"):  # a Circuit
            data, order = data.density_matrix(), DEFAULT_ORDER
        t = _as_tensor(data)
        if t.dtype not in (sp.complex64, sp.complex128):
            t = t.to(sp.complex128)
        shape = list(t.shape)
        if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 2 or shape[0] & (shape[0] - 1):
            raise ValueError(f"DensityMatrix: expected a [2^n, 2^n] matrix, got shape {shape}")
        self.data = convert(t, order, "DensityMatrix")
        self.n_qubits = int(shape[0]).bit_length() - 1

    @classmethod
    def from_state(cls, psi, order=DEFAULT_ORDER):
        psi = _as_tensor(psi)
        if psi.dtype not in (sp.complex64, sp.complex128):
            psi = psi.to(sp.complex128)
        col = sp.reshape(psi, [-1, 1])
        return cls(sp.matmul(col, sp.conj(sp.reshape(psi, [1, -1]))), order=order)

    def to_tensor(self, order=DEFAULT_ORDER):
        """The matrix as a (differentiable) sp tensor in qubit ``order``."""
        return convert(self.data, order, "DensityMatrix.to_tensor")

    def numpy(self, order=DEFAULT_ORDER):
        return self.to_tensor(order).detach().numpy()

    def apply(self, circuit):
        """E(rho) for a Circuit (gates and channels) on as many qubits: a new DensityMatrix,
        differentiable in this matrix and in the circuit's parameters (op
        quantum::evolve_density_matrix). The channel methods (bit_flip, depolarizing, kraus_repr,
        ...) are shortcuts: ``rho.depolarizing(0.1, [0])`` = ``rho.apply(Circuit(n).depolarizing(0.1, [0]))``."""
        if circuit.n_qubits != self.n_qubits:
            raise ValueError(f"DensityMatrix.apply: the circuit has {circuit.n_qubits} qubits, the state "
                             f"{self.n_qubits}")
        params, enc, consts = circuit.encode()
        return DensityMatrix(sp.ops.quantum.evolve_density_matrix(params, self.data, enc, consts))

    def trace(self):
        """tr(rho) (real part, float64 sp scalar)."""
        return sp.sum(sp.real(sp.diagonal(self.data)))

    def purity(self):
        """``tr(rho^2) = sum |rho_ij|^2`` for Hermitian rho."""
        return sp.sum(sp.real(sp.mul(self.data, sp.conj(self.data))))

    def expectation(self, hamiltonian, shots=None, seed=None):
        """tr(H rho) (differentiable in the tensor): sum_ij H_ji rho_ij. shots=N: the N-shot estimate
        (shots.py; seeded by ``seed``, not differentiable)."""
        if not isinstance(hamiltonian, Hamiltonian):
            hamiltonian = Hamiltonian(hamiltonian)
        if shots is not None:
            return shot_estimates.estimate_expectation(self.data, hamiltonian, shots, seed)
        h = sp.tensor(np.ascontiguousarray(hamiltonian.matrix(self.n_qubits).T)).to(self.data.dtype)
        return sp.sum(sp.real(sp.mul(h, self.data)))

    def probabilities(self, qubits=None, order=DEFAULT_ORDER):
        return measurement.probabilities(self.to_tensor(order), list(qubits) if qubits is not None else [], order=order)

    def sample(self, shots, qubits=None, seed=None, generator=None, format="counts", order=DEFAULT_ORDER):
        return measurement.sample(self.to_tensor(order), list(qubits) if qubits is not None else [], shots, seed, generator,
                                  format, order=order)

    def measure(self, qubits, outcome, order=DEFAULT_ORDER):
        """(post-measurement DensityMatrix, probability); see Circuit.measure (``order``: of a
        bitstring outcome)."""
        post, p = measurement.measure(self.to_tensor(order), [qubits] if isinstance(qubits, numbers.Integral) else list(qubits),
                                      outcome, order=order)
        return DensityMatrix(post, order=order), p


def _channel_shortcut(name):
    def method(self, *args, **kwargs):
        c = Circuit(self.n_qubits)
        getattr(c, name)(*args, **kwargs)
        return self.apply(c)
    method.__name__ = name
    method.__doc__ = f"A new DensityMatrix: this one after the channel Circuit.{name} (same arguments)."
    return method


for _name in CHANNEL_OPCODES:
    setattr(DensityMatrix, _name, _channel_shortcut(_name))
