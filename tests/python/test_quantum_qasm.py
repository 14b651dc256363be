"""OpenQASM 2.0 import and export (python/sampan/quantum/qasm*.py) against closed forms written out
here: qelib1.inc gate matrices (u2, u3, cu3, cu, sx, ch, c3x, ... from their definitions in the
OpenQASM 2.0 paper, arXiv:1707.03429, and Qiskit's standard-gate matrices), user gate definitions
against their expansion by hand, classical-register layout and Qiskit's counts key format,
mid-circuit measurement and reset on density matrices, and malformed programs (line and column).
The Qiskit cross-check (random circuits both ways) is bench/quantum/qasm_roundtrip.py."""
import cmath
import math
import os
import re

import numpy as np
import pytest

import sampan as sp
from sampan.quantum import Circuit

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "qasm")
HEAD = 'OPENQASM 2.0;\ninclude "qelib1.inc";\n'


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


# ---- closed forms (qubit q = bit q of the index; a gate's qubits[0] is bit 0 of its matrix) --------
def u3(t, p, l):
    return np.array([[math.cos(t / 2), -cmath.exp(1j * l) * math.sin(t / 2)],
                     [cmath.exp(1j * p) * math.sin(t / 2), cmath.exp(1j * (p + l)) * math.cos(t / 2)]])


def controlled(u, n_controls):
    """|1..1><1..1| (x) u + (rest) (x) I on qubits [controls..., target]: the controls are the low
    bits of the matrix index, the target the high bit."""
    k = n_controls + 1
    m = np.eye(2 ** k, dtype=np.complex128)
    on = 2 ** n_controls - 1  # every control set
    for a in range(2):
        for b in range(2):
            m[on + (a << n_controls), on + (b << n_controls)] = u[a, b]
    return m


X = np.array([[0, 1], [1, 0]], dtype=np.complex128)
H = np.array([[1, 1], [1, -1]], dtype=np.complex128) / math.sqrt(2)
SX = np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]]) / 2


def unitary_of(call, k):
    """The 2^k x 2^k matrix of one QASM gate call on q[0..k-1], column j from the state of |j>."""
    cols = []
    for j in range(2 ** k):
        prep = "".join(f"x q[{b}];\n" for b in range(k) if j >> b & 1)
        cols.append(Circuit.from_qasm(f"{HEAD}qreg q[{k}];\n{prep}{call}\n").state().numpy())
    return np.stack(cols, axis=1)


T1, P1, L1, G1 = 0.7, -1.3, 2.1, 0.4
GATES = [
    ("u3(0.7,-1.3,2.1) q[0];", 1, u3(T1, P1, L1)),
    ("U(0.7,-1.3,2.1) q[0];", 1, u3(T1, P1, L1)),
    ("u(0.7,-1.3,2.1) q[0];", 1, u3(T1, P1, L1)),
    ("u2(-1.3,2.1) q[0];", 1, np.array([[1, -cmath.exp(2.1j)], [cmath.exp(-1.3j), cmath.exp(0.8j)]]) / math.sqrt(2)),
    ("u1(2.1) q[0];", 1, np.diag([1, cmath.exp(2.1j)])),
    ("p(2.1) q[0];", 1, np.diag([1, cmath.exp(2.1j)])),
    ("u0(3) q[0];", 1, np.eye(2)),
    ("id q[0];", 1, np.eye(2)),
    ("rz(2.1) q[0];", 1, np.diag([cmath.exp(-1.05j), cmath.exp(1.05j)])),
    ("sx q[0];", 1, SX),
    ("sxdg q[0];", 1, SX.conj().T),
    ("cu3(0.7,-1.3,2.1) q[0],q[1];", 2, controlled(u3(T1, P1, L1), 1)),
    ("cu(0.7,-1.3,2.1,0.4) q[0],q[1];", 2, controlled(cmath.exp(1j * G1) * u3(T1, P1, L1), 1)),
    ("cu1(2.1) q[0],q[1];", 2, np.diag([1, 1, 1, cmath.exp(2.1j)])),
    ("cp(2.1) q[1],q[0];", 2, np.diag([1, 1, 1, cmath.exp(2.1j)])),
    ("ch q[0],q[1];", 2, controlled(H, 1)),
    ("csx q[0],q[1];", 2, controlled(SX, 1)),
    ("crz(2.1) q[0],q[1];", 2, controlled(np.diag([cmath.exp(-1.05j), cmath.exp(1.05j)]), 1)),
    ("rzz(2.1) q[0],q[1];", 2, np.diag(np.exp(-1.05j * np.array([1, -1, -1, 1])))),
    ("rxx(2.1) q[0],q[1];", 2, math.cos(1.05) * np.eye(4) - 1j * math.sin(1.05) * np.kron(X, X)),
    ("ccx q[0],q[1],q[2];", 3, controlled(X, 2)),
    ("c3x q[0],q[1],q[2],q[3];", 4, controlled(X, 3)),
    ("c3sqrtx q[0],q[1],q[2],q[3];", 4, controlled(SX, 3)),
    ("c4x q[0],q[1],q[2],q[3],q[4];", 5, controlled(X, 4)),
]


@pytest.mark.parametrize("call,k,expected", GATES, ids=[g[0].split()[0] for g in GATES])
def test_qelib1_gate_matrices_equal_their_closed_forms(call, k, expected):
    np.testing.assert_allclose(unitary_of(call, k), expected, atol=1e-12)


def test_sx_squares_to_x_and_relative_phase_toffolis_differ_from_toffoli_by_a_diagonal():
    np.testing.assert_allclose(SX @ SX, X, atol=1e-15)
    for call, k, ref in [("rccx q[0],q[1],q[2];", 3, controlled(X, 2)),
                         ("rc3x q[0],q[1],q[2],q[3];", 4, controlled(X, 3))]:
        d = unitary_of(call, k) @ ref.conj().T
        np.testing.assert_allclose(d, np.diag(np.diag(d)), atol=1e-12)           # diagonal
        np.testing.assert_allclose(np.abs(np.diag(d)), 1, atol=1e-12)            # unit modulus
        assert np.abs(np.diag(d) - 1).max() > 0.5, call                         # and not the identity


def test_nested_gate_definitions_equal_their_expansion_by_hand():
    c = Circuit.from_qasm(read("nested_gates.qasm"))

    def my_rot(r, a, b, x):
        r.rz(a, x).ry(-b / 2 + a ** 2, x)

    def ent(r, t, x, y):
        r.h(x).cnot(x, y)
        my_rot(r, 2 * t, math.sin(t), y)

    def layer(r, t, a, b, c_):
        ent(r, t, a, b)
        ent(r, -t, b, c_)
        my_rot(r, math.log(2), math.sqrt(t) - math.exp(-t) / math.cos(t) + math.tan(t), c_)

    ref = Circuit(3)
    layer(ref, 0.3, 0, 1, 2)
    layer(ref, math.pi / 7, 2, 0, 1)
    ref.cnot(2, 0)
    assert c.gates() == ref.gates()
    np.testing.assert_allclose(c.state().numpy(), ref.state().numpy(), atol=1e-14)


def test_register_broadcast_applies_gates_bitwise():
    c = Circuit.from_qasm(HEAD + "qreg a[3];\nqreg b[3];\nh a;\ncx a, b;\ncz a[0], b;\nrx(0.5) b;\n")
    ref = Circuit(6)
    ref.h([0, 1, 2])
    for i in range(3):
        ref.cnot(i, 3 + i)
    for i in range(3):
        ref.cz(0, 3 + i)
    ref.rx(0.5, [3, 4, 5])
    assert c.gates() == ref.gates()


def test_register_layout_measurements_and_counts_key():
    c = Circuit.from_qasm(read("registers.qasm"))
    assert c.n_qubits == 3 and c.classical_registers == [("c0", 2), ("c1", 2)]
    assert c.measurements == [(0, 0), (1, 1), (2, 3)]
    assert not c.has_channels and len(c) == 2   # terminal measurements are recorded, not applied
    # Qiskit's key: the last register first, each with bit 0 last: c1 = "10", c0 = "01".
    assert c.counts(50, seed=1) == {"10 01": 50}
    # The same mapping from counts over all qubits (what `sampan quantum run` gets from the runner).
    assert c.register_counts({"101": 7}) == {"10 01": 7}


def test_counts_of_a_superposition_follow_the_probabilities():
    c = Circuit.from_qasm(HEAD + "qreg q[2];\ncreg c[2];\nry(2*pi/3) q[0];\ncx q[0], q[1];\nmeasure q -> c;\n")
    shots = 4000
    counts = c.counts(shots, seed=3)
    assert set(counts) == {"00", "11"}
    p = math.sin(math.pi / 3) ** 2  # P(1) after RY(2 pi/3)
    assert abs(counts["11"] - p * shots) < 5 * math.sqrt(shots * p * (1 - p))
    assert c.counts(shots, seed=3) == counts  # seeded


def test_mid_circuit_measurement_and_reset_run_on_density_matrices():
    c = Circuit.from_qasm(read("mid_circuit.qasm"))
    assert c.has_channels and c.mid_circuit_measurements == [(1, 0, [0])]
    assert ("reset_channel", (2,)) in c.gates() and c.gates()[0] == ("h", (0,))  # the first reset dropped
    rho = c.density_matrix().numpy()
    # h, measure (dephasing), cx: (|000><000| + |011><011|)/2 with no coherence between them.
    expected = np.zeros((8, 8))
    expected[0, 0] = expected[3, 3] = 0.5
    np.testing.assert_allclose(rho, expected, atol=1e-14)
    shots = 2000
    counts = c.counts(shots, seed=5)
    # keys "c m": c = (q[2], q[1]) = "0" + m, m = the mid-circuit outcome of q[0].
    assert set(counts) == {"00 0", "01 1"}
    assert abs(counts["01 1"] - shots / 2) < 5 * math.sqrt(shots / 4)


def test_a_bit_measured_twice_mid_circuit_keeps_each_outcome():
    c = Circuit.from_qasm(HEAD + "qreg q[1];\ncreg c[2];\nh q[0];\nmeasure q[0] -> c[0];\nx q[0];\n"
                          "measure q[0] -> c[1];\n")
    counts = c.counts(1000, seed=2)
    assert set(counts) == {"01", "10"}  # c[1] is always the opposite of c[0]


def test_teleportation_with_classical_control_moves_the_state():
    """Teleportation (Bennett et al. 1993): q[0] in U3(1.1, 0.4, -0.3)|0> is sent to q[2] by a Bell
    pair, two mid-circuit measurements and the corrections if (m1==1) x, if (m0==1) z. Then
    P(out = 1) = sin^2(1.1/2) for any m0, m1, and m0, m1 are uniform."""
    c = Circuit.from_qasm(read("teleport.qasm"))
    assert c.classical_conditions == [(6, 7, "m1", 1), (8, 9, "m0", 1)]
    shots = 20000
    counts = c.counts(shots, seed=1)
    p1 = math.sin(0.55) ** 2
    for m in ("0 0", "0 1", "1 0", "1 1"):  # keys "out m1 m0"
        n_m = counts.get("0 " + m, 0) + counts.get("1 " + m, 0)
        assert abs(n_m - shots / 4) < 5 * math.sqrt(shots * 3 / 16)
        assert abs(counts.get("1 " + m, 0) - p1 * n_m) < 5 * math.sqrt(n_m * p1 * (1 - p1)), (m, counts)
    # Without the corrections the output is not the input state: P(out = 1) = 1/2.
    plain = Circuit.from_qasm(read("teleport.qasm").replace("if (m1==1) ", "// ").replace("if (m0==1) ", "// "))
    p_plain = sum(v for k, v in plain.counts(shots, seed=1).items() if k[0] == "1") / shots
    assert abs(p_plain - 0.5) < 5 * math.sqrt(0.25 / shots)
    # The text reads back with the same conditions, and the same counts for the same seed.
    back = Circuit.from_qasm(c.to_qasm())
    assert "if(m1==1) x q[2];" in c.to_qasm() and back.classical_conditions == c.classical_conditions
    assert back.counts(2000, seed=3) == c.counts(2000, seed=3)
    with pytest.raises(ValueError, match="classically controlled"):
        c.state()


def test_condition_from_python_equals_the_qasm_if():
    c = Circuit(2).creg("m", 1).h(0).measure_to(0, 0)
    with c.condition("m", 1):
        c.x(1)
    c.creg("c", 1).measure_to(1, 1)
    counts = c.counts(4000, seed=2)
    assert set(counts) == {"0 0", "1 1"}  # q1 copies the mid-circuit outcome of q0
    assert abs(counts["1 1"] - 2000) < 5 * math.sqrt(1000)
    assert "if(m==1) x q[1];" in c.to_qasm()
    with pytest.raises(ValueError, match="unknown classical register 'z'"):
        c.condition("z", 0)


def test_export_writes_registers_measurements_resets_and_matrix_gates_that_qiskit_reads():
    c = Circuit.from_qasm(read("mid_circuit.qasm"))
    text = c.to_qasm()
    assert "creg m[1];\ncreg c[2];" in text and "measure q[0] -> m[0];" in text and "reset q[2];" in text
    back = Circuit.from_qasm(text)
    np.testing.assert_allclose(back.density_matrix().numpy(), c.density_matrix().numpy(), atol=1e-14)
    assert back.mid_circuit_measurements == c.mid_circuit_measurements and back.measurements == c.measurements
    # Fixed qelib1.inc matrix gates keep their names; a 1-qubit matrix becomes u3, one control cu.
    d = Circuit.from_qasm(HEAD + "qreg q[5];\nsx q[0];\nsxdg q[1];\nch q[0],q[1];\ncsx q[2],q[3];\n"
                          "c3x q[0],q[1],q[2],q[3];\nc3sqrtx q[4],q[1],q[2],q[0];\nc4x q[0],q[1],q[2],q[3],q[4];\n")
    text = d.to_qasm()
    body = text[text.index("qreg"):].split("\n")[1:]
    assert [line.split()[0] for line in body if line] == ["sx", "sxdg", "ch", "csx", "c3x", "c3sqrtx", "c4x"]
    rng = np.random.default_rng(0)
    a = rng.normal(size=(2, 2)) + 1j * rng.normal(size=(2, 2))
    u, _ = np.linalg.qr(a)
    e = Circuit(2).h([0, 1]).controlled_unitary(u, [1], [0]).unitary(u.T, [1])
    f = Circuit.from_qasm(e.to_qasm())
    assert [g for g, _ in f.gates()][2:] == ["cu", "p", "u3"]
    overlap = np.vdot(f.state().numpy(), e.state().numpy())
    assert abs(abs(overlap) - 1) < 1e-12  # equal up to the global phase of the uncontrolled matrix


def test_exported_definitions_are_exact_and_import_as_native_gates():
    """to_qasm defines the gates Qiskit's default reader lacks (swap, rxx, sx, c4x, ...) in the
    paper's gates; each must equal the built-in matrix (global phase included: the reader checks
    it and then maps the definition to the native gate), so every gate reads back as itself. A
    definition that loses the phase is a different gate: it is expanded as written."""
    from sampan.quantum.qasm import builtin_gates
    gates = builtin_gates()
    assert len(gates) == 45 and sum(paper for _, _, paper in gates.values()) == 25
    for name, (n_params, k, in_paper) in gates.items():
        args = "(" + ",".join(["0.3", "-1.1", "2.5", "0.7"][:n_params]) + ")" if n_params else ""
        c = Circuit.from_qasm(HEAD + f"qreg q[{k}];\n{name}{args} " + ",".join(f"q[{i}]" for i in range(k)) + ";\n")
        text = c.to_qasm()
        assert Circuit.from_qasm(text).gates() == c.gates(), (name, text)
    assert "gate c4x a0,a1,a2,a3,a4 {" in Circuit(5).controlled_unitary(X, [0, 1, 2, 3], [4]).to_qasm()
    lossy = Circuit.from_qasm(HEAD + "gate sx a { sdg a; h a; sdg a; }\nqreg q[1];\nsx q[0];\n")
    assert [g for g, _ in lossy.gates()] == ["sdg", "h", "sdg"]
    np.testing.assert_allclose(lossy.state().numpy() * (1 + 1j) / math.sqrt(2),
                               SX[:, 0], atol=1e-15)  # SX = e^{i pi/4} Sdg H Sdg


def test_a_large_file_imports_gate_for_gate():
    # 20,000 gates (its speed is measured by bench/quantum/qasm_import_bench.py); the circuit must
    # hold every gate in order, on its qubits, with its angle, and the measurements.
    lines = [HEAD + "qreg q[20];\ncreg c[20];"]
    expected = Circuit(20)
    angles = []
    for i in range(20000):
        q, other = i % 20, (i * 7 + 3) % 20
        if i % 2:
            lines.append(f"rz({0.001 * i}*pi) q[{q}];")
            expected.rz(0.001 * i * math.pi, q)
            angles.append(0.001 * i * math.pi)
        elif q != other:
            lines.append(f"cx q[{q}],q[{other}];")
            expected.cnot(q, other)
        else:
            lines.append(f"h q[{q}];")
            expected.h(q)
    c = Circuit.from_qasm("\n".join(lines) + "\nmeasure q -> c;\n")
    assert len(c) == 20000
    assert c.gates() == expected.gates()
    assert c.measurements == [(q, q) for q in range(20)]
    written = [float(a) for a in re.findall(r"^rz\(([^)]+)\) q\[\d+\];$", c.to_qasm(), re.M)]
    np.testing.assert_allclose(written, angles, rtol=1e-14, atol=1e-15)


def test_export_refuses_what_qasm_cannot_hold():
    with pytest.raises(ValueError, match="gate 1 \\(DEPOLARIZING\\) has no OpenQASM 2.0"):
        Circuit(1).h(0).depolarizing(0.1).to_qasm()
    with pytest.raises(ValueError, match="gate 0 \\(UNITARY\\) has no OpenQASM 2.0"):
        Circuit(2).unitary(np.eye(4)[[1, 0, 2, 3]], [0, 1]).to_qasm()


def test_measure_to_from_python_and_its_errors():
    c = Circuit(2).h(0).cnot(0, 1).measure_to("full")
    assert c.classical_registers == [("c", 2)] and set(c.counts(200, seed=0)) <= {"00", "11"}
    with pytest.raises(IndexError, match="classical bit 2 is out of range"):
        c.measure_to(0, 2)
    with pytest.raises(ValueError, match="declared twice"):
        c.creg("c", 1)
    with pytest.raises(ValueError, match="records no measurement"):
        Circuit(1).counts(10)


# ---- malformed programs: every error names the line and the column ----------------------------------
BAD = [
    ("if (c==1) if (c==0) x q[0];", "line 5, column 11", "'if' cannot follow 'if'"),
    ("if (c==1) barrier q;", "line 5, column 11", "'barrier' cannot be classically controlled"),
    ("if (c==1) measure q[0] c[0];", "line 5, column 24", "expected '->'"),
    ("if (c==1) measure q -> c[1];", "line 5, column 11", "2 qubit(s) into 1 bit(s)"),
    ("if (c==1) reset r[0];", "line 5, column 17", "unknown quantum register 'r'"),
    ("if (q==1) x q[0];", "line 5, column 5", "'q' is a qreg"),
    ("if (c==1) measure q[0] -> c[5];", "line 5, column 29", "bit c[5] is out of range"),
    ("if (c==1) x q[0]", "line 5, column 17", "expected ';'"),
    ("if (d==1) x q[0];", "line 5, column 5", "unknown classical register 'd'"),
    ("if (c=1) x q[0];", "line 5, column 6", "unexpected character '='"),
    ("if (c 1) x q[0];", "line 5, column 7", "expected '=='"),
    ("opaque magic(a) x;", "line 5, column 1", "opaque gate 'magic'"),
    ('include "stdgates.inc";', "line 5, column 9", 'only "qelib1.inc"'),
    ("gate g a { h a[0]; }", "line 5, column 15", "expected ';'"),
    ("gate g a { rx(b) a; }", "line 5, column 15", "unknown parameter 'b'"),
    ("gate g a { measure a -> c[0]; }", "line 5, column 12", "cannot appear in a gate body"),
    ("gate g a { foo a; }", "line 5, column 12", "unknown gate 'foo'"),
    ("gate g a { g a; }", "line 5, column 12", "calls itself"),
    ("gate g a, b { cx a, a; }", "line 5, column 15", "repeats a qubit"),
    ("gate g a, a { h a; }", "line 5, column 11", "listed twice"),
    ("gate g a { h q; }", "line 5, column 14", "not a qubit argument"),
    ("gate h a { x a; }", "line 5, column 6", "already defined by qelib1.inc"),
    ("gate g a { h a; }\ngate g a { x a; }", "line 6, column 6", "defined twice"),
    ("gate g(t) a { rx(t) a; }\ng q[0];", "line 6, column 1", "takes 1 parameter"),
    ("gate g(t) a { rx(1/t) a; }\ng(0) q[0];", "line 5, column 19", "division by zero (in gate 'g' used at line 6"),
    ("gate g(t) a { rx(ln(t)) a; }\ngate k a { g(0) a; }\nk q[1];", "line 5, column 18", "in gate 'k' used at line 7, column 1"),
    ("qreg r[3];\ncx q, r;", "line 6, column 1", "registers of different sizes"),
    ("measure q -> c[0];", "line 5, column 1", "2 qubit(s) into 1 bit(s)"),
    ("measure q[0] -> d[0];", "line 5, column 17", "unknown classical register 'd'"),
    ("measure q[0] -> c[2];", "line 5, column 19", "bit c[2] is out of range"),
    ("measure q[0] c[0];", "line 5, column 14", "expected '->'"),
    ("creg q[1];", "line 5, column 6", "declared twice"),
    ("creg C[1];", "line 5, column 6", "lowercase letter"),
    ("reset r[0];", "line 5, column 7", "unknown quantum register 'r'"),
    ("barrier q[5];", "line 5, column 11", "out of range"),
    ("h q q;", "line 5, column 5", "expected ';'"),
    ("gate g a { h a; ", "line 5, column 17", "got the end of the text"),
]


@pytest.mark.parametrize("body,where,what", BAD)
def test_malformed_programs_name_line_and_column(body, where, what):
    with pytest.raises(ValueError) as info:
        Circuit.from_qasm(HEAD + "qreg q[2];\ncreg c[2];\n" + body)
    msg = str(info.value)
    assert where in msg and what in msg, msg


# ---- `sampan quantum run` on measured programs ---------------------------------------------------
def run_cli(*args):
    import json
    import subprocess
    import sys
    repo = os.path.dirname(os.path.dirname(HERE))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.path.join(repo, "python") + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-m", "sampan", "quantum", "run", *args], capture_output=True, text=True,
                       timeout=120, env=env)
    return r, (json.loads(r.stdout) if r.returncode == 0 and "--json" in args else None)


def test_cli_prints_counts_of_the_classical_registers():
    r, out = run_cli(os.path.join(HERE, "registers.qasm"), "--shots", "100", "--json")
    assert r.returncode == 0, r.stderr
    assert out["register_counts"] == {"10 01": 100} and out["counts"] == {"101": 100}
    r, _ = run_cli(os.path.join(HERE, "mid_circuit.qasm"), "--shots", "400", "--seed", "3")
    assert r.returncode == 0, r.stderr
    assert "key 'c m'" in r.stdout and "00 0" in r.stdout and "01 1" in r.stdout, r.stdout
    r, out = run_cli(os.path.join(HERE, "teleport.qasm"), "--shots", "100", "--json")
    assert r.returncode == 0, r.stderr
    assert sum(out["register_counts"].values()) == 100 and all(len(k) == 5 for k in out["register_counts"])
    r, _ = run_cli(os.path.join(HERE, "mid_circuit.qasm"), "--state-out", "x.npy")
    assert r.returncode == 2 and "--state-out is not available" in r.stderr
