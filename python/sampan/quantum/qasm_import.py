"""OpenQASM 2.0 import: statements to ``Circuit`` calls (syntax in qasm_syntax.py, gates in
qasm_gates.py; conventions in qasm.py's docstring)."""
import math

import numpy as np

from .qasm_gates import EXTENSIONS, PAPER_QELIB1, QELIB1
from .qasm_gates import identity as _IDENTITY
from .qasm_syntax import Parser, QasmError, error_at

_MAX_QUBITS = 60


class _Definition:
    """A user `gate`: parameter names, qubit argument names, body [(callee, [expr], [arg index], tok)]."""

    def __init__(self, name, params, args, body):
        self.name, self.params, self.args, self.body = name, params, args, body


class Importer(Parser):
    def __init__(self, text):
        super().__init__(text)
        self.qregs = {}        # name -> (offset, size)
        self.cregs = {}        # name -> (offset, size)
        self.creg_order = []
        self.n_qubits = 0
        self.n_clbits = 0
        self.definitions = {}  # user gates
        self.included = False
        self.ops = []          # ("gate", name, angles, qubits, tok) | ("measure", q, clbit, tok) | ("reset", q, tok)

    # ---- lookup ---------------------------------------------------------------------------------
    def arity(self, name):
        """(n_params, n_qubits) of a gate callable here, or None."""
        if name in self.definitions:
            d = self.definitions[name]
            return len(d.params), len(d.args)
        for table in (QELIB1, EXTENSIONS):
            if name in table:
                return table[name][0], table[name][1]
        return None

    # ---- program --------------------------------------------------------------------------------
    def program(self):
        tok = self.peek()
        if tok is None or tok.text != "OPENQASM":
            self.error("expected 'OPENQASM 2.0;' first")
        self.next("OPENQASM")
        ver = self.next("a version")
        if ver.text not in ("2.0", "2"):
            self.error(f"only OpenQASM 2.0 is supported, got version {ver.text!r}", ver)
        self.expect(";")
        while self.peek() is not None:
            self.statement()
        if self.n_qubits == 0:
            raise QasmError("from_qasm: no qreg declared")

    def statement(self):
        tok = self.next("a statement")
        word = tok.text
        if tok.kind != "id":
            self.error(f"expected a statement, got {word!r}", tok)
        if word == "include":
            s = self.next("a file name")
            if s.kind != "str":
                self.error(f"expected a quoted file name after include, got {s.text!r}", s)
            if s.text != '"qelib1.inc"':
                self.error(f"cannot include {s.text}: only \"qelib1.inc\" is built in (paste other files' "
                           "gate definitions into the program)", s)
            self.expect(";")
            self.included = True
        elif word in ("qreg", "creg"):
            self.register(word)
        elif word == "gate":
            self.definition()
        elif word == "opaque":
            name = self.identifier("a gate name")
            self.error(f"opaque gate {name.text!r} has no definition, so it cannot be simulated "
                       "(give it a 'gate' body instead)", tok)
        elif word == "barrier":
            self.arguments(tok)  # checked, then ignored: a barrier does not change the state
            self.expect(";")
        elif word == "measure":
            self.measure(tok)
        elif word == "reset":
            for (q,) in self.broadcast(tok, [self.argument()]):
                self.ops.append(("reset", q, tok))
            self.expect(";")
        elif word == "if":
            self.error("classically controlled operations ('if (creg == n) ...') are not supported", tok)
        elif self.arity(word) is not None:
            self.call(tok)
        else:
            self.error(f"unknown gate or statement {word!r}", tok)

    def register(self, word):
        name = self.identifier("a register name")
        if not ("a" <= name.text[0] <= "z"):
            self.error(f"a register name starts with a lowercase letter, got {name.text!r}", name)
        self.expect("[")
        size, size_tok = self.integer()
        self.expect("]")
        self.expect(";")
        if name.text in self.qregs or name.text in self.cregs:
            self.error(f"register {name.text!r} is declared twice", name)
        if size < 1:
            self.error(f"{word} {name.text!r} must have at least one bit", size_tok)
        if word == "qreg":
            if self.n_qubits + size > _MAX_QUBITS:
                self.error(f"qreg {name.text!r} brings the circuit to {self.n_qubits + size} qubits "
                           f"(at most {_MAX_QUBITS})", name)
            self.qregs[name.text] = (self.n_qubits, size)
            self.n_qubits += size
        else:
            self.cregs[name.text] = (self.n_clbits, size)
            self.creg_order.append((name.text, size))
            self.n_clbits += size

    # ---- arguments ------------------------------------------------------------------------------
    def argument(self, classical=False):
        """reg or reg[i]: (list of bit indices, name token, whether it is a whole register)."""
        regs = self.cregs if classical else self.qregs
        kind = "classical" if classical else "quantum"
        name = self.next(f"a {kind} register")
        if name.kind != "id" or name.text not in regs:
            self.error(f"unknown {kind} register {name.text!r} (declared: {sorted(regs)})", name)
        off, size = regs[name.text]
        if not self.at("["):
            return list(range(off, off + size)), name, True
        self.expect("[")
        i, idx_tok = self.integer()
        self.expect("]")
        if i >= size:
            self.error(f"{'bit' if classical else 'qubit'} {name.text}[{i}] is out of range: {name.text} has "
                       f"{size}", idx_tok)
        return [off + i], name, False

    def arguments(self, tok):
        args = [self.argument()]
        while self.at(","):
            self.expect(",")
            args.append(self.argument())
        return args

    def broadcast(self, tok, args):
        """OpenQASM's register broadcasting: whole registers (all of one size n) give n instances,
        single qubits are repeated in each. [(qubits of instance 0), (qubits of instance 1), ...]."""
        sizes = {len(bits) for bits, _, whole in args if whole}
        if len(sizes) > 1:
            self.error(f"registers of different sizes {sorted(sizes)} in one statement", tok)
        n = sizes.pop() if sizes else 1
        return [tuple(bits[k] if whole else bits[0] for bits, _, whole in args) for k in range(n)]

    def measure(self, tok):
        q = self.argument()
        self.expect("->")
        c = self.argument(classical=True)
        self.expect(";")
        if q[2] != c[2] or len(q[0]) != len(c[0]):
            self.error(f"measure: {len(q[0])} qubit(s) into {len(c[0])} bit(s) (a register into a register "
                       "of the same size, or a qubit into a bit)", tok)
        for qb, cb in zip(q[0], c[0]):
            self.ops.append(("measure", qb, cb, tok))

    # ---- gate calls -----------------------------------------------------------------------------
    def call(self, tok):
        n_params, n_qubits = self.arity(tok.text)
        exprs = self.expression_list(())
        angles = [f({}) for f, _ in exprs]
        args = self.arguments(tok)
        self.expect(";")
        self.check_call(tok, n_params, n_qubits, angles, len(args))
        for qubits in self.broadcast(tok, args):
            if len(set(qubits)) != len(qubits):
                self.error(f"gate {tok.text!r} repeats a qubit", tok)
            self.apply(tok.text, angles, list(qubits), tok)

    def check_call(self, tok, n_params, n_qubits, angles, n_args):
        for a in angles:
            if not math.isfinite(a):
                self.error(f"gate {tok.text!r}: angle {a} is not finite", tok)
        if len(angles) != n_params:
            self.error(f"gate {tok.text!r} takes {n_params} parameter(s), got {len(angles)}", tok)
        if n_args != n_qubits:
            self.error(f"gate {tok.text!r} acts on {n_qubits} qubit(s), got {n_args}", tok)

    def apply(self, name, angles, qubits, tok, definition=None):
        """Expands user gates (substituting parameters and qubits) down to built-in ones."""
        d = definition or self.definitions.get(name)
        if d is None:
            self.ops.append(("gate", name, angles, qubits, tok))
            return
        env = dict(zip(d.params, angles))
        try:
            for callee, exprs, arg_index, ctok in d.body:
                values = [f(env) for f in exprs]
                for v in values:
                    if not math.isfinite(v):
                        raise error_at(ctok, f"gate {callee!r}: angle {v} is not finite")
                self.apply(callee, values, [qubits[i] for i in arg_index], ctok)
        except QasmError as e:
            raise QasmError(f"{e} (in gate {name!r} used at line {tok.line}, column {tok.col})") from None

    # ---- gate definitions -----------------------------------------------------------------------
    def definition(self):
        name = self.identifier("a gate name")
        if name.text in ("U", "CX") or (self.included and name.text in PAPER_QELIB1):
            self.error(f"gate {name.text!r} is already defined by {'the language' if name.text in ('U', 'CX') else 'qelib1.inc'}", name)
        if name.text in self.definitions:
            self.error(f"gate {name.text!r} is defined twice", name)
        params = []
        if self.at("("):
            self.expect("(")
            if not self.at(")"):
                params = self.id_list("a parameter name")
            self.expect(")")
        args = self.id_list("a qubit argument name")
        self.expect("{")
        body = []
        while not self.at("}"):
            tok = self.identifier("a gate call or '}'")
            if tok.text == "barrier":
                self.body_args(args)
                self.expect(";")
                continue
            if tok.text in ("measure", "reset", "if", "gate", "opaque", "qreg", "creg"):
                self.error(f"{tok.text!r} cannot appear in a gate body (only gate calls and barrier)", tok)
            if tok.text == name.text:
                self.error(f"gate {name.text!r} calls itself (a gate can only use gates defined before it)", tok)
            ar = self.arity(tok.text)
            if ar is None:
                self.error(f"unknown gate {tok.text!r} in the body of {name.text!r} (gates must be defined "
                           "before use)", tok)
            exprs = [f for f, _ in self.expression_list(params)]
            arg_index = self.body_args(args)
            self.expect(";")
            if len(exprs) != ar[0]:
                self.error(f"gate {tok.text!r} takes {ar[0]} parameter(s), got {len(exprs)}", tok)
            if len(arg_index) != ar[1]:
                self.error(f"gate {tok.text!r} acts on {ar[1]} qubit(s), got {len(arg_index)}", tok)
            if len(set(arg_index)) != len(arg_index):
                self.error(f"gate {tok.text!r} repeats a qubit", tok)
            body.append((tok.text, exprs, arg_index, tok))
        self.expect("}")
        d = _Definition(name.text, params, args, body)
        builtin = QELIB1.get(name.text) or EXTENSIONS.get(name.text)
        if builtin is not None and builtin[:2] == (len(params), len(args)) and self.same_as_builtin(d, name):
            return  # e.g. the `gate swap a,b {...}` of a portable export: the native gate is exact
        self.definitions[name.text] = d

    def same_as_builtin(self, d, tok):
        """Whether the definition of a built-in name (one qelib1.inc gained after the paper, so a
        program may define it) has the built-in gate's matrix, global phase included, at two
        random sets of parameters (equal analytic functions agree there; different ones almost
        surely do not)."""
        from .circuit import Circuit
        from .matrices import circuit_unitary
        rng = np.random.default_rng(len(d.body))
        k = len(d.args)
        if k > 6:
            return False
        saved, self.ops = self.ops, []
        try:
            for _ in range(2):
                angles = [float(a) for a in rng.uniform(-3, 3, len(d.params))]
                self.ops = []
                self.apply(d.name, angles, list(range(k)), tok, definition=d)
                mine = circuit_unitary(build(self, Circuit, n_qubits=k)).numpy()
                self.ops = [("gate", d.name, angles, list(range(k)), tok)]
                ref = circuit_unitary(build(self, Circuit, n_qubits=k)).numpy()
                if not np.abs(mine - ref).max() <= 1e-10:
                    return False
        except QasmError:
            return False
        finally:
            self.ops = saved
        return True

    def id_list(self, what):
        toks = [self.identifier(what)]
        while self.at(","):
            self.expect(",")
            toks.append(self.identifier(what))
        names = [t.text for t in toks]
        for k, t in enumerate(toks):
            if t.text in names[:k]:
                self.error(f"{t.text!r} is listed twice", t)
        return names

    def body_args(self, args):
        out = []
        while True:
            t = self.identifier("a qubit argument")
            if t.text not in args:
                self.error(f"{t.text!r} is not a qubit argument of this gate ({', '.join(args)}); a gate body "
                           "names its arguments, not register bits", t)
            out.append(args.index(t.text))
            if not self.at(","):
                return out
            self.expect(",")


def build(importer, circuit_class, n_qubits=None):
    """The Circuit of a parsed program: gates, registers, measurements, resets."""
    c = circuit_class(importer.n_qubits if n_qubits is None else n_qubits)
    for name, size in importer.creg_order if n_qubits is None else ():
        c.creg(name, size)
    touched = set()
    for op in importer.ops:
        tok = op[-1]
        try:
            if op[0] == "gate":
                _, name, angles, qubits, _ = op
                table = QELIB1 if name in QELIB1 else EXTENSIONS
                if table[name][2] is not _IDENTITY:
                    c._before_gate(qubits)  # measured qubits: the measurement channel before the whole gate
                table[name][2](c, angles, qubits)
                touched.update(qubits)
            elif op[0] == "measure":
                c.measure_to([op[1]], [op[2]])
                touched.add(op[1])
            elif op[1] in touched:  # reset of a qubit that may not be |0>: the reset channel
                c._before_gate([op[1]])
                c.reset_channel((1.0, 0.0), [op[1]])
            # else: reset of a qubit still in |0> (nothing acted on it yet) changes nothing
        except (ValueError, IndexError, TypeError) as e:
            raise error_at(tok, str(e)) from None
    return c
