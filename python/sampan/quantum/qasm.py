"""OpenQASM 2.0 export and import for ``Circuit``, through the C++ reader and writer
(sampan/quantum/qasm.h, quantum/src/qasm/; bound as ``sp._C.quantum_parse_qasm`` and
``sp._C.quantum_to_qasm``), which work on the circuit encoding that ``Circuit.encode`` gives.
``Circuit.from_qasm`` / ``Circuit.to_qasm`` call ``read`` / ``write``; this module knows text and
encodings, not Circuit (it imports no other module of sampan.quantum).

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


def builtin_gates():
    """{name: (n_params, n_qubits, in the paper's qelib1.inc)} of the gates known without a definition."""
    return dict(sp._C.quantum_qasm_builtin_gates())


def write(n_qubits, encoding, constants, params, cregs, measurements, mid_measurements, conditions):
    """OpenQASM 2.0 text of an encoded circuit (angles as numbers: params are the current values)
    with its classical registers [(name, size)], terminal measurements [(qubit, clbit)], mid-circuit
    measurements [(gate, qubit, clbits)] and conditions [(first gate, end gate, clbit offset, n bits,
    value)]; ValueError for what OpenQASM 2.0 cannot express."""
    return sp._C.quantum_to_qasm(n_qubits, encoding, constants, params, cregs, measurements,
                                 [tuple(m) for m in mid_measurements], list(conditions))


def read(text):
    """The C++ reader's program for OpenQASM 2.0 `text` (see the module docstring): {n_qubits,
    encoding (the layouts of circuit.h, every angle a constant), constants, cregs, measurements,
    mid_measurements, conditions}; ValueError naming the line and column when malformed."""
    return sp._C.quantum_parse_qasm(text)
