"""Issue 4 'Errors' audit for sampan.quantum: qubit index out of range or repeated, non-unitary
matrices, parameters of the wrong shape or type, malformed OpenQASM (line and column). Each must
raise a typed error that names what was expected and what was found; nothing may crash or pass
silently. The C++ side of the same audit is tests/cpp/quantum/circuit_builder_test.cpp and
expectation_test.cpp (Errors)."""
import math
import random

import numpy as np
import pytest

import sampan as sp
from sampan.quantum import Circuit, Hamiltonian


# ---- qubit indices --------------------------------------------------------------------------------
@pytest.mark.parametrize("build,kind,text", [
    (lambda c: c.h(3), IndexError, "qubit 3 is out of range for 3 qubits (valid: 0 to 2)"),
    (lambda c: c.x(-1), IndexError, "qubit -1 is out of range"),
    (lambda c: c.ry(0.1, [0, 5]), IndexError, "Circuit.ry: qubit 5"),
    (lambda c: c.cnot(0, 3), IndexError, "Circuit.cnot: qubit 3"),
    (lambda c: c.rzz(0.1, [(0, 1), (2, 7)]), IndexError, "qubit 7"),
    (lambda c: c.ccx(0, 1, 9), IndexError, "Circuit.ccx: qubit 9"),
    (lambda c: c.cu(0.1, 0.2, 0.3, 0, 4), IndexError, "Circuit.cu: qubit 4"),
    (lambda c: c.unitary(np.eye(2), [3]), IndexError, "qubit 3"),
    (lambda c: c.qaoa_layer([(0, 3)]), IndexError, "qubit 3"),
    (lambda c: c.cnot(1, 1), ValueError, "qubits [1, 1] repeat a qubit"),
    (lambda c: c.ccx(0, 1, 0), ValueError, "repeat a qubit"),
    (lambda c: c.cswap(2, 0, 2), ValueError, "repeat a qubit"),
    (lambda c: c.rxx(0.3, 2, 2), ValueError, "repeat a qubit"),
    (lambda c: c.universal_two_qubit(None, 1, 1), ValueError, "repeat a qubit"),
    (lambda c: c.controlled_unitary(np.eye(2), [0], [0]), ValueError, "repeat a qubit"),
    (lambda c: c.unitary(np.eye(4), [1, 1]), ValueError, "repeat a qubit"),
    (lambda c: c.h(1.5), TypeError, "qubits are an int, a list of ints or 'full', got 1.5"),
    (lambda c: c.h([0, 1.5]), TypeError, "a qubit index must be an integer, got 1.5"),
    (lambda c: c.h([0, "1"]), TypeError, "got '1'"),
    (lambda c: c.h({0}), TypeError, "qubits are an int, a list of ints or 'full'"),
    (lambda c: c.cnot(0.0, 1), TypeError, "integer"),
    (lambda c: c.h("cycle"), ValueError, "selector 'cycle'"),
    (lambda c: c.cnot("ring"), ValueError, "selector 'ring'"),
    (lambda c: c.cnot([0, 1]), ValueError, "expected two qubits"),
])
def test_qubit_errors(build, kind, text):
    c = Circuit(3)
    with pytest.raises(kind) as info:
        build(c)
    assert text in str(info.value), str(info.value)
    assert len(c) == 0  # a rejected call adds no gate (every selected qubit is checked first)


def test_hamiltonian_and_op_level_qubit_errors():
    with pytest.raises(IndexError, match="acts on qubit 3 but the circuit has 2 qubits"):
        Circuit(2).h(0).expectation(Hamiltonian([(1.0, "Z3")]))
    with pytest.raises(ValueError, match="qubit 1 appears twice"):
        Hamiltonian([(1.0, "Z1 X1")])
    with pytest.raises(ValueError, match="not finite"):
        Hamiltonian([(float("nan"), "Z0")])
    # Raw encodings reach the C++ checks, which raise the same types.
    with pytest.raises(IndexError, match="qubit 5 is out of range for 2 qubits"):
        sp.ops.quantum.statevector(sp.zeros(0, dtype=sp.float64), [0, 5], [], 2)
    with pytest.raises(ValueError, match="gate 1 .*CNOT.*repeat|gate 1 .*CNOT"):
        sp.ops.quantum.statevector(sp.zeros(0, dtype=sp.float64), [0, 0, 13, 1, 1], [], 2)


# ---- matrices -------------------------------------------------------------------------------------
def test_non_unitary_and_malformed_matrices():
    c = Circuit(2)
    with pytest.raises(ValueError, match=r"not unitary: max \|U\^\+ U - I\| = 3"):
        c.unitary([[1, 0], [0, 2]], [0])
    with pytest.raises(ValueError, match="not unitary"):
        c.controlled_unitary(np.eye(2) * 1.001, [1], [0])
    with pytest.raises(ValueError, match="non-finite"):
        c.unitary([[np.nan, 0], [0, 1]], [0])
    with pytest.raises(ValueError, match="must be 4x4, got shape \\(2, 2\\)"):
        c.unitary(np.eye(2), [0, 1])
    with pytest.raises(ValueError, match="1 to 10 target qubits, got 0"):
        c.unitary(np.eye(1), [])
    assert len(c) == 0
    # The C++ decoder checks matrices in raw encodings too, including NaN (which defeats a plain
    # max/compare: the deviation is reported as inf).
    UNITARY = 28
    nan_matrix = [float("nan"), 0, 0, 0, 0, 0, 1, 0]
    with pytest.raises(ValueError, match="not unitary: max .* = inf"):
        sp.ops.quantum.statevector(sp.zeros(0, dtype=sp.float64), [UNITARY, 0, 1, 0, 0], nan_matrix, 1)
    with pytest.raises(ValueError, match="not unitary"):
        sp.ops.quantum.statevector(sp.zeros(0, dtype=sp.float64), [UNITARY, 0, 1, 0, 0], [2, 0, 0, 0, 0, 0, 1, 0], 1)


# ---- parameters -----------------------------------------------------------------------------------
def test_parameter_shape_type_and_value_errors():
    c = Circuit(2)
    with pytest.raises(ValueError, match="the angle tensor has 3 elements but the gate is applied to 2"):
        c.rx(sp.tensor([0.1, 0.2, 0.3]), "full")
    with pytest.raises(ValueError, match="has 2 elements"):
        c.u3(sp.tensor([0.1, 0.2]), 0.0, 0.0, 0)
    with pytest.raises(ValueError, match="expected 15 angles, got 14"):
        c.universal_two_qubit(np.zeros(14), 0, 1)
    with pytest.raises(ValueError, match="angle tensor has 3 elements \\(expected 4\\)"):
        c.real_entangled_layer(depth=2, theta=sp.zeros(3, dtype=sp.float64))
    with pytest.raises(ValueError, match="expected 2 angles, got 1"):
        c.qaoa_layer([(0, 1)], depth=2, gamma=[0.1], beta=[0.1, 0.2])
    with pytest.raises(TypeError, match="an angle is None, a number or an sp Tensor, got str"):
        c.ry("0.1", 0)
    with pytest.raises(TypeError, match="got complex"):
        c.ry(1j, 0)
    with pytest.raises(TypeError, match="must be real"):
        c.ry(sp.tensor(np.array([0.1 + 0.2j])), 0)
    with pytest.raises(ValueError, match="the angle nan is not finite"):
        c.rz(float("nan"), 0)
    with pytest.raises(ValueError, match="not finite"):
        c.p(math.inf, 1)
    assert len(c) == 0
    # At the op: params of the wrong rank, dtype or length.
    RY = 10
    with pytest.raises(ValueError, match="params must be 1-D \\[P\\], got shape \\[1, 1\\]"):
        sp.ops.quantum.statevector(sp.zeros((1, 1), dtype=sp.float64), [RY, 0, 0], [], 1)
    with pytest.raises(TypeError, match="params must be float64, got float32"):
        sp.ops.quantum.statevector(sp.zeros(1, dtype=sp.float32), [RY, 0, 0], [], 1)
    with pytest.raises(IndexError, match="reads params\\[3\\] but params has 1 entries"):
        sp.ops.quantum.statevector(sp.zeros(1, dtype=sp.float64), [RY, 0, 3], [], 1)
    with pytest.raises(ValueError, match="constants\\[0\\] = nan is not finite"):
        sp.ops.quantum.statevector(sp.zeros(0, dtype=sp.float64), [RY, 0, -1], [float("nan")], 1)
    with pytest.raises(ValueError, match="needs 3 circuit entries but only 2 remain"):
        sp.ops.quantum.statevector(sp.zeros(1, dtype=sp.float64), [RY, 0], [], 1)


# ---- OpenQASM -------------------------------------------------------------------------------------
@pytest.mark.parametrize("body,where,what", [
    ("rx(10^400) q[0];", "line 3, column 6", "is not a finite real number"),
    ("rx(exp(1000)) q[0];", "line 3, column 4", "overflows a double"),
    ("rx(1e999) q[0];", "line 3, column 1", "angle inf is not finite"),
    ("rx((-8)^(1/3)) q[0];", "line 3, column 8", "is not a real number"),
    ("rx(0^-1) q[0];", "line 3, column 5", "not a finite real number"),
    ("rx(1/0) q[0];", "line 3, column 5", "division by zero"),
    ("rx(ln(0)) q[0];", "line 3, column 4", "ln(0) is undefined"),
    ("h q[0.5];", "line 3, column 5", "expected an integer, got '0.5'"),
    ("h q[-1];", "line 3, column 5", "expected an integer"),
    ("qreg r[3];\ncx q, r;", "line 4, column 1", "registers of different sizes"),
    ("rx(1,) q[0];", "line 3, column 6", "expected a number"),
    ("qreg r[59];", "line 3, column 6", "61 qubits (at most 60)"),
    ("qreg q[1];", "line 3, column 6", "declared twice"),
    ("creg c[x];", "line 3, column 8", "expected an integer"),
    ("\n\n  cx q[0],;", "line 5, column 11", "unknown quantum register"),
    ("opaque foo a;", "line 3, column 1", "opaque gate 'foo' has no definition"),
])
def test_more_malformed_qasm(body, where, what):
    with pytest.raises(ValueError) as info:
        Circuit.from_qasm("OPENQASM 2.0;\nqreg q[2];\n" + body)
    msg = str(info.value)
    assert where in msg and what in msg, msg


def test_qasm_fuzz_only_raises_value_errors_with_a_position():
    """Seeded random edits (deletions, insertions, replacements, truncation) of a valid program:
    every failure must be a ValueError naming a line and column, never another exception."""
    src = ('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg a[2];\nqreg b[2];\ncreg c[2];\nh a[0];\n'
           'cx a[0], b[1];\nu3(pi/2, 0, pi) a[1];\nu2(-0.5, 0.1) b[0];\nbarrier a[0], b[0];\n'
           'cu3(0.3, 0.2, -(0.1 + 0.2)) b[1], b[0];\nrz(sqrt(2)/2) b[1];\nrx(2^3*ln(2)) a[0];\n'
           'ccx a[0], b[0], b[1];\n')
    rng = random.Random(7)
    alphabet = list(";,()[]{}+-*/^ \n\"abqxyz0123456789.pie_")
    parsed = failed = 0
    for _ in range(1500):
        s = list(src)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(s))
            r = rng.random()
            if r < 0.4:
                del s[i]
            elif r < 0.7:
                s.insert(i, rng.choice(alphabet))
            else:
                s[i] = rng.choice(alphabet)
        if rng.random() < 0.2:
            s = s[:rng.randrange(len(s))]
        text = "".join(s)
        try:
            Circuit.from_qasm(text)
            parsed += 1
        except ValueError as e:
            failed += 1
            assert "line" in str(e) and "column" in str(e) or "no qreg" in str(e), (str(e), text)
    assert parsed > 50 and failed > 500  # both outcomes were exercised
