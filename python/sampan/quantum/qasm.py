"""OpenQASM 2.0 export and import for ``Circuit``.

Qubit order: the qregs of a program are laid out in declaration order (the first qreg's qubit 0
is circuit qubit 0, the next qreg follows it), exactly as Qiskit lays out ``QuantumCircuit.qubits``;
circuit qubit q is bit q of the amplitude index (qubit 0 the least significant bit), which is
Qiskit's little-endian convention too, so ``Circuit.from_qasm(t).state()`` equals
``Statevector(qiskit.qasm2.loads(t))`` with no reordering. Classical registers are laid out the
same way and counts use Qiskit's key format (see classical.py).

Import (``from_qasm``) reads the whole OpenQASM 2.0 language except classical control:
``include "qelib1.inc"`` (the only include; its gates are also known without it), every gate of
qelib1.inc with Qiskit's matrices (qasm_gates.py), ``U``/``CX``, user ``gate`` definitions
(expanded by substituting parameters and qubits; nested; expressions with pi, + - * / ^, unary
minus, sin cos tan exp ln sqrt), register broadcasting (``h q;``, ``cx a, b;``), ``barrier``
(ignored: it does not change the state), ``creg``, ``measure q[i] -> c[j]`` and ``measure q -> c``
(terminal measurements are recorded for ``counts()``; a measurement followed by a gate on that
qubit is mid-circuit and runs on density matrices), ``reset`` (the reset channel, on density
matrices; a reset of a qubit nothing has touched yet is dropped, it is already |0>). ``if`` and
``opaque`` are refused. Every error is a ``ValueError`` naming the line and column.

Export (``to_qasm``) writes what the Circuit holds: native gates under qelib1.inc names (p -> u1,
cp -> cu1, cu -> cu3, cnot -> cx, ms -> rxx(-pi/2)), fixed matrix gates that are qelib1.inc gates
(sx, sxdg, ch, csx, c3x, c3sqrtx, c4x), any other 1-qubit matrix as u3 (up to its global phase)
or, with one control, as cu (exact), reset channels (1, 0) as ``reset``, classical registers and
measurements; angles as their current numbers. The gates that qelib1.inc gained after the paper
(swap, cswap, crx, cry, rxx, ryy, rzz, sx, sxdg, csx, cu, c3x, c3sqrtx, c4x) are written with a
``gate`` definition in the paper's gates, exact with Qiskit's matrices, so Qiskit's default
``qasm2.loads`` reads the output, and so does any strict OpenQASM 2.0 reader; importing such a
definition back gives the native gate again (a definition of one of those names is checked
against the built-in matrix, at random parameters, and used as the native gate when equal). Other
matrix gates and noise channels have no OpenQASM 2.0 form: ValueError.
"""
import math

import numpy as np

from .qasm_gates import NAMED_MATRICES, zyz_angles
from .qasm_import import Importer, build

# sampan name -> QASM name. Gates absent here are written by _export_special.
_EXPORT = {"h": "h", "x": "x", "y": "y", "z": "z", "s": "s", "sdg": "sdg", "t": "t", "tdg": "tdg",
           "p": "u1", "rx": "rx", "ry": "ry", "rz": "rz", "u3": "u3", "cnot": "cx", "cy": "cy",
           "cz": "cz", "swap": "swap", "cp": "cu1", "crx": "crx", "cry": "cry", "crz": "crz",
           "rxx": "rxx", "ryy": "ryy", "rzz": "rzz", "ccx": "ccx", "cu": "cu3", "cswap": "cswap"}


def _num(v):
    """A float as an OpenQASM real: repr round-trips exactly; the grammar wants a '.' before 'e'."""
    s = repr(float(v))
    if "e" in s and "." not in s:
        s = s.replace("e", ".0e")
    return s


def _mcphase(qubits, lam):
    """Lines applying e^{i lam} where every qubit is 1, exactly (no ancilla, no phase lost): with
    x_1 ... x_m = 2^{1-m} sum_{S nonempty} (-1)^{|S|+1} parity_S(x), each subset's parity is
    computed into its last qubit by CNOTs, phased by u1 and uncomputed."""
    m, lines = len(qubits), []
    for mask in range(1, 2 ** m):
        members = [qubits[i] for i in range(m) if mask >> i & 1]
        angle = (1 if len(members) % 2 else -1) * lam / 2 ** (m - 1)
        t = members[-1]
        lines += [f"cx {c},{t};" for c in members[:-1]] + [f"u1({_num(angle)}) {t};"]
        lines += [f"cx {c},{t};" for c in reversed(members[:-1])]
    return lines


def _controlled_x_like(name, n, lam):
    """n-qubit gate: H on the last qubit around a multi-controlled phase lam (pi: C..CX; pi/2:
    C..C-SX, since H P(pi/2) H = SX)."""
    qs = [f"a{i}" for i in range(n)]
    body = [f"h {qs[-1]};"] + _mcphase(qs, lam) + [f"h {qs[-1]};"]
    return f"gate {name} {','.join(qs)} {{ {' '.join(body)} }}"


# Definitions, in terms of the paper's qelib1.inc gates, of the gates Qiskit's default
# qasm2.loads does not know. Each is exact with Qiskit's matrices, global phase included
# (rz(t) u1(-t) is the global phase e^{-i t/2} under Qiskit's RZ), so our importer maps them
# back to native gates and Qiskit reads the same unitary.
_DEFINITIONS = {
    "swap": "gate swap a,b { cx a,b; cx b,a; cx a,b; }",
    "cswap": "gate cswap a,b,c { cx c,b; ccx a,b,c; cx c,b; }",
    "crx": "gate crx(theta) a,b { h b; crz(theta) a,b; h b; }",
    "cry": "gate cry(theta) a,b { sdg b; h b; crz(theta) a,b; h b; s b; }",
    "rzz": "gate rzz(theta) a,b { cx a,b; rz(theta) b; cx a,b; }",
    "rxx": "gate rxx(theta) a,b { h a; h b; cx a,b; rz(theta) b; cx a,b; h a; h b; }",
    "ryy": "gate ryy(theta) a,b { rx(pi/2) a; rx(pi/2) b; cx a,b; rz(theta) b; cx a,b; rx(-pi/2) a; rx(-pi/2) b; }",
    "sx": "gate sx a { sdg a; h a; sdg a; rz(-pi/2) a; u1(pi/2) a; }",
    "sxdg": "gate sxdg a { s a; h a; s a; rz(pi/2) a; u1(-pi/2) a; }",
    "csx": "gate csx a,b { h b; cu1(pi/2) a,b; h b; }",
    "cu": "gate cu(theta,phi,lam,gamma) c,t { u1(gamma) c; cu3(theta,phi,lam) c,t; }",
    "c3x": _controlled_x_like("c3x", 4, math.pi),
    "c3sqrtx": _controlled_x_like("c3sqrtx", 4, math.pi / 2),
    "c4x": _controlled_x_like("c4x", 5, math.pi),
}


def _matrix_gate(circuit, k, refs, qs):
    """(QASM line, gate name) for a fixed (controlled) matrix gate, or None without a qelib1.inc form."""
    _, n_controls, n_targets, offset = refs[0]
    dim = 2 ** n_targets
    flat = np.asarray(circuit._constants[offset:offset + 2 * dim * dim])
    m = (flat[0::2] + 1j * flat[1::2]).reshape(dim, dim)
    for name, nc, ref in NAMED_MATRICES:
        if nc == n_controls and ref.shape == m.shape and np.abs(m - ref).max() <= 1e-14:
            return f"{name} {','.join(qs)};", name
    if n_targets == 1 and n_controls <= 1:
        theta, phi, lam, gamma = zyz_angles(m)
        angles = ",".join(_num(a) for a in (theta, phi, lam))
        if n_controls == 0:  # the global phase e^{i gamma} of an uncontrolled gate is unobservable
            return f"u3({angles}) {qs[0]};", "u3"
        return f"cu({angles},{_num(gamma)}) {qs[0]},{qs[1]};", "cu"
    return None


def to_qasm(circuit):
    """The circuit as OpenQASM 2.0 text (angles as numbers, current parameter values)."""
    values = circuit._angle_values()
    cregs = circuit.classical_registers
    qname = "q"
    while any(qname == name for name, _ in cregs):
        qname += "_"
    bit_names = [f"{name}[{i}]" for name, size in cregs for i in range(size)]
    mid = {g: (q, bits) for g, q, bits in circuit.mid_circuit_measurements}
    body, used = [], set()
    for k, (name, qubits, refs) in enumerate(circuit._gates):
        q = [f"{qname}[{i}]" for i in qubits]
        if k in mid:
            body += [f"measure {qname}[{mid[k][0]}] -> {bit_names[b]};" for b in mid[k][1]]
            continue
        angles = [values(r) for r in refs] if refs and refs[0][0] != "mat" else []
        matrix = _matrix_gate(circuit, k, refs, q) if name == "unitary" else None
        if name in _EXPORT:
            args = f"({','.join(_num(a) for a in angles)})" if angles else ""
            body.append(f"{_EXPORT[name]}{args} {','.join(q)};")
            used.add(_EXPORT[name])
        elif name == "ms":  # exp(+i pi/4 XX) = RXX(-pi/2)
            body.append(f"rxx({_num(-math.pi / 2)}) {','.join(q)};")
            used.add("rxx")
        elif name == "reset_channel" and angles == [1.0, 0.0]:
            body.append(f"reset {q[0]};")
        elif matrix is not None:
            body.append(matrix[0])
            used.add(matrix[1])
        else:
            what = "this matrix gate" if name == "unitary" else "noise channels"
            raise ValueError(f"Circuit.to_qasm: gate {k} ({name}) has no OpenQASM 2.0 equivalent in "
                             f"qelib1.inc ({what} cannot be exported; only 1-qubit matrices, with at most one "
                             "control, and the fixed qelib1.inc gates are)")
    body += [f"measure {qname}[{q}] -> {bit_names[b]};" for q, b in circuit.measurements]
    lines = ["OPENQASM 2.0;", 'include "qelib1.inc";']
    lines += [text for name, text in _DEFINITIONS.items() if name in used]
    lines += [f"qreg {qname}[{circuit.n_qubits}];"] + [f"creg {name}[{size}];" for name, size in cregs]
    return "\n".join(lines + body) + "\n"


def from_qasm(text, circuit_class):
    """Parses OpenQASM 2.0 `text` into a new circuit_class instance (see the module docstring)."""
    importer = Importer(text)
    importer.program()
    return build(importer, circuit_class)
