"""The gate subset that sampan.quantum shares with Qiskit and OpenQASM 3 (stdgates.inc): ONE
table, read by qiskit_bridge.py and qasm3.py in both directions, and the two operations on a
Circuit they share (``add``: an external gate into a Circuit; ``exported``: a Circuit's gates
as external names).

Names are Qiskit's gate names, which are also stdgates.inc's; every gate has Qiskit's matrix
(qubit 0 the least significant bit, as in sampan). An angle is an ``Angle``: a number (index
None) or ``scale * parameter[index] + shift`` with ``index`` a circuit-owned parameter, which a
Circuit records as ("own", i) or ("aff", i, scale, shift), so the gradient reaches it.
"""
import math
from collections import namedtuple

import numpy as np

from .gates import CHANNEL_OPCODES, spec
from .qubit_order import LITTLE

Angle = namedtuple("Angle", "index scale shift")  # index None: the number `shift`


def constant(value):
    return Angle(None, 0.0, float(value))


_SX = 0.5 * np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]])
_H = np.array([[1, 1], [1, -1]]) / math.sqrt(2)

# External name -> sampan method; same qubits (controls first), same angles, same matrix.
NATIVE = {
    "h": "h", "x": "x", "y": "y", "z": "z", "s": "s", "sdg": "sdg", "t": "t", "tdg": "tdg",
    "p": "p", "u1": "p", "phase": "p", "rx": "rx", "ry": "ry", "rz": "rz",
    "u": "u3", "u3": "u3", "U": "u3",
    "cx": "cnot", "CX": "cnot", "cy": "cy", "cz": "cz", "swap": "swap",
    "cp": "cp", "cu1": "cp", "cphase": "cp", "crx": "crx", "cry": "cry", "crz": "crz",
    "rxx": "rxx", "ryy": "ryy", "rzz": "rzz", "ccx": "ccx", "cswap": "cswap", "cu3": "cu",
}
# External name -> (matrix, number of controls): fixed gates sampan holds as a (controlled) unitary.
MATRIX = {"sx": (_SX, 0), "sxdg": (_SX.conj().T, 0), "ch": (_H, 1)}
# External names written out as other gates: u2(phi, lam) = u3(pi/2, phi, lam);
# cu(theta, phi, lam, gamma) = cu3(theta, phi, lam) and p(gamma) on the control; id: nothing.
SPECIAL = ("u2", "cu", "id")
# sampan method -> the external name it is written as (ms: rxx(-pi/2), written by `exported`).
EXPORT = {"u3": "u", "cu": "cu"}
for _name, _method in NATIVE.items():
    EXPORT.setdefault(_method, _name)

SUPPORTED = sorted([*NATIVE, *MATRIX, *SPECIAL])


def n_angles(name):
    """How many angles the external gate `name` takes (None: not in the subset)."""
    if name in MATRIX or name == "id":
        return 0
    if name in ("u2",):
        return 2
    if name == "cu":
        return 4
    method = NATIVE.get(name)
    if method is None:
        return None
    return spec(method).n_params


def n_qubits(name):
    """How many qubits the external gate `name` acts on."""
    if name in MATRIX:
        matrix, n_ctrl = MATRIX[name]
        return n_ctrl + int(math.log2(matrix.shape[0]))
    if name in ("u2", "id"):
        return 1
    if name == "cu":
        return 2
    return spec(NATIVE[name]).n_qubits


def unsupported(name, where):
    return ValueError(f"{where}: gate {name!r} is not in the gate subset sampan shares with Qiskit and "
                      f"OpenQASM 3 ({', '.join(SUPPORTED)})")


def _ref(circuit, angle, who):
    """The Circuit's angle reference of an Angle."""
    if angle.index is None:
        return circuit._angle_refs(float(angle.shift), 1, who)[0]
    if angle.scale == 1.0 and angle.shift == 0.0:
        return ("own", angle.index)
    return ("aff", angle.index, float(angle.scale), float(angle.shift))


def add(circuit, name, qubits, angles, where):
    """Appends the external gate `name` on `qubits` with `angles` (Angles) to `circuit`; ValueError
    prefixed by `where` (e.g. 'line 4') for a gate outside the subset or a wrong arity."""
    expected = n_angles(name)
    if expected is None:
        raise unsupported(name, where)
    if len(angles) != expected or len(qubits) != n_qubits(name):
        raise ValueError(f"{where}: gate {name!r} takes {expected} angle(s) and {n_qubits(name)} qubit(s), "
                         f"got {len(angles)} and {len(qubits)}")
    qubits = tuple(int(q) for q in qubits)
    if name in MATRIX:
        matrix, n_ctrl = MATRIX[name]
        circuit.controlled_unitary(matrix, list(qubits[:n_ctrl]), list(qubits[n_ctrl:]), order=LITTLE)  # Qiskit's
    elif name == "id":
        pass
    elif name == "u2":
        add(circuit, "u3", qubits, [constant(math.pi / 2), *angles], where)
    elif name == "cu":
        add(circuit, "cu3", qubits, angles[:3], where)
        if angles[3] != constant(0.0):  # gamma = 0 (as sampan's cu exports): no phase gate
            add(circuit, "p", qubits[:1], angles[3:], where)
    else:
        method = NATIVE[name]
        circuit._add(method, qubits, tuple(_ref(circuit, a, method) for a in angles))


def add_global_phase(circuit, angle, where):
    """e^{i phi} on the whole state as P(phi) X P(phi) X on qubit 0 (diag(e^{i phi}, 1) diag(1,
    e^{i phi})), so a trainable phase stays trainable; nothing for a phase that is the number 0."""
    if angle.index is None and angle.shift == 0.0:
        return
    for name in ("p", "x", "p", "x"):
        add(circuit, name, (0,), [angle] if name == "p" else [], where)


def _angle(circuit, r, value):
    if r[0] == "own":
        return Angle(r[1], 1.0, 0.0)
    if r[0] == "aff":
        return Angle(r[1], r[2], r[3])
    return constant(value(r))  # a number, or the current value of a user tensor


def exported(circuit):
    """Yields (external name, qubits, [Angle]) for each gate of `circuit`, or (None, qubits, matrix)
    for a matrix gate that is not in MATRIX (the caller decides what it can write); ValueError
    naming a noise channel or a classical operation."""
    value = circuit._angle_values()
    if circuit._mid or circuit._conditions or circuit._terminal:
        raise ValueError("measurements and classical conditions are not exported to Qiskit / OpenQASM 3 "
                         "by this bridge (use to_qasm for OpenQASM 2.0)")
    for k, (method, qubits, refs) in enumerate(circuit._gates):
        if method in CHANNEL_OPCODES:
            raise ValueError(f"gate {k}: the noise channel {method!r} has no unitary form in Qiskit / OpenQASM 3")
        if method == "unitary":
            _, n_ctrl, n_target, offset = refs[0]
            flat = np.asarray(circuit._constants[offset:offset + 2 * 4 ** n_target])
            matrix = (flat[0::2] + 1j * flat[1::2]).reshape(2 ** n_target, 2 ** n_target)
            name = next((n for n, (m, c) in MATRIX.items()
                         if c == n_ctrl and m.shape == matrix.shape and np.allclose(m, matrix, atol=1e-12)), None)
            yield (name, qubits, []) if name else (None, qubits, (matrix, n_ctrl))
        elif method == "ms":  # exp(+i pi/4 XX) = RXX(-pi/2)
            yield "rxx", qubits, [constant(-math.pi / 2)]
        else:
            yield EXPORT[method], qubits, [_angle(circuit, r, value) for r in refs] + \
                ([constant(0.0)] if method == "cu" else [])
