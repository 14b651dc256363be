"""OpenQASM 2.0 syntax: tokens, parameter expressions and statements (no simulation here).

The grammar is the one of Cross, Bishop, Smolin and Gambetta, "Open Quantum Assembly Language",
arXiv:1707.03429, appendix (OpenQASM 2.0). ``parse(text)`` returns the header-checked list of
statements; every statement and every sub-expression keeps the 1-based (line, column) of its
first token so that errors found later (while expanding a gate definition, say) can still name
it. Every error is a ``QasmError`` (a ``ValueError``) whose message starts with
``from_qasm: line L, column C:``.
"""
import math
import re


class QasmError(ValueError):
    """Malformed or unsupported OpenQASM 2.0 input; the message names the line and column."""


def error_at(tok, msg):
    return QasmError(f"from_qasm: line {tok.line}, column {tok.col}: {msg}")


class Token:
    __slots__ = ("kind", "text", "line", "col")

    def __init__(self, kind, text, line, col):
        self.kind, self.text, self.line, self.col = kind, text, line, col

    def __repr__(self):
        return f"Token({self.kind}, {self.text!r}, {self.line}:{self.col})"


_TOKEN = re.compile(r"(?P<ws>\s+)|(?P<comment>//[^\n]*)|(?P<num>(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?)"
                    r"|(?P<id>[A-Za-z_][A-Za-z0-9_]*)|(?P<str>\"[^\"\n]*\")|(?P<sym>->|==|[;,()\[\]{}+\-*/^])"
                    r"|(?P<bad>.)", re.S)


def tokenize(text):
    """[Token] with 1-based line and column; comments and white space dropped."""
    out, line, line_start = [], 1, 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "ws":
            chunk = m.group()
            newlines = chunk.count("\n")
            if newlines:
                line += newlines
                line_start = m.start() + chunk.rindex("\n") + 1
        elif kind == "bad":
            raise QasmError(f"from_qasm: line {line}, column {m.start() - line_start + 1}: unexpected character "
                            f"{m.group()!r}")
        elif kind != "comment":
            out.append(Token(kind, m.group(kind), line, m.start() - line_start + 1))
    return out


# ---- parameter expressions ------------------------------------------------------------------------
# An expression compiles to a function env -> float (env maps the parameter names of the gate
# definition being expanded to numbers; {} at the top level). Numerical failures are reported at
# the operator or function token that produced them.
_FUNCS = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp, "ln": math.log, "sqrt": math.sqrt}


def _binary(op, lhs, rhs):
    def f(env):
        a, b = lhs(env), rhs(env)
        if op.text == "+":
            return a + b
        if op.text == "-":
            return a - b
        if op.text == "*":
            return a * b
        if op.text == "/":
            if b == 0:
                raise error_at(op, "division by zero")
            return a / b
        try:  # '^'
            v = a ** b
        except (OverflowError, ZeroDivisionError):
            raise error_at(op, f"{a!r}^{b!r} is not a finite real number") from None
        if isinstance(v, complex):  # a negative base to a fractional power
            raise error_at(op, f"{a!r}^{b!r} is not a real number")
        return v
    return f


def _function(tok, arg):
    fn = _FUNCS[tok.text]

    def f(env):
        v = arg(env)
        try:
            return fn(v)
        except ValueError:
            raise error_at(tok, f"{tok.text}({v}) is undefined") from None
        except OverflowError:
            raise error_at(tok, f"{tok.text}({v}) overflows a double") from None
    return f


class Parser:
    def __init__(self, text):
        self.toks = tokenize(text)
        self.i = 0
        lines = text.split("\n")
        self.end = Token("end", "", len(lines), len(lines[-1]) + 1)

    def error(self, msg, tok=None):
        raise error_at(tok if tok is not None else (self.peek() or self.end), msg)

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def at(self, text):
        tok = self.peek()
        return tok is not None and tok.text == text and tok.kind in ("sym", "id")

    def next(self, what):
        tok = self.peek()
        if tok is None:
            self.error(f"expected {what}, got the end of the text")
        self.i += 1
        return tok

    def expect(self, value):
        tok = self.next(repr(value))
        if tok.text != value:
            self.error(f"expected {value!r}, got {tok.text!r}", tok)
        return tok

    def identifier(self, what):
        tok = self.next(what)
        if tok.kind != "id":
            self.error(f"expected {what}, got {tok.text!r}", tok)
        return tok

    def integer(self):
        tok = self.next("an integer")
        if tok.kind != "num" or not tok.text.isdigit():
            self.error(f"expected an integer, got {tok.text!r}", tok)
        return int(tok.text), tok

    # expression := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*;
    # factor := ('-'|'+') factor | atom ('^' factor)?   (so -a^b = -(a^b), a^b^c = a^(b^c))
    def expr(self, names):
        v = self.term(names)
        while self.peek() is not None and self.peek().kind == "sym" and self.peek().text in ("+", "-"):
            op = self.next("an operator")
            v = _binary(op, v, self.term(names))
        return v

    def term(self, names):
        v = self.factor(names)
        while self.peek() is not None and self.peek().kind == "sym" and self.peek().text in ("*", "/"):
            op = self.next("an operator")
            v = _binary(op, v, self.factor(names))
        return v

    def factor(self, names):
        tok = self.peek()
        if tok is not None and tok.kind == "sym" and tok.text in ("+", "-"):
            self.i += 1
            inner = self.factor(names)
            return (lambda env: -inner(env)) if tok.text == "-" else inner
        v = self.atom(names)
        if self.at("^"):
            op = self.next("'^'")
            v = _binary(op, v, self.factor(names))
        return v

    def atom(self, names):
        tok = self.next("a number, 'pi', a parameter or '('")
        if tok.kind == "num":
            value = float(tok.text)
            return lambda env: value
        if tok.kind == "id":
            if tok.text == "pi":
                return lambda env: math.pi
            if tok.text in _FUNCS and self.at("("):
                self.expect("(")
                arg = self.expr(names)
                self.expect(")")
                return _function(tok, arg)
            if tok.text in names:
                name = tok.text
                return lambda env: env[name]
            where = f" (parameters of this gate: {', '.join(names)})" if names else ""
            self.error(f"unknown parameter {tok.text!r} in an expression{where}", tok)
        if tok.text == "(":
            v = self.expr(names)
            self.expect(")")
            return v
        self.error(f"expected a number, 'pi', a parameter or '(' in an expression, got {tok.text!r}", tok)

    def expression_list(self, names):
        """'(' expr (',' expr)* ')' or '()' or nothing: [(function, first token)]."""
        out = []
        if not self.at("("):
            return out
        self.expect("(")
        if not self.at(")"):
            while True:
                first = self.peek() or self.end
                out.append((self.expr(names), first))
                if not self.at(","):
                    break
                self.expect(",")
        self.expect(")")
        return out
