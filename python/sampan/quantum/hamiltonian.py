"""Hamiltonians as weighted Pauli strings, e.g. ``Hamiltonian([(1.0, "Z0 Z1"), (0.5, "X2")])``."""
import numbers
import re

import numpy as np

from .qubit_order import DEFAULT_ORDER, convert

_CODES = {"I": 0, "X": 1, "Y": 2, "Z": 3}
_TOKEN = re.compile(r"^([IXYZ])(\d+)$")
_PAULI_MATRICES = {
    0: np.eye(2, dtype=complex),
    1: np.array([[0, 1], [1, 0]], dtype=complex),
    2: np.array([[0, -1j], [1j, 0]], dtype=complex),
    3: np.array([[1, 0], [0, -1]], dtype=complex),
}


class Hamiltonian:
    """sum_k coef_k P_k with P_k a Pauli string written as space-separated tokens "X0 Z3 Y1"
    (letter I/X/Y/Z, then the qubit index); "" or "I" is the identity. Coefficients are real."""

    def __init__(self, terms):
        self.terms = []  # [(coef, {qubit: code})]
        for k, item in enumerate(terms):
            if not (isinstance(item, (tuple, list)) and len(item) == 2):
                raise ValueError(f"Hamiltonian: term {k} must be (coefficient, 'Pauli string'), got {item!r}")
            coef, text = item
            if not isinstance(coef, numbers.Real):
                raise TypeError(f"Hamiltonian: term {k}: the coefficient must be a real number, got {coef!r}")
            if not np.isfinite(coef):
                raise ValueError(f"Hamiltonian: term {k}: the coefficient {coef} is not finite")
            if not isinstance(text, str):
                raise TypeError(f"Hamiltonian: term {k}: the Pauli string must be a str, got {text!r}")
            ops = {}
            for tok in text.replace(",", " ").split():
                if tok.upper() == "I":
                    continue
                m = _TOKEN.match(tok.upper())
                if not m:
                    raise ValueError(f"Hamiltonian: term {k}: cannot read {tok!r} in {text!r} "
                                     "(expected tokens like 'X0', 'Z3', 'Y1')")
                q = int(m.group(2))
                if q in ops:
                    raise ValueError(f"Hamiltonian: term {k}: qubit {q} appears twice in {text!r}")
                if _CODES[m.group(1)]:
                    ops[q] = _CODES[m.group(1)]
            self.terms.append((float(coef), ops))

    @property
    def n_qubits(self):
        """One more than the highest qubit a term acts on (0 for a constant)."""
        return max((max(ops) + 1 for _, ops in self.terms if ops), default=0)

    def encode(self, n_qubits):
        """(paulis, coeffs) for the quantum ops: n_qubits codes per term (0=I 1=X 2=Y 3=Z)."""
        if self.n_qubits > n_qubits:
            raise IndexError(f"Hamiltonian acts on qubit {self.n_qubits - 1} but the circuit has "
                             f"{n_qubits} qubits (valid: 0 to {n_qubits - 1})")
        paulis, coeffs = [], []
        for coef, ops in self.terms:
            paulis.extend(ops.get(q, 0) for q in range(n_qubits))
            coeffs.append(coef)
        return paulis, coeffs

    def matrix(self, n_qubits=None, order=DEFAULT_ORDER):
        """The dense 2^n x 2^n matrix (NumPy, complex128) in qubit ``order`` ('little': qubit 0 the least
        significant bit; 'big': the most, so "Z0" is Z (x) I (x) ... (x) I)."""
        n = self.n_qubits if n_qubits is None else n_qubits
        self.encode(n)  # range check
        h = np.zeros((2 ** n, 2 ** n), dtype=complex)
        for coef, ops in self.terms:
            m = np.ones((1, 1), dtype=complex)
            for q in reversed(range(n)):  # qubit n-1 is the leftmost Kronecker factor
                m = np.kron(m, _PAULI_MATRICES[ops.get(q, 0)])
            h += coef * m
        return convert(h, order, "Hamiltonian.matrix")

    def __repr__(self):
        names = "IXYZ"
        parts = [f"{c:+g} " + (" ".join(f"{names[p]}{q}" for q, p in sorted(ops.items())) or "I")
                 for c, ops in self.terms]
        return "Hamiltonian(" + " ".join(parts) + ")"
