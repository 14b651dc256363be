"""OpenQASM 2.0 export and import for ``Circuit`` (gate names of qelib1.inc as Qiskit ships it).

Qubit q of a circuit is ``q[q]`` in QASM: Qiskit also makes qubit 0 the least significant bit, so
states agree without reordering. Export writes every angle as its current number (parameters are
not symbolic in OpenQASM 2.0). Import reads one or more ``qreg`` (concatenated in order), ignores
``creg``, ``barrier`` and ``id``, evaluates angle expressions (numbers, ``pi``, + - * / ^,
parentheses, sin cos tan exp ln sqrt), and raises ``ValueError`` with the line and column for
anything it cannot read.
"""
import math
import re

# sampan name -> (QASM name, how the angles map). Gates absent here are written by _export_special.
_EXPORT = {"h": "h", "x": "x", "y": "y", "z": "z", "s": "s", "sdg": "sdg", "t": "t", "tdg": "tdg",
           "p": "u1", "rx": "rx", "ry": "ry", "rz": "rz", "u3": "u3", "cnot": "cx", "cy": "cy",
           "cz": "cz", "swap": "swap", "cp": "cu1", "crx": "crx", "cry": "cry", "crz": "crz",
           "rxx": "rxx", "rzz": "rzz", "ccx": "ccx", "cu": "cu3", "cswap": "cswap"}

# QASM name -> (sampan method, n_qubits, n_params). u2 and the aliases are rewritten on import.
_IMPORT = {"h": ("h", 1, 0), "x": ("x", 1, 0), "y": ("y", 1, 0), "z": ("z", 1, 0), "s": ("s", 1, 0),
           "sdg": ("sdg", 1, 0), "t": ("t", 1, 0), "tdg": ("tdg", 1, 0), "u1": ("p", 1, 1),
           "p": ("p", 1, 1), "rx": ("rx", 1, 1), "ry": ("ry", 1, 1), "rz": ("rz", 1, 1),
           "u3": ("u3", 1, 3), "u": ("u3", 1, 3), "U": ("u3", 1, 3), "u2": ("u2", 1, 2),
           "cx": ("cnot", 2, 0), "CX": ("cnot", 2, 0), "cy": ("cy", 2, 0), "cz": ("cz", 2, 0),
           "swap": ("swap", 2, 0), "cu1": ("cp", 2, 1), "cp": ("cp", 2, 1), "crx": ("crx", 2, 1),
           "cry": ("cry", 2, 1), "crz": ("crz", 2, 1), "rxx": ("rxx", 2, 1), "ryy": ("ryy", 2, 1),
           "rzz": ("rzz", 2, 1), "ccx": ("ccx", 3, 0), "cu3": ("cu", 2, 3), "cswap": ("cswap", 3, 0),
           "id": ("id", 1, 0)}


def _num(v):
    return repr(float(v))


def to_qasm(circuit):
    """The circuit as OpenQASM 2.0 text (angles as numbers, current parameter values)."""
    values = circuit._angle_values()
    lines = ["OPENQASM 2.0;", 'include "qelib1.inc";', f"qreg q[{circuit.n_qubits}];"]
    for k, (name, qubits, refs) in enumerate(circuit._gates):
        qs = ",".join(f"q[{q}]" for q in qubits)
        angles = [values(r) for r in refs] if name != "unitary" else []
        if name in _EXPORT:
            args = f"({','.join(_num(a) for a in angles)})" if angles else ""
            lines.append(f"{_EXPORT[name]}{args} {qs};")
        elif name == "ms":  # exp(+i pi/4 XX) = RXX(-pi/2)
            lines.append(f"rxx({_num(-math.pi / 2)}) {qs};")
        elif name == "ryy":  # RYY = (RX(-pi/2) x RX(-pi/2)) RZZ (RX(pi/2) x RX(pi/2)): RX maps Y to Z
            a, b = (f"q[{q}]" for q in qubits)
            h = _num(math.pi / 2)
            lines += [f"rx({h}) {a};", f"rx({h}) {b};", f"rzz({_num(angles[0])}) {a},{b};",
                      f"rx(-{h}) {a};", f"rx(-{h}) {b};"]
        else:
            raise ValueError(f"Circuit.to_qasm: gate {k} ({name}) has no OpenQASM 2.0 equivalent in "
                             "qelib1.inc (matrix gates are not exported)")
    return "\n".join(lines) + "\n"


_TOKEN = re.compile(r"\s+|//[^\n]*|(?P<num>(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?)|(?P<id>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<str>\"[^\"\n]*\")|(?P<sym>->|==|[;,()\[\]{}+\-*/^])")


def _tokens(text):
    """[(kind, value, line, column)] with 1-based line and column; comments and spaces dropped."""
    out, pos, line, line_start = [], 0, 1, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        col = pos - line_start + 1
        if not m:
            raise ValueError(f"from_qasm: line {line}, column {col}: unexpected character {text[pos]!r}")
        kind = m.lastgroup
        if kind:
            out.append((kind, m.group(kind), line, col))
        chunk = m.group(0)
        if "\n" in chunk:
            line += chunk.count("\n")
            line_start = pos + chunk.rindex("\n") + 1
        pos = m.end()
    return out


class _Parser:
    _FUNCS = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp, "ln": math.log,
              "sqrt": math.sqrt}

    def __init__(self, text):
        self.toks = _tokens(text)
        self.i = 0
        lines = text.split("\n")
        self.end = (len(lines), len(lines[-1]) + 1)

    def error(self, msg, tok=None):
        tok = tok if tok is not None else self.peek()
        line, col = (tok[2], tok[3]) if tok else self.end
        raise ValueError(f"from_qasm: line {line}, column {col}: {msg}")

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self, what):
        tok = self.peek()
        if tok is None:
            self.error(f"expected {what}, got the end of the text")
        self.i += 1
        return tok

    def expect(self, value):
        tok = self.next(repr(value))
        if tok[1] != value:
            self.error(f"expected {value!r}, got {tok[1]!r}", tok)
        return tok

    # expression := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*;
    # factor := ('-'|'+') factor | atom ('^' factor)?
    def expr(self):
        v = self.term()
        while self.peek() and self.peek()[1] in "+-" and self.peek()[0] == "sym":
            op = self.next("operator")[1]
            v = v + self.term() if op == "+" else v - self.term()
        return v

    def term(self):
        v = self.factor()
        while self.peek() and self.peek()[0] == "sym" and self.peek()[1] in ("*", "/"):
            op = self.next("operator")
            rhs = self.factor()
            if op[1] == "/" and rhs == 0:
                self.error("division by zero", op)
            v = v * rhs if op[1] == "*" else v / rhs
        return v

    def factor(self):
        tok = self.peek()
        if tok and tok[0] == "sym" and tok[1] in "+-":
            self.i += 1
            return -self.factor() if tok[1] == "-" else self.factor()
        v = self.atom()
        if self.peek() and self.peek()[1] == "^":
            op = self.next("'^'")
            rhs = self.factor()
            base = v
            try:
                v = base ** rhs
            except (OverflowError, ZeroDivisionError):
                self.error(f"{base!r}^{rhs!r} is not a finite real number", op)
            if isinstance(v, complex):  # a negative base to a fractional power
                self.error(f"{base!r}^{rhs!r} is not a real number", op)
        return v

    def atom(self):
        tok = self.next("a number or 'pi'")
        if tok[0] == "num":
            return float(tok[1])
        if tok[0] == "id" and tok[1] == "pi":
            return math.pi
        if tok[0] == "id" and tok[1] in self._FUNCS:
            self.expect("(")
            v = self.expr()
            self.expect(")")
            try:
                return self._FUNCS[tok[1]](v)
            except ValueError:
                self.error(f"{tok[1]}({v}) is undefined", tok)
            except OverflowError:
                self.error(f"{tok[1]}({v}) overflows a double", tok)
        if tok[1] == "(":
            v = self.expr()
            self.expect(")")
            return v
        self.error(f"expected a number, 'pi' or '(' in an angle, got {tok[1]!r}", tok)

    def integer(self):
        tok = self.next("an integer")
        if tok[0] != "num" or not tok[1].isdigit():
            self.error(f"expected an integer, got {tok[1]!r}", tok)
        return int(tok[1])


def from_qasm(text, circuit_class):
    """Parses OpenQASM 2.0 `text` into a new circuit_class instance (see the module docstring)."""
    p = _Parser(text)
    regs = {}      # name -> (offset, size)
    n = 0
    ops = []       # (method, qubits, angles, token)
    tok = p.peek()
    if tok is None or tok[1] != "OPENQASM":
        p.error("expected 'OPENQASM 2.0;' first")
    p.next("OPENQASM")
    ver = p.next("a version")
    if ver[1] not in ("2.0", "2"):
        p.error(f"only OpenQASM 2.0 is supported, got version {ver[1]!r}", ver)
    p.expect(";")
    while p.peek() is not None:
        tok = p.next("a statement")
        word = tok[1]
        if word == "include":
            s = p.next("a file name")
            if s[0] != "str":
                p.error(f"expected a quoted file name after include, got {s[1]!r}", s)
            p.expect(";")
        elif word in ("qreg", "creg"):
            name = p.next("a register name")
            if name[0] != "id":
                p.error(f"expected a register name, got {name[1]!r}", name)
            p.expect("[")
            size = p.integer()
            p.expect("]")
            p.expect(";")
            if word == "qreg":
                if name[1] in regs:
                    p.error(f"qreg {name[1]!r} is declared twice", name)
                if size < 1:
                    p.error(f"qreg {name[1]!r} must have at least one qubit", name)
                if n + size > 60:
                    p.error(f"qreg {name[1]!r} brings the circuit to {n + size} qubits (at most 60)", name)
                regs[name[1]] = (n, size)
                n += size
        elif word == "barrier":
            while p.next("';'")[1] != ";":
                pass
        elif word in ("gate", "opaque", "measure", "reset", "if"):
            p.error(f"'{word}' is not supported (only qreg/creg declarations and qelib1.inc gates)", tok)
        elif tok[0] == "id" and word in _IMPORT:
            method, nq, npar = _IMPORT[word]
            angles = []
            if p.peek() and p.peek()[1] == "(":
                p.next("(")
                if p.peek() and p.peek()[1] != ")":
                    angles.append(p.expr())
                    while p.peek() and p.peek()[1] == ",":
                        p.next(",")
                        angles.append(p.expr())
                p.expect(")")
            for a in angles:
                if not math.isfinite(a):
                    p.error(f"gate '{word}': angle {a} is not finite", tok)
            if len(angles) != npar:
                p.error(f"gate '{word}' takes {npar} parameter(s), got {len(angles)}", tok)
            qubits = [_qubit(p, regs)]
            while p.peek() and p.peek()[1] == ",":
                p.next(",")
                qubits.append(_qubit(p, regs))
            p.expect(";")
            if len(qubits) != nq:
                p.error(f"gate '{word}' acts on {nq} qubit(s), got {len(qubits)}", tok)
            if len(set(qubits)) != nq:
                p.error(f"gate '{word}' repeats a qubit", tok)
            ops.append((method, qubits, angles))
        else:
            p.error(f"unknown gate or statement {word!r}", tok)
    if n == 0:
        raise ValueError("from_qasm: no qreg declared")
    c = circuit_class(n)
    for method, qubits, angles in ops:
        if method == "id":
            continue
        if method == "u2":  # u2(phi, lam) = u3(pi/2, phi, lam)
            c.u3(math.pi / 2, angles[0], angles[1], qubits[0])
        elif method in ("u3", "cu"):
            getattr(c, method)(*angles, *qubits)
        elif angles:
            getattr(c, method)(angles[0], *qubits)
        else:
            getattr(c, method)(*qubits)
    return c


def _qubit(p, regs):
    name = p.next("a qubit like q[0]")
    if name[0] != "id" or name[1] not in regs:
        p.error(f"unknown quantum register {name[1]!r} (declared: {sorted(regs)})", name)
    if not (p.peek() and p.peek()[1] == "["):
        p.error(f"whole-register arguments ({name[1]}) are not supported: index a qubit, e.g. {name[1]}[0]")
    p.next("[")
    idx_tok = p.peek()
    i = p.integer()
    p.expect("]")
    off, size = regs[name[1]]
    if i >= size:
        p.error(f"qubit {name[1]}[{i}] is out of range: {name[1]} has {size} qubits", idx_tok)
    return off + i
