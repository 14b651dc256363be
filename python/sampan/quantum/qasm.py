"""OpenQASM 2.0 export and import for ``Circuit``, through the C++ reader and writer
(sampan/quantum/qasm.h, quantum/src/qasm/; bound as ``sp._C.quantum_parse_qasm`` and
``sp._C.quantum_to_qasm``), which work on the circuit encoding that ``Circuit._encode`` gives.

Qubit order: the qregs of a program are laid out in declaration order (the first qreg's qubit 0
is circuit qubit 0, the next qreg follows it), exactly as Qiskit lays out ``QuantumCircuit.qubits``;
circuit qubit q is bit q of the amplitude index (qubit 0 the least significant bit), which is
Qiskit's little-endian convention too, so ``Circuit.from_qasm(t).state()`` equals
``Statevector(qiskit.qasm2.loads(t))`` with no reordering. Classical registers are laid out the
same way and counts use Qiskit's key format (see classical.py).

Import reads the whole OpenQASM 2.0 language: ``include "qelib1.inc"``
(the only include; its gates are also known without it), every gate of qelib1.inc with Qiskit's
matrices, global phase included (rz = exp(-i phi Z/2), not u1; cu's fourth angle a phase on the
control), ``U``/``CX``, user ``gate`` definitions (expanded by substituting parameters and qubits;
nested; expressions with pi, + - * / ^, unary minus, sin cos tan exp ln sqrt), register
broadcasting (``h q;``, ``cx a, b;``), ``barrier`` (ignored: it does not change the state),
``creg``, ``measure q[i] -> c[j]`` and ``measure q -> c`` (terminal measurements are recorded for
``counts()``; a measurement followed by a gate on that qubit is mid-circuit and runs on density
matrices), ``reset`` (the reset channel, on density matrices; a reset of a qubit nothing has
touched yet is dropped, it is already ``|0>``), ``if (creg == n) qop;`` with qop a gate, ``measure``
or ``reset`` (classically controlled: the circuit then runs only in ``counts()``, which follows
the branches; measurements into that creg before it become mid-circuit, a controlled measurement
is a mid-circuit one inside the condition; a broadcast statement gives one condition per
instance, each reading the register when it runs, as Qiskit's reader does). ``opaque`` is refused.
Every error is a ``ValueError`` naming the line and column.

Export writes what the Circuit holds: native gates under qelib1.inc names (p -> u1, cp -> cu1,
cu -> cu3, cnot -> cx, ms -> rxx(-pi/2)), fixed matrix gates that are qelib1.inc gates (sx, sxdg,
ch, csx, c3x, c3sqrtx, c4x), any other 1-qubit matrix as u3 (up to its global phase) or, with one
control, as cu (exact), reset channels (1, 0) as ``reset``, classical registers and measurements;
angles as their current numbers. The gates that qelib1.inc gained after the paper (swap, cswap,
crx, cry, rxx, ryy, rzz, sx, sxdg, csx, cu, c3x, c3sqrtx, c4x) are written with a ``gate``
definition in the paper's gates, exact with Qiskit's matrices, so Qiskit's default
``qasm2.loads`` reads the output, and so does any strict OpenQASM 2.0 reader; importing such a
definition back gives the native gate again (a definition of one of those names is checked
against the built-in matrix, at random parameters, and used as the native gate when equal). Other
matrix gates and noise channels have no OpenQASM 2.0 form: ValueError.
"""
import sampan as sp

from .circuit import _ARITY, OPCODES
from .noise import CHANNEL_OPCODES

_GATE_NAMES = {op: name for name, op in OPCODES.items()}
_KRAUS, _RESET = CHANNEL_OPCODES["kraus_repr"], CHANNEL_OPCODES["reset_channel"]


def builtin_gates():
    """{name: (n_params, n_qubits, in the paper's qelib1.inc)} of the gates known without a definition."""
    return dict(sp._C.quantum_qasm_builtin_gates())


def to_qasm(circuit):
    """The circuit as OpenQASM 2.0 text (angles as numbers, current parameter values)."""
    params, enc, consts = circuit._encode(detached=True)
    return sp._C.quantum_to_qasm(circuit.n_qubits, enc, consts, [float(v) for v in params.numpy()],
                                 circuit.classical_registers, circuit.measurements,
                                 [tuple(m) for m in circuit.mid_circuit_measurements], list(circuit._conditions))


def from_qasm(text, circuit_class):
    """Parses OpenQASM 2.0 `text` into a new circuit_class instance (see the module docstring)."""
    r = sp._C.quantum_parse_qasm(text)
    c = circuit_class(r["n_qubits"])
    c._constants = list(r["constants"])
    const = lambda slot: ("const", -slot - 1)  # the reader writes every angle as a constant
    enc, i = list(r["encoding"]), 0
    while i < len(enc):  # the layouts of circuit.h, written by the C++ builder
        op = enc[i]
        name = _GATE_NAMES.get(op)
        if name == "unitary":  # [UNITARY, n_controls, k, controls..., targets..., offset]
            nc, k = enc[i + 1], enc[i + 2]
            c._gates.append((name, tuple(enc[i + 3:i + 3 + nc + k]), (("mat", nc, k, enc[i + 3 + nc + k]),)))
            i += 4 + nc + k
        elif name is not None:  # [op, qubits..., slots...]
            nq, npar = _ARITY[name]
            slots = enc[i + 1 + nq:i + 1 + nq + npar]
            c._gates.append((name, tuple(enc[i + 1:i + 1 + nq]), tuple(const(s) for s in slots)))
            i += 1 + nq + npar
        elif op == _KRAUS:  # [KRAUS, k, m, qubits..., offset]: a mid-circuit measurement
            k, m = enc[i + 1], enc[i + 2]
            c._gates.append(("kraus_repr", tuple(enc[i + 3:i + 3 + k]), (("mat", k, m, enc[i + 3 + k]),)))
            i += 4 + k
        elif op == _RESET:  # [RESET, q, p0, p1]
            c._gates.append(("reset_channel", (enc[i + 1],), (const(enc[i + 2]), const(enc[i + 3]))))
            i += 4
        else:
            raise RuntimeError(f"from_qasm: the reader wrote opcode {op}, which this decoder does not know")
    c._cregs = [(name, int(size)) for name, size in r["cregs"]]
    c._terminal = {int(b): int(q) for q, b in r["measurements"]}
    c._mid = [(int(g), int(q), [int(b) for b in bits]) for g, q, bits in r["mid_measurements"]]
    c._conditions = [tuple(int(x) for x in k) for k in r["conditions"]]
    return c
