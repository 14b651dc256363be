"""The gates and noise channels of the circuit encoding: one table, read from C++ at import
(``sp._C.quantum_gate_table``, written once in quantum/include/sampan/quantum/gate_table.h), and
the layouts of the encoding (quantum/include/sampan/quantum/circuit.h) it implies.

Each entry (a ``GateSpec``) has the gate's ``name`` as C++ error messages spell it ("CNOT"), its
``method`` (the ``Circuit`` method and the name ``Circuit.gates()`` lists, "cnot"), ``opcode``,
``n_qubits`` (-1: variable), ``n_params``, ``n_controls`` (leading control qubits; -1: carried by
the encoding), ``channel`` (a noise channel, density matrices only) and ``layout``:

* ``fixed``: ``[op, qubits..., slots...]``
* ``unitary``: ``[op, n_controls, k, controls..., targets..., offset]``
* ``qubit_list``: ``[op, k, qubits..., slots...]``
* ``matrix_terms``: ``[op, k, m, qubits..., offset]``
* ``matrix``: ``[op, k, qubits..., offset]``

A slot s >= 0 reads params[s], s < 0 reads constants[-s - 1]; an offset is where a matrix (or a
channel's probabilities and matrices) starts in constants.
"""
from collections import namedtuple

import sampan as sp

GateSpec = namedtuple("GateSpec", "name method opcode n_qubits n_params n_controls channel layout")

TABLE = tuple(GateSpec(**entry) for entry in sp._C.quantum_gate_table())
BY_METHOD = {g.method: g for g in TABLE}
BY_OPCODE = {g.opcode: g for g in TABLE}
OPCODES = {g.method: g.opcode for g in TABLE if not g.channel}
CHANNEL_OPCODES = {g.method: g.opcode for g in TABLE if g.channel}
MATRIX_LAYOUTS = ("unitary", "matrix_terms", "matrix")


def spec(name):
    """The table entry of the gate or channel ``name`` (a Circuit method name); ValueError naming it
    when there is none."""
    g = BY_METHOD.get(name)
    if g is None:
        raise ValueError(f"unknown gate {name!r}: the gate table (quantum/include/sampan/quantum/gate_table.h) "
                         f"has {', '.join(BY_METHOD)}")
    return g


def encode(g, qubits, slots=(), matrix=None):
    """The encoding entries of one gate ``g`` (a GateSpec) on ``qubits``: ``slots`` for the fixed and
    qubit_list layouts; ``matrix`` = (a, b, offset) for the matrix layouts, with (a, b) =
    (n_controls, k) for unitary, (k, m) for matrix_terms, (k, unused) for matrix."""
    if g.layout == "fixed":
        return [g.opcode, *qubits, *slots]
    if g.layout == "qubit_list":
        return [g.opcode, len(qubits), *qubits, *slots]
    a, b, offset = matrix
    if g.layout in ("unitary", "matrix_terms"):
        return [g.opcode, a, b, *qubits, offset]
    return [g.opcode, a, *qubits, offset]


def decode(encoding):
    """Yields (GateSpec, qubits tuple, slots tuple, matrix) for each gate of an encoding, with matrix
    = (a, b, offset) as ``encode`` takes it (None for the fixed and qubit_list layouts). Assumes a
    valid encoding (as the C++ reader and the builders write)."""
    i = 0
    while i < len(encoding):
        g = BY_OPCODE.get(encoding[i])
        if g is None:
            raise ValueError(f"decode: opcode {encoding[i]} at entry {i} is not in the gate table")
        if g.layout == "fixed":
            end = i + 1 + g.n_qubits
            yield g, tuple(encoding[i + 1:end]), tuple(encoding[end:end + g.n_params]), None
            i = end + g.n_params
        elif g.layout == "qubit_list":
            k = encoding[i + 1]
            end = i + 2 + k
            yield g, tuple(encoding[i + 2:end]), tuple(encoding[end:end + g.n_params]), None
            i = end + g.n_params
        elif g.layout == "unitary":
            nc, k = encoding[i + 1], encoding[i + 2]
            end = i + 3 + nc + k
            yield g, tuple(encoding[i + 3:end]), (), (nc, k, encoding[end])
            i = end + 1
        elif g.layout == "matrix_terms":
            k, m = encoding[i + 1], encoding[i + 2]
            end = i + 3 + k
            yield g, tuple(encoding[i + 3:end]), (), (k, m, encoding[end])
            i = end + 1
        else:  # matrix
            k = encoding[i + 1]
            end = i + 2 + k
            yield g, tuple(encoding[i + 2:end]), (), (k, 0, encoding[end])
            i = end + 1


def check(name, qubits, n_qubits, values=(), matrix=None, numbers=(), who=None):
    """Validates one gate in C++ (sp._C.quantum_check_gate, the C++ builder's own check) before a
    Circuit records it: ``values`` are its parameters, each a number (fixed: checked finite and in
    its domain) or None (trainable); ``matrix`` = (a, b) as for ``encode`` with the matrix numbers
    in ``numbers``. Raises IndexError / ValueError prefixed by ``Circuit.<who>`` (default: name)."""
    g = spec(name)
    local, slots = [], []
    if matrix is not None:
        local = [float(x) for x in numbers]
        entry = encode(g, qubits, matrix=(matrix[0], matrix[1], 0))
    else:
        for v in values:
            if v is None:
                slots.append(0)
            else:
                local.append(float(v))
                slots.append(-len(local))
        entry = encode(g, qubits, slots)
    sp._C.quantum_check_gate(entry, local, n_qubits, f"Circuit.{who or name}")


def check_qubits(qubits, n_qubits, who, distinct=True):
    """IndexError unless every qubit is in [0, n_qubits); with distinct, ValueError when one repeats
    (C++ check_qubits, the check every gate passes). ``who`` prefixes the message."""
    sp._C.quantum_check_qubits([int(q) for q in qubits], n_qubits, who, distinct)
