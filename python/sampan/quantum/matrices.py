"""Dense gate matrices and circuit unitaries built from sampan ops, so that gradients flow from a
unitary (and any density matrix it acts on) back into the circuit's angle tensors.

This is the small-system path (k <= ~10 qubits) used by LOCC protocols: ``circuit_unitary(c)``
reads a ``Circuit``'s gate list (the same gates, angles and conventions as the C++ simulator, see
quantum/src/circuit.cpp) and multiplies 2x2 / 4x4 / 8x8 gate matrices into a 2^k x 2^k unitary.

Qubit convention: qubit q is bit q of the index. A matrix acting on ``qubits`` (a list) has
qubits[j] as bit j of its row/column index (qubits[0] least significant), as in
``Circuit.unitary``; controlled gates list controls first.
"""
import math

import numpy as np

import sampan as sp

from . import gates
from .qubit_order import DEFAULT_ORDER, convert

_C128 = sp.complex128
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

_I2 = np.eye(2, dtype=np.complex128)
_X = np.array([[0, 1], [1, 0]], dtype=np.complex128)
_Y = np.array([[0, -1j], [1j, 0]], dtype=np.complex128)
_Z = np.array([[1, 0], [0, -1]], dtype=np.complex128)
_H = np.array([[1, 1], [1, -1]], dtype=np.complex128) / math.sqrt(2)
_P0 = np.diag([1, 0]).astype(np.complex128)
_P1 = np.diag([0, 1]).astype(np.complex128)
_SWAP = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=np.complex128)


def _controlled_np(u, n_controls):
    """|1..1><1..1| (x) u + (I - |1..1><1..1|) (x) I with the controls as the low index bits."""
    dc = 2 ** n_controls
    dt = u.shape[0]
    proj = np.zeros((dc, dc), dtype=np.complex128)
    proj[-1, -1] = 1
    return np.kron(u, proj) + np.kron(np.eye(dt), np.eye(dc) - proj)


_FIXED = {
    "h": _H, "x": _X, "y": _Y, "z": _Z, "s": np.diag([1, 1j]), "sdg": np.diag([1, -1j]),
    "t": np.diag([1, np.exp(1j * math.pi / 4)]), "tdg": np.diag([1, np.exp(-1j * math.pi / 4)]),
    "cnot": _controlled_np(_X, 1), "cy": _controlled_np(_Y, 1), "cz": _controlled_np(_Z, 1),
    "swap": _SWAP, "ccx": _controlled_np(_X, 2),
    # [CSWAP, control, a, b]: control is bit 0, (a, b) bits 1 and 2.
    "cswap": _controlled_np(_SWAP, 1),
    # exp(+i pi/4 X(x)X) = RXX(-pi/2), Paddle Quantum's ms.
    "ms": (np.eye(4) + 1j * np.kron(_X, _X)) / math.sqrt(2),
}
_FIXED = {k: np.asarray(v, dtype=np.complex128) for k, v in _FIXED.items()}
_CONST_CACHE = {}


def _const(key, array):
    t = _CONST_CACHE.get(key)
    if t is None:
        t = sp.tensor(np.ascontiguousarray(array, dtype=np.complex128))
        _CONST_CACHE[key] = t
    return t


def _cplx(re, im=None):
    return sp.complex(re, sp.zeros_like(re) if im is None else im)


def _expi(x):
    return sp.complex(sp.cos(x), sp.sin(x))


def _pauli_rotation(pauli_np, key, theta):
    """exp(-i theta/2 P) = cos(theta/2) I - i sin(theta/2) P."""
    d = pauli_np.shape[0]
    half = theta * 0.5
    return _const(("I", d), np.eye(d)) * _cplx(sp.cos(half)) + _const(key, pauli_np) * _cplx(sp.zeros_like(half), -sp.sin(half))


def _u3(t, phi, lam):
    c, s = sp.cos(t * 0.5), sp.sin(t * 0.5)
    entries = [_cplx(c), -_expi(lam) * _cplx(s), _expi(phi) * _cplx(s), _expi(phi + lam) * _cplx(c)]
    return sp.reshape(sp.stack(entries), [2, 2])


def _controlled(u):
    """|0><0| (x) I + |1><1| (x) u on (control = bit 0, target = bit 1) for a 2x2 tensor u."""
    return kron(u, _const("P1", _P1)) + _const("I(x)P0", np.kron(_I2, _P0))


def kron(a, b):
    """Kronecker product of two matrices (NumPy's order: a acts on the high index bits)."""
    m, n = a.shape
    p, q = b.shape
    return sp.reshape(sp.einsum("ab,cd->acbd", a, b), [m * p, n * q])


def gate_matrix(name, angles=()):
    """The matrix of gate ``name`` (a Circuit gate name) for ``angles`` (sp float64 scalars),
    on its qubits in the Circuit's order (controls first, each qubit one index bit, the first the
    lowest)."""
    if name in _FIXED:
        return _const(name, _FIXED[name])
    if name in ("rx", "ry", "rz"):
        return _pauli_rotation({"rx": _X, "ry": _Y, "rz": _Z}[name], name, angles[0])
    if name in ("crx", "cry", "crz"):
        return _controlled(gate_matrix(name[1:], angles))
    if name == "p":
        return _const("P0", _P0) + _const("P1", _P1) * _expi(angles[0])
    if name == "cp":
        d = np.zeros((4, 4), dtype=np.complex128)
        d[3, 3] = 1
        return _const("I-e33", np.eye(4) - d) + _const("e33", d) * _expi(angles[0])
    if name in ("rxx", "ryy", "rzz"):
        p = {"rxx": _X, "ryy": _Y, "rzz": _Z}[name]
        return _pauli_rotation(np.kron(p, p), name + "pp", angles[0])
    if name == "u3":
        return _u3(*angles)
    if name == "cu":
        return _controlled(_u3(*angles))
    raise ValueError(f"gate_matrix: no matrix for gate '{name}'")


def apply_matrix(t, matrix, qubits, n_qubits):
    """matrix (2^k x 2^k, on ``qubits``) applied to the n-qubit index of t: t is [2^n] (a ket) or
    [2^n, m] (the rows of a matrix: a unitary, or a density matrix from the left)."""
    qubits = [int(q) for q in qubits]
    k = len(qubits)
    if matrix.shape != (2 ** k, 2 ** k):
        raise ValueError(f"apply_matrix: a matrix on {k} qubit(s) must be {2 ** k}x{2 ** k}, got {tuple(matrix.shape)}")
    n = int(n_qubits)
    extra = list(t.shape[1:])
    if t.shape[0] != 2 ** n:
        raise ValueError(f"apply_matrix: expected {2 ** n} rows for {n} qubits, got {t.shape[0]}")
    if len(set(qubits)) != k or any(not 0 <= q < n for q in qubits):
        raise ValueError(f"apply_matrix: qubits {qubits} must be distinct and in [0, {n})")
    # State axis n-1-q holds qubit q. Bring the target axes to the front (qubits[k-1] first, so
    # that the flattened front index is the matrix index), multiply, and put them back.
    front = [n - 1 - qubits[j] for j in range(k - 1, -1, -1)]
    rest = [a for a in range(n) if a not in front]
    m_extra = int(np.prod(extra)) if extra else 1
    perm = front + rest + ([n] if extra else [])
    x = sp.permute(sp.reshape(t, [2] * n + ([m_extra] if extra else [])), perm)
    x = sp.reshape(x, [2 ** k, -1])
    y = sp.matmul(matrix, x)
    y = sp.reshape(y, [2] * n + ([m_extra] if extra else []))
    inverse = [0] * len(perm)
    for i, a in enumerate(perm):
        inverse[a] = i
    return sp.reshape(sp.permute(y, inverse), [2 ** n] + extra)


def dagger(m):
    """Conjugate transpose of a matrix."""
    return sp.conj(sp.transpose(m, 0, 1))


def conjugate_density_matrix(rho, matrix, qubits, n_qubits):
    """U rho U^+ for U = ``matrix`` on ``qubits`` of an n-qubit density matrix (rho Hermitian)."""
    a = apply_matrix(rho, matrix, qubits, n_qubits)            # U rho
    return dagger(apply_matrix(dagger(a), matrix, qubits, n_qubits))   # (U (U rho)^+)^+ = U rho U^+


def circuit_gates(circuit):
    """[(matrix tensor, qubits)] for every gate of ``circuit`` in order, read from its encoding
    (``circuit.encode()``), so the matrices are differentiable in circuit.parameters and in user
    angle tensors."""
    params, enc, consts = circuit.encode()

    def value(slot):
        return params[slot] if slot >= 0 else sp.tensor(float(consts[-slot - 1]), dtype=sp.float64)
    out = []
    for g, qubits, slots, matrix in gates.decode(enc):
        if g.layout == "unitary":
            nc, k, off = matrix
            flat = np.asarray(consts[off:off + 2 * 4 ** k], dtype=np.float64)
            u = (flat[0::2] + 1j * flat[1::2]).reshape(2 ** k, 2 ** k)
            m = sp.tensor(np.ascontiguousarray(_controlled_np(u, nc) if nc else u))
        else:
            m = gate_matrix(g.method, [value(s) for s in slots])
        out.append((m, qubits))
    return out


def circuit_unitary(circuit, order=DEFAULT_ORDER):
    """The 2^n x 2^n unitary of ``circuit`` (complex128 sp tensor, differentiable in its angles) in
    qubit ``order``: column j is circuit|j>, so circuit_unitary(c, order)[:, 0] equals c.state(order)."""
    n = circuit.n_qubits
    if n > 12:
        raise ValueError(f"circuit_unitary: {n} qubits is too many for a dense unitary (at most 12)")
    u = _const(("I", 2 ** n), np.eye(2 ** n))
    for m, qubits in circuit_gates(circuit):
        u = apply_matrix(u, m, qubits, n)
    return convert(u, order, "circuit_unitary")
