"""OpenQASM 3 import and export for ``Circuit`` (``Circuit.from_qasm3`` / ``Circuit.to_qasm3``),
with trainable parameters: ``input float[64] theta;`` (or ``input angle[n]``) declares one
circuit-owned parameter named theta, and a gate angle may be any expression affine in one
parameter (``rx(2*theta + pi/4) q[0];``), its gradient reaching theta.

Import parses with the PyPI parser ``openqasm3`` (installed with the extra 'qiskit', imported
lazily) and reads: ``include "stdgates.inc"``, ``qubit[n] q;`` / ``qubit q;`` (and ``qreg``) laid
out in declaration order (the first register's qubit 0 is circuit qubit 0, the least significant
bit, as in Qiskit), the gates of the subset in bridge_gates.py with Qiskit's matrices (as
``qiskit.qasm3.loads`` reads stdgates.inc names), the built-in ``U`` (Qiskit's UGate) and
``gphase`` (a global phase, applied as P X P X on qubit 0), register broadcasting, ``barrier``
(ignored) and ``gate`` definitions: a definition whose name is a subset gate is that gate once
its body is checked equal to it up to a global phase (so ``qiskit.qasm3.dumps`` output, which
defines rzz, rxx, ryy and sxdg, reads back as those gates); any other definition is expanded.
Expressions: numbers, pi/π, tau/τ, euler/ℇ, + - * / ** and sin cos tan exp ln sqrt arcsin
arccos arctan of constants. Anything else (measurements, classical types and control flow,
gate modifiers, ``output``, other includes) raises ValueError naming the line and the construct.

Export writes the same subset (stdgates.inc names, u3 as ``U``, ms as ``rxx(-pi/2)``; rxx, ryy,
rzz and sxdg, which stdgates.inc lacks, with exact definitions in stdgates gates), circuit-owned
parameters as ``input float[64]`` named ``parameter_names`` (names that are not identifiers are
written theta_<i>), numbers and user-tensor angles as their current values (``repr``, exact).
"""
import math
import re

import numpy as np

from . import bridge_gates
from .bridge_gates import Angle, constant

_CONSTANTS = {"pi": math.pi, "π": math.pi, "tau": 2 * math.pi, "τ": 2 * math.pi, "euler": math.e, "ℇ": math.e}
_FUNCTIONS = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp, "ln": math.log,
              "sqrt": math.sqrt, "arcsin": math.asin, "arccos": math.acos, "arctan": math.atan}
# Definitions written by the exporter for subset gates that stdgates.inc lacks (exact, Qiskit's matrices).
_DEFINITIONS = {
    "rzz": "gate rzz(t) a, b { cx a, b; rz(t) b; cx a, b; }",
    "rxx": "gate rxx(t) a, b { h a; h b; cx a, b; rz(t) b; cx a, b; h a; h b; }",
    "ryy": "gate ryy(t) a, b { sdg a; h a; sdg b; h b; cx a, b; rz(t) b; cx a, b; h a; s a; h b; s b; }",
    "sxdg": "gate sxdg a { sx a; sx a; sx a; }",
}
_STDGATES = {"p", "x", "y", "z", "h", "s", "sdg", "t", "tdg", "sx", "rx", "ry", "rz", "cx", "cy", "cz", "cp", "crx",
             "cry", "crz", "ch", "swap", "ccx", "cswap", "cu", "CX", "phase", "cphase", "id", "u1", "u2", "u3"}
_RESERVED = {"q", "U", "gphase", "input", "output", "qubit", "gate", "include", "angle", "float", "pi", "tau",
             "euler", "π", "τ", "ℇ", *_FUNCTIONS, *_STDGATES, *_DEFINITIONS}


class _Error(ValueError):
    pass


def _fail(node, what):
    line = node.span.start_line if getattr(node, "span", None) else "?"
    return _Error(f"OpenQASM 3 line {line}: {what}")


# ---- affine arithmetic on Angles --------------------------------------------------------------------
def _add(a, b, node, names):
    if a.index is not None and b.index is not None and a.index != b.index:
        raise _fail(node, f"the angle depends on two parameters ({names[a.index]}, {names[b.index]}); "
                          "only expressions affine in one are supported")
    index = a.index if a.index is not None else b.index
    return Angle(index, a.scale + b.scale, a.shift + b.shift)


def _scale(a, k):
    return Angle(a.index, a.scale * k, a.shift * k)


class _Reader:
    def __init__(self, cls, program, values):
        self.cls, self.program, self.values = cls, program, values
        self.parameters = {}   # name -> owned index
        self.registers = {}    # name -> [circuit qubits]
        self.definitions = {}  # name -> QuantumGateDefinition
        self.n_qubits = 0
        self.ops = []          # (name, qubits, angles, node) and ("gphase", (), [angle], node)

    # expressions -----------------------------------------------------------------------------------
    def angle(self, node, scope):
        from openqasm3 import ast
        names = list(self.parameters)
        if isinstance(node, (ast.IntegerLiteral, ast.FloatLiteral)):
            return constant(node.value)
        if isinstance(node, ast.Identifier):
            if node.name in scope:
                return scope[node.name]
            if node.name in self.parameters:
                return Angle(self.parameters[node.name], 1.0, 0.0)
            if node.name in _CONSTANTS:
                return constant(_CONSTANTS[node.name])
            raise _fail(node, f"unknown identifier {node.name!r} in an angle (expected a number, an input "
                              "parameter, a gate argument or pi/tau/euler)")
        if isinstance(node, ast.UnaryExpression) and node.op.name == "-":
            return _scale(self.angle(node.expression, scope), -1.0)
        if isinstance(node, ast.BinaryExpression):
            a, b, op = self.angle(node.lhs, scope), self.angle(node.rhs, scope), node.op.name
            if op == "+":
                return _add(a, b, node, names)
            if op == "-":
                return _add(a, _scale(b, -1.0), node, names)
            if op == "*" and (a.index is None or b.index is None):
                return _scale(b, a.shift) if a.index is None else _scale(a, b.shift)
            if op == "/" and b.index is None:
                if b.shift == 0:
                    raise _fail(node, "division by zero in an angle")
                return _scale(a, 1.0 / b.shift)
            if op == "**" and a.index is None and b.index is None:
                return constant(a.shift ** b.shift)
            raise _fail(node, f"the angle is not affine in one parameter (operator {op!r} on a parameter)")
        if isinstance(node, ast.FunctionCall) and node.name.name in _FUNCTIONS:
            args = [self.angle(x, scope) for x in node.arguments]
            if len(args) != 1 or args[0].index is not None:
                raise _fail(node, f"{node.name.name}() takes one constant argument (a parameter inside it "
                                  "is not affine)")
            return constant(_FUNCTIONS[node.name.name](args[0].shift))
        raise _fail(node, f"unsupported expression {type(node).__name__} in an angle")

    # qubits ----------------------------------------------------------------------------------------
    def operand(self, node, scope):
        """The circuit qubits one gate operand names (a register gives several)."""
        from openqasm3 import ast
        if isinstance(node, ast.Identifier):
            if node.name in scope:
                return scope[node.name]
            if node.name in self.registers:
                return self.registers[node.name]
            raise _fail(node, f"unknown qubit or register {node.name!r}")
        if isinstance(node, ast.IndexedIdentifier):
            reg = self.registers.get(node.name.name)
            if reg is None:
                raise _fail(node, f"unknown register {node.name.name!r}")
            if len(node.indices) != 1 or not isinstance(node.indices[0], list) or len(node.indices[0]) != 1 \
                    or not isinstance(node.indices[0][0], ast.IntegerLiteral):
                raise _fail(node, f"only a single integer index is supported in {node.name.name}[...]")
            i = node.indices[0][0].value
            if not 0 <= i < len(reg):
                raise _fail(node, f"index {i} is out of range for register {node.name.name}[{len(reg)}]")
            return [reg[i]]
        raise _fail(node, f"unsupported qubit operand {type(node).__name__}")

    # statements ------------------------------------------------------------------------------------
    def declare_input(self, s):
        from openqasm3 import ast
        if s.io_identifier.name != "input":
            raise _fail(s, f"'{s.io_identifier.name}' declarations are not supported (only input parameters)")
        if not isinstance(s.type, (ast.FloatType, ast.AngleType)):
            raise _fail(s, f"input {s.identifier.name!r} has type {type(s.type).__name__}; "
                           "only float and angle inputs (trainable angles) are supported")
        if s.identifier.name in self.parameters:
            raise _fail(s, f"input {s.identifier.name!r} is declared twice")
        self.parameters[s.identifier.name] = len(self.parameters)

    def declare_qubits(self, s, name, size):
        if name in self.registers:
            raise _fail(s, f"register {name!r} is declared twice")
        self.registers[name] = list(range(self.n_qubits, self.n_qubits + size))
        self.n_qubits += size

    def size(self, s, node):
        from openqasm3 import ast
        if node is None:
            return 1
        if not isinstance(node, ast.IntegerLiteral) or node.value < 1:
            raise _fail(s, "a qubit register size must be a positive integer literal")
        return node.value

    def gate(self, s, scope, qubit_scope):
        """Appends the ops of one gate call (expanding definitions and broadcasting registers)."""
        from openqasm3 import ast
        if isinstance(s, ast.QuantumPhase):
            if s.modifiers or s.qubits:
                raise _fail(s, "gphase with modifiers or qubits is not supported")
            self.ops.append(("gphase", (), [self.angle(s.argument, scope)], s))
            return
        if isinstance(s, ast.QuantumBarrier):
            return
        if not isinstance(s, ast.QuantumGate):
            raise _fail(s, f"unsupported statement {type(s).__name__} (only gates, gphase and barrier here)")
        name = s.name.name
        if s.modifiers:
            raise _fail(s, f"gate modifiers ({', '.join(m.modifier.name for m in s.modifiers)} @) are not supported")
        if s.duration is not None:
            raise _fail(s, "gate durations are not supported")
        angles = [self.angle(a, scope) for a in s.arguments]
        operands = [self.operand(q, qubit_scope) for q in s.qubits]
        sizes = {len(o) for o in operands if len(o) > 1}
        if len(sizes) > 1:
            raise _fail(s, f"gate {name!r}: registers of different sizes {sorted(sizes)} cannot be broadcast")
        for k in range(sizes.pop() if sizes else 1):
            qubits = [o[k] if len(o) > 1 else o[0] for o in operands]
            self.call(s, name, qubits, angles)

    def call(self, s, name, qubits, angles):
        definition = self.definitions.get(name)
        if definition is not None and bridge_gates.n_angles(name) is None:  # expand a user gate
            if len(angles) != len(definition.arguments) or len(qubits) != len(definition.qubits):
                raise _fail(s, f"gate {name!r} takes {len(definition.arguments)} angle(s) and "
                               f"{len(definition.qubits)} qubit(s), got {len(angles)} and {len(qubits)}")
            scope = {a.name: v for a, v in zip(definition.arguments, angles)}
            qscope = {q.name: [v] for q, v in zip(definition.qubits, qubits)}
            for inner in definition.body:
                self.gate(inner, scope, qscope)
            return
        if bridge_gates.n_angles(name) is None:
            raise _fail(s, str(bridge_gates.unsupported(name, f"gate call {name}")))
        if len(set(qubits)) != len(qubits):
            raise _fail(s, f"gate {name!r} is applied to a repeated qubit {qubits}")
        self.ops.append((name, tuple(qubits), angles, s))

    def define(self, s):
        name = s.name.name
        if name in self.definitions:
            raise _fail(s, f"gate {name!r} is defined twice")
        if bridge_gates.n_angles(name) is not None:
            self.check_definition(s, name)
        self.definitions[name] = s

    def check_definition(self, s, name):
        """A definition of a subset gate must be that gate up to a global phase (compared as
        unitaries at two random parameter values); ValueError naming the line otherwise."""
        from .matrices import circuit_unitary
        n_args, n_qubits = len(s.arguments), len(s.qubits)
        if (n_args, n_qubits) != (bridge_gates.n_angles(name), bridge_gates.n_qubits(name)):
            raise _fail(s, f"gate {name!r} is defined with {n_args} angle(s) and {n_qubits} qubit(s); the "
                           f"standard gate takes {bridge_gates.n_angles(name)} and {bridge_gates.n_qubits(name)}")
        rng = np.random.default_rng(0)
        for _ in range(2):
            angles = [constant(v) for v in rng.uniform(-math.pi, math.pi, n_args)]
            body = _Reader(self.cls, None, None)
            body.definitions = self.definitions
            scope = {a.name: v for a, v in zip(s.arguments, angles)}
            qscope = {q.name: [i] for i, q in enumerate(s.qubits)}
            for inner in s.body:
                body.gate(inner, scope, qscope)
            body.n_qubits = n_qubits
            native = self.cls(n_qubits)
            bridge_gates.add(native, name, range(n_qubits), angles, "definition check")
            u, v = circuit_unitary(body.build()).numpy(), circuit_unitary(native).numpy()
            overlap = np.vdot(v.reshape(-1), u.reshape(-1)) / v.shape[0]
            if not np.allclose(u, overlap / abs(overlap) * v, atol=1e-9):
                raise _fail(s, f"the definition of {name!r} is not the standard {name} gate (Qiskit's matrix, up "
                               "to a global phase); rename it to use it as a custom gate")

    def read(self):
        from openqasm3 import ast
        for s in self.program.statements:
            if isinstance(s, ast.Include):
                if s.filename != "stdgates.inc":
                    raise _fail(s, f"include {s.filename!r}: only \"stdgates.inc\" is known")
            elif isinstance(s, ast.IODeclaration):
                self.declare_input(s)
            elif isinstance(s, ast.QubitDeclaration):
                self.declare_qubits(s, s.qubit.name, self.size(s, s.size))
            elif isinstance(s, ast.QuantumGateDefinition):
                self.define(s)
            elif isinstance(s, (ast.QuantumGate, ast.QuantumPhase, ast.QuantumBarrier)):
                self.gate(s, {}, {})
            else:
                raise _fail(s, f"unsupported statement {type(s).__name__} (the bridge reads qubit and input "
                               "declarations, gate definitions, gates, gphase and barrier)")
        return self.build()

    def build(self):
        if self.n_qubits == 0:
            raise _Error("OpenQASM 3: the program declares no qubits")
        c = self.cls(self.n_qubits)
        names = list(self.parameters)
        if names:
            c._angle_refs(None, len(names), "from_qasm3")
            c._parameter_names = dict(enumerate(names))
            for key, v in (self.values or {}).items():
                if key not in self.parameters:
                    raise _Error(f"from_qasm3: values has {key!r}, which is not an input of the program "
                                 f"({', '.join(names)})")
                c._own_values[self.parameters[key]] = float(v)
        for name, qubits, angles, node in self.ops:
            where = f"OpenQASM 3 line {node.span.start_line if node.span else '?'}"
            if name == "gphase":
                bridge_gates.add_global_phase(c, angles[0], where)
            else:
                bridge_gates.add(c, name, qubits, angles, where)
        return c


def read(cls, text, values=None):
    """A `cls` (Circuit) from OpenQASM 3 `text` (see the module docstring); values: {input name:
    initial value}, default the circuit's seeded draws in [0, 2 pi)."""
    try:
        import openqasm3
    except ImportError as e:
        raise ImportError("OpenQASM 3 import needs the optional extra 'qiskit' (pip install sampan[qiskit]), "
                          "which installs the parser openqasm3") from e
    try:
        program = openqasm3.parse(text)
    except Exception as e:  # the parser's own error types; re-raised as the documented ValueError
        raise ValueError(f"OpenQASM 3: cannot parse: {e}") from e
    try:
        return _Reader(cls, program, values).read()
    except _Error as e:
        raise ValueError(str(e)) from None


# ---- export ---------------------------------------------------------------------------------------
def _identifiers(names):
    out = []
    for i, name in enumerate(names):
        ok = re.fullmatch(r"[^\W\d]\w*", name) and name not in _RESERVED and name not in out
        out.append(name if ok else f"theta_{i}")
    return out


def _expression(a, names):
    if a.index is None:
        return repr(float(a.shift))
    e = names[a.index]
    if a.scale != 1.0:
        e = f"{a.scale!r}*{e}"
    return e if a.shift == 0.0 else f"{e} + {a.shift!r}" if a.shift > 0 else f"{e} - {-a.shift!r}"


def write(circuit):
    """OpenQASM 3 text of `circuit` (see the module docstring); ValueError naming a gate without a form."""
    names = _identifiers(circuit.parameter_names)
    body, used = [], set()
    for k, (name, qubits, angles) in enumerate(bridge_gates.exported(circuit)):
        if name is None:
            raise ValueError(f"to_qasm3: gate {k} is a matrix gate that is not in the shared subset "
                             "(sx, sxdg, ch); OpenQASM 3 has no form for it")
        if name == "u":
            name = "U"
        used.add(name)
        args = "(" + ", ".join(_expression(a, names) for a in angles) + ")" if angles else ""
        body.append(f"{name}{args} " + ", ".join(f"q[{q}]" for q in qubits) + ";")
    lines = ["OPENQASM 3.0;", 'include "stdgates.inc";']
    lines += [f"input float[64] {n};" for n in names]
    lines += [d for g, d in _DEFINITIONS.items() if g in used]
    lines.append(f"qubit[{circuit.n_qubits}] q;")
    return "\n".join(lines + body) + "\n"
