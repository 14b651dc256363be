"""order='little' | 'big' across sampan.quantum (qubit_order.py).

Validation is independent of the conversion helper: the big-order index of a little-order index
is computed here by reversing its binary string; Kronecker products are written out with NumPy;
partial traces are NumPy einsums over the big layout; and, where the extras are installed,
PennyLane's default.qubit (big order) and Qiskit's Statevector (little order) give the states."""
import math

import numpy as np
import pytest

import sampan as sp
from sampan.quantum import Circuit, DensityMatrix, Hamiltonian, info, matrices, states

I2 = np.eye(2)
X = np.array([[0, 1], [1, 0]], dtype=complex)
Y = np.array([[0, -1j], [1j, 0]])
Z = np.diag([1.0, -1.0]).astype(complex)


def bit_reversed(i, n):
    return int(format(i, f"0{n}b")[::-1], 2)


def reversal_permutation(n):
    return np.array([bit_reversed(i, n) for i in range(2 ** n)])


def random_circuit(n, seed):
    rng = np.random.default_rng(seed)
    c = Circuit(n, seed=seed)
    for layer in range(3):
        for q in range(n):
            c.u3(*rng.uniform(0, 2 * math.pi, 3), q)
        for q in range(n - 1):
            c.cnot(q, q + 1) if layer % 2 else c.crz(float(rng.uniform(0, 6)), q + 1, q)
    return c


def random_density_numpy(n, seed):
    rng = np.random.default_rng(seed)
    g = rng.normal(size=(2 ** n, 2 ** n)) + 1j * rng.normal(size=(2 ** n, 2 ** n))
    rho = g @ g.conj().T
    return rho / np.trace(rho).real


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_big_state_is_the_little_state_at_the_bit_reversed_index(n):
    c = random_circuit(n, seed=n)
    little = c.state().detach().numpy()
    big = c.state(order="big").detach().numpy()
    assert np.allclose(big, little[reversal_permutation(n)], atol=1e-13)
    assert not np.allclose(big, little) or n == 1  # the two orders differ for a generic state
    rho_big = c.density_matrix(order="big").numpy()
    assert np.allclose(rho_big, np.outer(big, big.conj()), atol=1e-12)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_x_on_qubit_0_is_index_1_little_and_2_to_the_n_minus_1_big(n):
    c = Circuit(n).x(0)
    assert np.argmax(np.abs(c.state().numpy())) == 1
    assert np.argmax(np.abs(c.state(order="big").numpy())) == 2 ** (n - 1)
    # GHZ, then X on qubit 0: |1 0..0> + |0 1..1> with qubit 0 written first.
    g = Circuit(n).h(0)
    for q in range(n - 1):
        g.cnot(q, q + 1)
    g.x(0)
    support = lambda v: sorted(np.flatnonzero(np.abs(v) > 1e-12).tolist())
    assert support(g.state().numpy()) == [1, 2 ** n - 2]
    assert support(g.state(order="big").numpy()) == [2 ** (n - 1) - 1, 2 ** (n - 1)]


def test_hamiltonian_matrix_is_the_hand_written_kronecker_product():
    kron = lambda *ms: np.kron(ms[0], kron(*ms[1:])) if len(ms) > 1 else ms[0]
    z0 = Hamiltonian([(1.0, "Z0")])
    assert np.allclose(z0.matrix(3, order="big"), kron(Z, I2, I2))
    assert np.allclose(z0.matrix(3, order="little"), kron(I2, I2, Z))
    h = Hamiltonian([(0.5, "X0 Y2"), (-1.5, "Z1")])
    assert np.allclose(h.matrix(3, order="big"), 0.5 * kron(X, I2, Y) - 1.5 * kron(I2, Z, I2))
    assert np.allclose(h.matrix(3), 0.5 * kron(Y, I2, X) - 1.5 * kron(I2, Z, I2))


def test_partial_trace_keeps_qubits_by_label_in_either_order():
    n = 3
    rho_big = random_density_numpy(n, seed=1)
    p = reversal_permutation(n)
    rho_little = rho_big[np.ix_(p, p)]
    # Big layout: axes (q0, q1, q2 | q0', q1', q2'); trace out qubit 1.
    expected_big = np.einsum("abcdbf->acdf", rho_big.reshape([2] * 6)).reshape(4, 4)
    got_big = info.partial_trace(sp.tensor(rho_big), [1], order="big").numpy()
    assert np.allclose(got_big, expected_big, atol=1e-13)
    got_little = info.partial_trace(sp.tensor(rho_little), [1]).numpy()
    # The kept qubits (0, 2) as a 2-qubit little matrix is the big one with its two bits swapped.
    swap = reversal_permutation(2)
    assert np.allclose(got_little, expected_big[np.ix_(swap, swap)], atol=1e-13)
    kept = info.reduced_density_matrix(sp.tensor(rho_big), [0, 2], order="big").numpy()
    assert np.allclose(kept, expected_big, atol=1e-13)
    # A DensityMatrix knows its own order: the same result whatever order it was built from.
    dm = DensityMatrix(sp.tensor(rho_big), order="big")
    assert np.allclose(dm.numpy(), rho_little)
    assert np.allclose(info.partial_trace(dm, [1], order="big").numpy(), expected_big, atol=1e-13)


def test_partial_transpose_and_negativity_name_qubits_by_label():
    # Qubits 0 and 1 in a Bell pair, qubit 2 in |+>: transposing qubit 0 shows entanglement, qubit 2 not.
    c = Circuit(3).h(0).cnot(0, 1).h(2)
    rho_big = c.density_matrix(order="big")
    assert info.negativity(rho_big, [0], order="big").item() == pytest.approx(0.5, abs=1e-12)
    assert info.negativity(rho_big, [2], order="big").item() == pytest.approx(0.0, abs=1e-12)
    assert not info.is_ppt(rho_big, [1], order="big") and info.is_ppt(rho_big, [2], order="big")
    pt_big = info.partial_transpose(rho_big, [2], order="big").numpy()
    r = rho_big.numpy().reshape([2] * 6)
    assert np.allclose(pt_big, np.einsum("abcdef->abfdec", r).reshape(8, 8), atol=1e-13)


def test_schmidt_vectors_in_big_order_rebuild_the_big_ket():
    psi_big = random_circuit(3, seed=7).state(order="big")
    c, a, b = info.schmidt_decompose(psi_big, [0], order="big")
    # A = qubit 0 is the most significant bit in big order: psi = sum_k c_k a_k (x) b_k.
    rebuilt = sum(c.numpy()[k] * np.kron(a.numpy()[k], b.numpy()[k]) for k in range(2))
    assert np.allclose(rebuilt, psi_big.numpy(), atol=1e-12)


def test_counts_keys_are_reversed_and_the_shots_are_the_same():
    c = random_circuit(3, seed=3)
    little = c.sample(500, seed=11)
    big = c.sample(500, seed=11, order="big")
    assert big == {k[::-1]: v for k, v in little.items()}
    sub_little = c.sample(300, qubits=[2, 0], seed=4, format="bitstrings")
    sub_big = c.sample(300, qubits=[2, 0], seed=4, format="bitstrings", order="big")
    assert sub_big == [s[::-1] for s in sub_little]


def test_probabilities_in_big_order_match_the_state():
    c = random_circuit(3, seed=5)
    psi_big = c.state(order="big").numpy()
    probs = np.abs(psi_big.reshape(2, 2, 2)) ** 2           # axes q0, q1, q2
    assert np.allclose(c.probabilities(order="big").numpy(), probs.reshape(-1), atol=1e-13)
    # qubits [2, 0] in big order: index = 2 bit(q2) + bit(q0).
    marginal = probs.sum(axis=1).T.reshape(-1)               # axes (q2, q0)
    assert np.allclose(c.probabilities([2, 0], order="big").numpy(), marginal, atol=1e-13)
    assert np.allclose(DensityMatrix(c).probabilities([2, 0], order="big").numpy(), marginal, atol=1e-13)


def test_measure_reads_the_bitstring_in_the_given_order():
    c = random_circuit(3, seed=6)
    post_l, p_l = c.measure([0, 1], "01")                 # little: qubit 0 last -> q0 = 1, q1 = 0
    post_b, p_b = c.measure([0, 1], "10", order="big")    # big: qubit 0 first -> the same outcome
    assert p_b.item() == pytest.approx(p_l.item(), abs=1e-13)
    assert np.allclose(post_b.numpy(), post_l.numpy()[reversal_permutation(3)], atol=1e-13)
    psi = c.state(order="big").numpy().reshape(2, 2, 2)
    assert p_b.item() == pytest.approx(float(np.sum(np.abs(psi[1, 0]) ** 2)), abs=1e-13)


def test_state_constructors_and_unitaries_in_big_order():
    s2 = 1 / math.sqrt(2)
    # Psi- = (|01> - |10>)/sqrt2 with |ab>: qubit 0 = a; in big order |01> is index 1.
    assert np.allclose(states.bell_state("psi-", order="big").numpy(), [0, s2, -s2, 0])
    assert np.allclose(states.w_state(3, order="big").numpy()[[1, 2, 4]], [1 / math.sqrt(3)] * 3)
    assert states.computational_basis(3, 4, order="big").numpy()[4] == 1
    u = states.haar_unitary(2, seed=3).numpy()
    p = reversal_permutation(2)
    assert np.allclose(states.haar_unitary(2, seed=3, order="big").numpy(), u[np.ix_(p, p)])
    c = random_circuit(3, seed=8)
    u_big = matrices.circuit_unitary(c, order="big").numpy()
    assert np.allclose(u_big[:, 0], c.state(order="big").numpy(), atol=1e-12)
    p = reversal_permutation(3)
    assert np.allclose(u_big, matrices.circuit_unitary(c).numpy()[np.ix_(p, p)], atol=1e-12)


def test_gradients_flow_through_the_big_order_state():
    theta = sp.tensor([0.3, 1.1], requires_grad=True)
    c = Circuit(2).ry(theta, [0, 1])
    psi = c.state(order="big")
    sp.real(psi[1]).backward()   # big index 1: qubit 1 = 1, qubit 0 = 0: cos(t0/2) sin(t1/2)
    t0, t1 = 0.3, 1.1
    assert np.allclose(theta.grad.numpy(), [-0.5 * math.sin(t0 / 2) * math.sin(t1 / 2),
                                            0.5 * math.cos(t0 / 2) * math.cos(t1 / 2)], atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda: Circuit(2).state(order="msb"),
    lambda: Hamiltonian([(1.0, "Z0")]).matrix(2, order="Big"),
    lambda: info.partial_trace(states.ghz_state(2), [0], order=None),
    lambda: states.ghz_state(3, order="lsb"),
])
def test_an_unknown_order_is_a_clear_error(call):
    with pytest.raises(ValueError, match="order must be 'little'.*'big'"):
        call()


def test_pennylane_state_equals_big_order():
    qml = pytest.importorskip("pennylane", reason="the optional extra 'pennylane' is not installed "
                                                  "(pip install sampan[pennylane])")
    angles = [0.3, 1.2, -0.7, 2.1]
    dev = qml.device("default.qubit", wires=3)

    @qml.qnode(dev)
    def circuit():
        qml.RY(angles[0], wires=0)
        qml.RX(angles[1], wires=1)
        qml.CNOT(wires=[0, 2])
        qml.RZ(angles[2], wires=2)
        qml.RY(angles[3], wires=2)
        qml.PauliX(wires=1)
        return qml.state()

    c = Circuit(3).ry(angles[0], 0).rx(angles[1], 1).cnot(0, 2).rz(angles[2], 2).ry(angles[3], 2).x(1)
    theirs = np.asarray(circuit())
    assert np.allclose(c.state(order="big").numpy(), theirs, atol=1e-12)
    assert not np.allclose(c.state().numpy(), theirs, atol=1e-6)


def test_qiskit_statevector_equals_little_order():
    pytest.importorskip("qiskit", reason="the optional extra 'qiskit' is not installed (pip install sampan[qiskit])")
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import Statevector
    qc = QuantumCircuit(3)
    qc.ry(0.3, 0)
    qc.rx(1.2, 1)
    qc.cx(0, 2)
    qc.rz(-0.7, 2)
    qc.x(1)
    c = Circuit(3).ry(0.3, 0).rx(1.2, 1).cnot(0, 2).rz(-0.7, 2).x(1)
    theirs = np.asarray(Statevector(qc).data)
    assert np.allclose(c.state().numpy(), theirs, atol=1e-12)
    assert np.allclose(c.state(order="big").numpy(), theirs[reversal_permutation(3)], atol=1e-12)


def test_a_unitary_given_in_big_order_reads_its_first_qubit_as_the_top_bit():
    cnot_big = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]], dtype=complex)  # control first
    prep = lambda: random_circuit(3, seed=9)
    assert np.allclose(prep().unitary(cnot_big, [2, 0], order="big").state().numpy(),
                       prep().cnot(2, 0).state().numpy(), atol=1e-12)
    u = states.haar_unitary(3, seed=2).numpy()
    psi = prep().state(order="big").numpy().reshape(2, 2, 2)           # axes q0, q1, q2
    # u's big index over wires [2, 0, 1] is (q2, q0, q1).
    expected = np.einsum("zabxyc,xyc->abz", u.reshape([2] * 6), psi.transpose(2, 0, 1))
    got = prep().unitary(u, [2, 0, 1], order="big").state(order="big").numpy()
    assert np.allclose(got, expected.reshape(-1), atol=1e-12)


def test_register_counts_in_big_order_put_classical_bit_0_first():
    from sampan.quantum import Circuit
    c = Circuit(3)
    c.creg("a", 1)
    c.creg("b", 2)
    c.x(0).x(2)                    # qubits 0 and 2 are 1
    c.measure_to([0, 1, 2], [0, 1, 2])   # a[0] = q0, b[0] = q1, b[1] = q2
    little = c.counts(50, seed=1)
    assert little == {"10 1": 50}  # Qiskit's key: last register first, each register's bit 0 last
    assert c.counts(50, seed=1, order="big") == {"1 01": 50}
    with pytest.raises(ValueError, match="order"):
        c.counts(5, order="middle")
