"""Circuit.from_qiskit / to_qiskit (issue 21): states against qiskit.quantum_info.Statevector on
random circuits with the whole shared gate subset, gradients against finite differences of
Qiskit's expectation and against sampan's parameter shift, shared and affine parameters."""
import math

import numpy as np
import pytest

qiskit = pytest.importorskip("qiskit", reason="the optional extra 'qiskit' is not installed (pip install sampan[qiskit])")
from qiskit.circuit import Parameter  # noqa: E402
from qiskit.quantum_info import SparsePauliOp, Statevector  # noqa: E402

import sampan as sp  # noqa: E402
from sampan.quantum import Circuit, Hamiltonian  # noqa: E402

# Qiskit method name -> (number of qubits, number of angles): the subset, written independently.
SUBSET = {"h": (1, 0), "x": (1, 0), "y": (1, 0), "z": (1, 0), "s": (1, 0), "sdg": (1, 0), "t": (1, 0),
          "tdg": (1, 0), "sx": (1, 0), "sxdg": (1, 0), "rx": (1, 1), "ry": (1, 1), "rz": (1, 1), "p": (1, 1),
          "u": (1, 3), "cx": (2, 0), "cy": (2, 0), "cz": (2, 0), "ch": (2, 0), "swap": (2, 0), "crx": (2, 1),
          "cry": (2, 1), "crz": (2, 1), "cp": (2, 1), "cu": (2, 4), "rxx": (2, 1), "ryy": (2, 1), "rzz": (2, 1),
          "ccx": (3, 0), "cswap": (3, 0)}


def random_circuit(n, rng, params=None, n_gates=40):
    """Every gate of SUBSET at least once (random order, qubits and angles); angles are numbers, or
    with `params` affine expressions a * p + b of a random one of them."""
    names = list(SUBSET) + list(rng.choice(list(SUBSET), n_gates - len(SUBSET)))
    rng.shuffle(names)
    qc = qiskit.QuantumCircuit(n)
    for name in names:
        k, m = SUBSET[name]
        qubits = [int(q) for q in rng.choice(n, k, replace=False)]
        if params:
            angles = [float(rng.uniform(-2, 2)) * params[rng.integers(len(params))] + float(rng.uniform(-1, 1))
                      for _ in range(m)]
        else:
            angles = [float(a) for a in rng.uniform(-math.pi, math.pi, m)]
        getattr(qc, name)(*angles, *qubits)
    qc.global_phase = float(rng.uniform(-math.pi, math.pi))
    return qc


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_states_equal_qiskit_statevector_on_random_circuits(seed):
    qc = random_circuit(4, np.random.default_rng(seed))
    state = Circuit.from_qiskit(qc).state().numpy()
    np.testing.assert_allclose(state, Statevector(qc).data, atol=1e-10)


def test_parameters_are_trainable_shared_and_named():
    rng = np.random.default_rng(3)
    theta, phi = Parameter("theta"), Parameter("phi")
    qc = random_circuit(3, rng, params=[theta, phi])
    values = {"theta": 0.7, "phi": -1.3}
    c = Circuit.from_qiskit(qc, values=values)
    assert c.parameter_names == ["phi", "theta"]                 # qc.parameters order (sorted by name)
    np.testing.assert_allclose(c.parameters.detach().numpy(), [-1.3, 0.7])
    bound = qc.assign_parameters({theta: 0.7, phi: -1.3})
    np.testing.assert_allclose(c.state().numpy(), Statevector(bound).data, atol=1e-10)


def _qiskit_energy(qc, values, op):
    bound = qc.assign_parameters(dict(zip(qc.parameters, values)))
    return float(np.real(Statevector(bound).expectation_value(op)))


def test_adjoint_gradient_equals_qiskit_finite_differences_and_parameter_shift():
    rng = np.random.default_rng(4)
    params = [Parameter(f"a{i}") for i in range(3)]
    qc = random_circuit(3, rng, params=params, n_gates=36)
    x0 = rng.uniform(-1, 1, 3)
    terms = [(0.8, "Z0 Z1"), (-0.4, "X2"), (0.3, "Y0 X1 Z2")]
    op = SparsePauliOp.from_sparse_list([(p.replace(" ", "")[::2], [int(t[1:]) for t in p.split()], w)
                                         for w, p in terms], num_qubits=3)
    c = Circuit.from_qiskit(qc, values=x0)
    e = c.expectation(Hamiltonian(terms))
    e.backward()
    grad = c.parameters.grad.numpy()
    assert e.item() == pytest.approx(_qiskit_energy(qc, x0, op), abs=1e-10)
    h = 1e-5
    fd = [(_qiskit_energy(qc, x0 + h * np.eye(3)[i], op) - _qiskit_energy(qc, x0 - h * np.eye(3)[i], op)) / (2 * h)
          for i in range(3)]
    np.testing.assert_allclose(grad, fd, atol=1e-6)
    # Sampan against itself: central differences of its own expectation at h = 1e-4 have an error
    # ~h^2 |E'''| / 6 ~ 1e-9 (|E'''| is bounded by the sum of |scale|^3 |coefficients|); the
    # exact check is the parameter shift of each gate's use, which needs one gate per parameter:
    def energy(x):
        with sp.no_grad():
            return Circuit.from_qiskit(qc, values=x).expectation(Hamiltonian(terms)).item()
    h = 1e-4
    own_fd = [(energy(x0 + h * np.eye(3)[i]) - energy(x0 - h * np.eye(3)[i])) / (2 * h) for i in range(3)]
    np.testing.assert_allclose(grad, own_fd, atol=1e-7)


def test_parameter_shift_equals_adjoint_to_1e10():
    # One parameter per rotation gate (scale 1): E'(x) = [E(x + pi/2) - E(x - pi/2)] / 2 exactly.
    params = [Parameter(f"t{i}") for i in range(6)]
    qc = qiskit.QuantumCircuit(3)
    qc.h(0); qc.rx(params[0], 0); qc.ry(params[1], 1); qc.cx(0, 2); qc.rz(params[2], 2)
    qc.rzz(params[3], 0, 1); qc.rxx(params[4], 1, 2); qc.ryy(params[5], 0, 2)
    x0 = np.random.default_rng(5).uniform(-2, 2, 6)
    ham = Hamiltonian([(1.0, "Z0 X1"), (0.5, "Y2"), (0.25, "X0 X1 X2")])
    names = [p.name for p in qc.parameters]
    c = Circuit.from_qiskit(qc, values=dict(zip([p.name for p in params], x0)))
    e = c.expectation(ham)
    e.backward()
    x = c.parameters.detach().numpy()

    def energy(v):
        with sp.no_grad():
            return Circuit.from_qiskit(qc, values=dict(zip(names, v))).expectation(ham).item()
    shift = [(energy(x + math.pi / 2 * np.eye(6)[i]) - energy(x - math.pi / 2 * np.eye(6)[i])) / 2 for i in range(6)]
    np.testing.assert_allclose(c.parameters.grad.numpy(), shift, atol=1e-10)


def test_round_trip_to_qiskit_keeps_state_and_parameters():
    rng = np.random.default_rng(6)
    theta = Parameter("theta")
    qc = random_circuit(3, rng, params=[theta])
    c = Circuit.from_qiskit(qc, values=[0.4])
    back = c.to_qiskit()
    assert [p.name for p in back.parameters] == ["theta"]
    bound = back.assign_parameters({back.parameters[0]: 0.4})
    np.testing.assert_allclose(Statevector(bound).data, c.state().numpy(), atol=1e-10)


def test_sampan_native_gates_export_with_qiskit_matrices():
    c = Circuit(3)
    c.h("full").u3(0.3, -0.7, 1.1, 0).cu(0.5, 0.2, -0.4, 0, 1).ms(1, 2).cswap(2, 0, 1).rzz(None, 0, 2)
    c.unitary(np.linalg.qr(np.random.default_rng(7).normal(size=(4, 4)) + 0j)[0], [0, 2])
    qc = c.to_qiskit()
    bound = qc.assign_parameters([float(c.parameters.detach().numpy()[0])])
    np.testing.assert_allclose(Statevector(bound).data, c.state().numpy(), atol=1e-10)


def test_unsupported_gate_and_non_affine_angle_raise_naming_them():
    qc = qiskit.QuantumCircuit(2)
    qc.iswap(0, 1)
    with pytest.raises(ValueError, match=r"instruction 0 \(iswap\).*'iswap' is not in the gate subset"):
        Circuit.from_qiskit(qc)
    a, b = Parameter("a"), Parameter("b")
    qc = qiskit.QuantumCircuit(1)
    qc.rx(a * a, 0)
    with pytest.raises(ValueError, match="not affine in a"):
        Circuit.from_qiskit(qc)
    qc = qiskit.QuantumCircuit(1)
    qc.rx(a + b, 0)
    with pytest.raises(ValueError, match="depends on 2 parameters"):
        Circuit.from_qiskit(qc)


def test_legacy_gate_names_u1_u2_u3_cu1_cu3_and_id():
    from qiskit.circuit.library import CU1Gate, CU3Gate, IGate, U1Gate, U2Gate, U3Gate
    t = Parameter("t")
    qc = qiskit.QuantumCircuit(2)
    qc.h([0, 1])
    qc.append(U1Gate(0.4 * t), [0]); qc.append(U2Gate(t, -0.3), [1]); qc.append(U3Gate(0.2, t - 1, 0.5), [0])
    qc.append(CU1Gate(-t), [1, 0]); qc.append(CU3Gate(t, 0.1, 0.9), [0, 1]); qc.append(IGate(), [1])
    c = Circuit.from_qiskit(qc, values=[0.8])
    np.testing.assert_allclose(c.state().numpy(), Statevector(qc.assign_parameters([0.8])).data, atol=1e-10)
    assert c.parameters.numel() == 1
