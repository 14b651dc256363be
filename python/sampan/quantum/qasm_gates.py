"""The gates of OpenQASM 2.0's qelib1.inc as ``Circuit`` calls, with Qiskit's exact matrices.

qelib1.inc (Cross et al., arXiv:1707.03429, and the later additions Qiskit ships: p, cp, u, sx,
sxdg, csx, cu, rxx, rzz, rccx, rc3x, c3x, c3sqrtx, c4x, u0) defines each gate by a body whose
global phase is sometimes lost (rz = u1 differs from exp(-i phi Z/2) by e^{-i phi/2}). A loader
that means to agree with other tools must pick one reading: we take the matrices of Qiskit's
standard gates (RZ = diag(e^{-i phi/2}, e^{i phi/2}), SX = [[1+i, 1-i], [1-i, 1+i]]/2, CU with
its fourth angle as a phase on the control, ...), so a state imported here equals
``qiskit.quantum_info.Statevector`` of ``qiskit.qasm2.loads`` of the same text to rounding,
global phase included (bench/quantum/qasm_roundtrip.py checks it).

``QELIB1[name] = (n_params, n_qubits, emit)`` with ``emit(circuit, angles, qubits)``. Gates the
Circuit has natively map to its methods; sx, sxdg, ch, csx, c3x, c4x and c3sqrtx become fixed
(controlled) matrix gates; rccx and rc3x become their defining sequences of H, T, Tdg and CNOT
(the relative-phase Toffolis are defined by those sequences); id and u0 are identities.
"""
import cmath
import math

import numpy as np

X = np.array([[0, 1], [1, 0]], dtype=np.complex128)
H = np.array([[1, 1], [1, -1]], dtype=np.complex128) / math.sqrt(2)
SX = np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]], dtype=np.complex128) / 2  # SX @ SX = X
SXDG = SX.conj().T


def _rccx(c, a, b, t):
    """Relative-phase Toffoli (Margolus): the CCX up to a diagonal phase, with 3 CNOTs."""
    c.h(t).t(t).cnot(b, t).tdg(t).cnot(a, t).t(t).cnot(b, t).tdg(t).h(t)


def _rc3x(c, a, b, d3, t):
    """Relative-phase 3-controlled X (qelib1.inc's rc3x sequence)."""
    c.h(t).t(t).cnot(d3, t).tdg(t).h(t)
    c.cnot(a, t).t(t).cnot(b, t).tdg(t).cnot(a, t).t(t).cnot(b, t).tdg(t)
    c.h(t).t(t).cnot(d3, t).tdg(t).h(t)


def _cu4(c, a, q):
    """Qiskit's cu(theta, phi, lam, gamma) = |0><0| (x) I + |1><1| (x) e^{i gamma} U3: a controlled
    U3 and the phase gamma on the control."""
    c.cu(a[0], a[1], a[2], q[0], q[1])
    if a[3] != 0:
        c.p(a[3], q[0])


def _matrix(m, n_controls):
    return lambda c, a, q: c.controlled_unitary(m, list(q[:n_controls]), [q[n_controls]])


def identity(c, a, q):
    pass


QELIB1 = {
    "U": (3, 1, lambda c, a, q: c.u3(a[0], a[1], a[2], q[0])),
    "CX": (0, 2, lambda c, a, q: c.cnot(q[0], q[1])),
    "u3": (3, 1, lambda c, a, q: c.u3(a[0], a[1], a[2], q[0])),
    "u": (3, 1, lambda c, a, q: c.u3(a[0], a[1], a[2], q[0])),
    "u2": (2, 1, lambda c, a, q: c.u3(math.pi / 2, a[0], a[1], q[0])),
    "u1": (1, 1, lambda c, a, q: c.p(a[0], q[0])),
    "p": (1, 1, lambda c, a, q: c.p(a[0], q[0])),
    "u0": (1, 1, identity),
    "id": (0, 1, identity),
    "cx": (0, 2, lambda c, a, q: c.cnot(q[0], q[1])),
    "x": (0, 1, lambda c, a, q: c.x(q[0])),
    "y": (0, 1, lambda c, a, q: c.y(q[0])),
    "z": (0, 1, lambda c, a, q: c.z(q[0])),
    "h": (0, 1, lambda c, a, q: c.h(q[0])),
    "s": (0, 1, lambda c, a, q: c.s(q[0])),
    "sdg": (0, 1, lambda c, a, q: c.sdg(q[0])),
    "t": (0, 1, lambda c, a, q: c.t(q[0])),
    "tdg": (0, 1, lambda c, a, q: c.tdg(q[0])),
    "rx": (1, 1, lambda c, a, q: c.rx(a[0], q[0])),
    "ry": (1, 1, lambda c, a, q: c.ry(a[0], q[0])),
    "rz": (1, 1, lambda c, a, q: c.rz(a[0], q[0])),
    "sx": (0, 1, _matrix(SX, 0)),
    "sxdg": (0, 1, _matrix(SXDG, 0)),
    "cz": (0, 2, lambda c, a, q: c.cz(q[0], q[1])),
    "cy": (0, 2, lambda c, a, q: c.cy(q[0], q[1])),
    "swap": (0, 2, lambda c, a, q: c.swap(q[0], q[1])),
    "ch": (0, 2, _matrix(H, 1)),
    "ccx": (0, 3, lambda c, a, q: c.ccx(q[0], q[1], q[2])),
    "cswap": (0, 3, lambda c, a, q: c.cswap(q[0], q[1], q[2])),
    "crx": (1, 2, lambda c, a, q: c.crx(a[0], q[0], q[1])),
    "cry": (1, 2, lambda c, a, q: c.cry(a[0], q[0], q[1])),
    "crz": (1, 2, lambda c, a, q: c.crz(a[0], q[0], q[1])),
    "cu1": (1, 2, lambda c, a, q: c.cp(a[0], q[0], q[1])),
    "cp": (1, 2, lambda c, a, q: c.cp(a[0], q[0], q[1])),
    "cu3": (3, 2, lambda c, a, q: c.cu(a[0], a[1], a[2], q[0], q[1])),
    "csx": (0, 2, _matrix(SX, 1)),
    "cu": (4, 2, _cu4),
    "rxx": (1, 2, lambda c, a, q: c.rxx(a[0], q[0], q[1])),
    "rzz": (1, 2, lambda c, a, q: c.rzz(a[0], q[0], q[1])),
    "rccx": (0, 3, lambda c, a, q: _rccx(c, *q)),
    "rc3x": (0, 4, lambda c, a, q: _rc3x(c, *q)),
    "c3x": (0, 4, _matrix(X, 3)),
    "c3sqrtx": (0, 4, _matrix(SX, 3)),
    "c4x": (0, 5, _matrix(X, 4)),
}

# The gates of qelib1.inc as the OpenQASM 2.0 paper lists them; a program may not redefine these
# (Qiskit's default qasm2.loads knows only these). The later additions may be defined by a program.
PAPER_QELIB1 = frozenset(["u3", "u2", "u1", "cx", "id", "x", "y", "z", "h", "s", "sdg", "t", "tdg", "rx", "ry",
                          "rz", "cz", "cy", "ch", "ccx", "crz", "cu1", "cu3"])

# Not in qelib1.inc but understood without a definition (a file's own `gate ryy ...` wins).
EXTENSIONS = {
    "ryy": (1, 2, lambda c, a, q: c.ryy(a[0], q[0], q[1])),
}

# Export of fixed matrix gates: (number of controls, matrix) -> qelib1.inc name.
NAMED_MATRICES = [("x", 0, X), ("h", 0, H), ("sx", 0, SX), ("sxdg", 0, SXDG), ("cx", 1, X), ("ch", 1, H),
                  ("csx", 1, SX), ("ccx", 2, X), ("c3x", 3, X), ("c3sqrtx", 3, SX), ("c4x", 4, X)]


def zyz_angles(u):
    """(theta, phi, lam, gamma) with u = e^{i gamma} U3(theta, phi, lam) for a 2x2 unitary u."""
    theta = 2 * math.atan2(abs(u[1, 0]), abs(u[0, 0]))
    if abs(u[0, 0]) > 1e-12:
        gamma = cmath.phase(u[0, 0])
        if abs(u[1, 0]) > 1e-12:
            phi = cmath.phase(u[1, 0]) - gamma
            lam = cmath.phase(-u[0, 1]) - gamma
        else:  # diagonal: only phi + lam is defined
            phi, lam = 0.0, cmath.phase(u[1, 1]) - gamma
    else:  # anti-diagonal (theta = pi): only phi - lam is defined
        lam = 0.0
        gamma = cmath.phase(-u[0, 1])
        phi = cmath.phase(u[1, 0]) - gamma
    return theta, phi, lam, gamma
