"""Circuit.from_qasm3 / to_qasm3 (issue 21): round trips keep state and parameters, Qiskit's
qasm3.dumps output reads back as Qiskit's state, sampan's export loads in qiskit.qasm3.loads
with sampan's state, and bad programs are refused naming the line and the construct."""
import math

import numpy as np
import pytest

qiskit = pytest.importorskip("qiskit", reason="the optional extra 'qiskit' is not installed (pip install sampan[qiskit])")
import qiskit.qasm3  # noqa: E402
from qiskit.circuit import Parameter  # noqa: E402
from qiskit.quantum_info import Statevector  # noqa: E402

from sampan.quantum import Circuit, Hamiltonian  # noqa: E402

from test_quantum_qiskit import random_circuit  # noqa: E402


def _sampan_circuit():
    """Every native gate of the shared subset, trainable, affine (through to_qasm3's writer) and fixed angles."""
    c = Circuit(3, seed=1)
    c.h("full").x(0).y(1).z(2).s(0).sdg(1).t(2).tdg(0).p(None, 1).rx(None, 2).ry(0.3, 0).rz(None, 1)
    c.u3(None, 0.2, None, 2).cnot(0, 1).cy(1, 2).cz(2, 0).swap(0, 2).cp(None, 1, 0).crx(0.7, 2, 1)
    c.cry(None, 0, 2).crz(-0.4, 1, 2).rxx(None, 0, 1).ryy(1.1, 1, 2).rzz(None, 2, 0).ccx(0, 1, 2)
    c.cswap(2, 1, 0).cu(0.5, None, -0.3, 1, 0).ms(0, 2)
    return c


def test_round_trip_keeps_state_gates_and_parameters():
    c = _sampan_circuit()
    text = c.to_qasm3()
    back = Circuit.from_qasm3(text, values=dict(zip(c.parameter_names, c.parameters.detach().numpy())))
    assert back.parameter_names == c.parameter_names
    np.testing.assert_array_equal(back.parameters.detach().numpy(), c.parameters.detach().numpy())
    np.testing.assert_allclose(back.state().numpy(), c.state().numpy(), atol=1e-12)
    expected = dict(c.gate_counts())
    expected["rxx"] += expected.pop("ms")  # ms is written as rxx(-pi/2)
    assert back.gate_counts() == expected


def test_qiskit_dumps_reads_back_as_qiskits_state_with_trainable_inputs():
    rng = np.random.default_rng(11)
    a, b = Parameter("a"), Parameter("b")
    qc = random_circuit(3, rng, params=[a, b])
    qc.global_phase = 0  # qiskit.qasm3.dumps does not write a global phase
    c = Circuit.from_qasm3(qiskit.qasm3.dumps(qc), values={"a": 0.3, "b": -0.8})
    assert c.parameter_names == ["a", "b"]
    bound = qc.assign_parameters({a: 0.3, b: -0.8})
    np.testing.assert_allclose(c.state().numpy(), Statevector(bound).data, atol=1e-10)
    # and it is trainable: the gradient equals the one of the same circuit read through from_qiskit
    e = c.expectation(Hamiltonian([(1.0, "Z0 Z2"), (0.5, "X1")]))
    e.backward()
    d = Circuit.from_qiskit(qc, values={"a": 0.3, "b": -0.8})
    d.expectation(Hamiltonian([(1.0, "Z0 Z2"), (0.5, "X1")])).backward()
    np.testing.assert_allclose(c.parameters.grad.numpy(), d.parameters.grad.numpy(), atol=1e-10)


def test_sampan_export_loads_in_qiskit_with_sampans_state():
    pytest.importorskip("qiskit_qasm3_import", reason="the optional extra 'qiskit' is not installed (pip install sampan[qiskit])")
    c = _sampan_circuit()
    qc = qiskit.qasm3.loads(c.to_qasm3())
    values = dict(zip(c.parameter_names, c.parameters.detach().numpy()))
    bound = qc.assign_parameters({p: float(values[p.name]) for p in qc.parameters})
    np.testing.assert_allclose(Statevector(bound).data, c.state().numpy(), atol=1e-10)


def test_affine_inputs_gphase_definitions_and_broadcasting():
    text = """OPENQASM 3.0;
include "stdgates.inc";
input float[64] theta;
qubit[2] q;
qubit r;
gate mix(x) a, b { rz(x/2) a; cx a, b; ry(-x) b; }
h q;
rx(2*theta + pi/4) q[1];
mix(theta - 1) q[0], r;
gphase(theta);
"""
    c = Circuit.from_qasm3(text, values={"theta": 0.6})
    t = 0.6
    ref = qiskit.QuantumCircuit(3)
    ref.h([0, 1]); ref.rx(2 * t + math.pi / 4, 1); ref.rz((t - 1) / 2, 0); ref.cx(0, 2); ref.ry(-(t - 1), 2)
    ref.global_phase = t
    np.testing.assert_allclose(c.state().numpy(), Statevector(ref).data, atol=1e-10)
    assert c.parameters.numel() == 1


@pytest.mark.parametrize("body, message", [
    ("qubit q;\nbit c;\nc = measure q;\n", r"line 4: unsupported statement ClassicalDeclaration"),
    ("qubit q;\niswap q, q;\n", r"line 4: .*'iswap' is not in the gate subset"),
    ("input float[64] a;\ninput float[64] b;\nqubit q;\nrx(a*b) q;\n", r"line 6: the angle is not affine"),
    ("input float[64] a;\ninput float[64] b;\nqubit q;\nrx(a+b) q;\n", r"line 6: the angle depends on two parameters"),
    ("qubit q;\nctrl @ x q, q;\n", r"line 4: gate modifiers"),
    ("qubit[2] q;\nh q[2];\n", r"line 4: index 2 is out of range"),
    ("input int[8] n;\nqubit q;\n", r"line 3: input 'n' has type IntType"),
    ("qubit q;\ngate rzz(t) a, b { cx a, b; }\n", r"line 4: the definition of 'rzz' is not the standard"),
    ("qubit q;\nrx(1.0 q;\n", r"cannot parse"),
])
def test_bad_programs_name_the_line_and_construct(body, message):
    with pytest.raises(ValueError, match=message):
        Circuit.from_qasm3('OPENQASM 3.0;\ninclude "stdgates.inc";\n' + body)
