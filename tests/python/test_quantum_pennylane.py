"""The PennyLane device sampan.qubit (issue 21): values, states, probabilities and device
(adjoint) gradients against default.qubit, and a GradientDescentOptimizer trajectory equal on both."""
import numpy as onp
import pytest

qml = pytest.importorskip("pennylane", reason="the optional extra 'pennylane' is not installed (pip install sampan[pennylane])")
from pennylane import numpy as pnp  # noqa: E402

N = 3


def ansatz(x):
    """Every gate the device takes natively, plus Rot and MultiRZ (decomposed by PennyLane)."""
    qml.Hadamard(0); qml.SX(1); qml.S(2); qml.T(0)
    qml.RX(x[0], 0); qml.RY(x[1], 1); qml.RZ(x[2], 2); qml.PhaseShift(x[3], 0)
    qml.U3(x[4], x[5], 0.3, wires=1); qml.CNOT([0, 1]); qml.CY([1, 2]); qml.CZ([2, 0]); qml.CH([0, 2])
    qml.CRX(x[0], [2, 1]); qml.CRY(x[1], [0, 2]); qml.CRZ(x[2], [1, 0]); qml.ControlledPhaseShift(x[3], [0, 1])
    qml.IsingXX(x[4], [0, 1]); qml.IsingYY(x[5], [1, 2]); qml.IsingZZ(x[0], [2, 0])
    qml.SWAP([0, 2]); qml.Toffoli([0, 1, 2]); qml.CSWAP([2, 0, 1]); qml.PauliX(1); qml.PauliY(2); qml.PauliZ(0)
    qml.Rot(x[1], x[2], x[3], wires=2); qml.MultiRZ(x[4], wires=[0, 1, 2]); qml.GlobalPhase(x[5])


H = qml.Hamiltonian([0.7, -0.4, 0.25, 1.0], [qml.PauliZ(0) @ qml.PauliZ(1), qml.PauliX(2),
                                              qml.PauliY(0) @ qml.PauliX(1) @ qml.PauliZ(2), qml.Identity(0)])


def qnodes(measure, diff_method="best"):
    return [qml.QNode(lambda x: (ansatz(x), measure())[1], qml.device(name, wires=N), diff_method=diff_method)
            for name in ("sampan.qubit", "default.qubit")]


X = pnp.array(onp.random.default_rng(0).uniform(-2, 2, 6), requires_grad=True)


def test_device_is_found_by_its_entry_point():
    dev = qml.device("sampan.qubit", wires=2)
    assert type(dev).__name__ == "SampanQubit" and dev.name == "sampan.qubit"


def test_state_and_probs_equal_default_qubit():
    ours, ref = qnodes(qml.state)
    onp.testing.assert_allclose(ours(X), ref(X), atol=1e-10)
    ours, ref = qnodes(lambda: qml.probs(wires=[2, 0]))
    onp.testing.assert_allclose(ours(X), ref(X), atol=1e-10)


def test_expval_and_device_gradient_equal_default_qubit():
    ours, ref = qnodes(lambda: qml.expval(H))
    assert float(ours(X)) == pytest.approx(float(ref(X)), abs=1e-10)
    g_ours, g_ref = qml.grad(ours)(X), qml.grad(ref)(X)
    onp.testing.assert_allclose(g_ours, g_ref, atol=1e-10)
    assert onp.max(onp.abs(g_ref)) > 1e-2  # the comparison is not between two zero vectors


def test_device_derivatives_are_the_ones_used():
    dev = qml.device("sampan.qubit", wires=N)
    calls = []
    original = dev.compute_derivatives
    dev.compute_derivatives = lambda circuits, config=None: calls.append(len(circuits)) or original(circuits, config)
    ours = qml.QNode(lambda x: (ansatz(x), qml.expval(qml.PauliZ(0)))[1], dev, diff_method="device")
    ref = qml.QNode(lambda x: (ansatz(x), qml.expval(qml.PauliZ(0)))[1], qml.device("default.qubit", wires=N))
    onp.testing.assert_allclose(qml.grad(ours)(X), qml.grad(ref)(X), atol=1e-10)
    assert calls == [1]  # one tape, differentiated by the device (no parameter-shift tapes)


def test_multiple_expvals_jacobian_equals_default_qubit():
    ours, ref = qnodes(lambda: (qml.expval(qml.PauliZ(0)), qml.expval(qml.PauliX(1) @ qml.PauliY(2))))
    j_ours = qml.jacobian(lambda x: pnp.stack(ours(x)))(X)
    j_ref = qml.jacobian(lambda x: pnp.stack(ref(x)))(X)
    onp.testing.assert_allclose(j_ours, j_ref, atol=1e-10)


def test_gradient_descent_trajectory_equals_default_qubit():
    trajectories = []
    for name in ("sampan.qubit", "default.qubit"):
        @qml.qnode(qml.device(name, wires=2))
        def cost(w):
            qml.RY(w[0], 0); qml.RX(w[1], 1); qml.CNOT([0, 1]); qml.RZ(w[2], 1)
            return qml.expval(qml.PauliZ(0) @ qml.PauliZ(1) + 0.5 * qml.PauliX(0))
        opt = qml.GradientDescentOptimizer(stepsize=0.2)
        w = pnp.array([0.1, 0.2, 0.3], requires_grad=True)
        path = [cost(w)]
        for _ in range(8):
            w, c = opt.step_and_cost(cost, w)
            path.append(cost(w))
        trajectories.append((onp.array(path), onp.array(w)))
    onp.testing.assert_allclose(trajectories[0][0], trajectories[1][0], atol=1e-10)
    onp.testing.assert_allclose(trajectories[0][1], trajectories[1][1], atol=1e-10)
    assert trajectories[1][0][-1] < trajectories[1][0][0] - 0.1  # it optimises


def test_shots_are_refused():
    dev = qml.device("sampan.qubit", wires=1)
    circuit = qml.set_shots(qml.QNode(lambda: (qml.Hadamard(0), qml.expval(qml.PauliZ(0)))[1], dev), shots=10)
    with pytest.raises(qml.exceptions.DeviceError, match="analytic only"):
        circuit()
