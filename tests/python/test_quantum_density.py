"""sampan.quantum density matrices and noise: every channel method against a NumPy Kraus
reference (Paddle Quantum's Kraus operators, applied with explicit Kronecker products), automatic
density-matrix expectation, gradients (parameter shift, finite differences, channel parameters),
probabilities / sampling / partial measurement, errors, and a noisy VQE trained with sp.optim.Adam
that converges to the lowest eigenvalue of the noise-dressed Hamiltonian E^+(H)."""
import math

import numpy as np
import pytest

import sampan as sp
from sampan import optim
from sampan.quantum import Circuit, DensityMatrix, Hamiltonian

I2 = np.eye(2, dtype=complex)
X = np.array([[0, 1], [1, 0]], dtype=complex)
Y = np.array([[0, -1j], [1j, 0]], dtype=complex)
Z = np.diag([1, -1]).astype(complex)
H = np.array([[1, 1], [1, -1]], dtype=complex) / math.sqrt(2)


def op_on(n, ops):
    """Kronecker product with ops[q] on qubit q (qubit n-1 leftmost: qubit 0 is the low bit)."""
    m = np.ones((1, 1), dtype=complex)
    for q in reversed(range(n)):
        m = np.kron(m, ops.get(q, I2))
    return m


def embed(n, qubits, m):
    """A 2^k x 2^k matrix on `qubits` (qubits[0] the low bit of its index) as a 2^n x 2^n matrix."""
    k = len(qubits)
    full = np.zeros((2 ** n, 2 ** n), dtype=complex)
    for i in range(2 ** n):
        for j in range(2 ** n):
            rest = [q for q in range(n) if q not in qubits]
            if any((i >> q) & 1 != (j >> q) & 1 for q in rest):
                continue
            li = sum(((i >> q) & 1) << b for b, q in enumerate(qubits))
            lj = sum(((j >> q) & 1) << b for b, q in enumerate(qubits))
            full[i, j] = m[li, lj]
    assert k == len(qubits)
    return full


def kraus_apply(rho, n, qubits, ks):
    return sum(embed(n, qubits, k) @ rho @ embed(n, qubits, k).conj().T for k in ks)


def paulis(k):
    out = [np.ones((1, 1), dtype=complex)]
    for _ in range(k):
        out = [np.kron(p, s) for p in out for s in (I2, X, Y, Z)]
    return out


def random_unitary(d, seed):
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d)))
    return q * (np.diag(r) / np.abs(np.diag(r)))


# Paddle Quantum's Kraus operators (channel.representation), written out here.
def kraus_of(name, *v):
    p = v[0]
    s = math.sqrt
    if name == "bit_flip":
        return [s(1 - p) * I2, s(p) * X]
    if name == "phase_flip":
        return [s(1 - p) * I2, s(p) * Z]
    if name == "bit_phase_flip":
        return [s(1 - p) * I2, s(p) * Y]
    if name == "amplitude_damping":
        return [np.array([[1, 0], [0, s(1 - p)]]), np.array([[0, s(p)], [0, 0]])]
    if name == "generalized_amplitude_damping":
        g, q = v
        return [s(q) * np.array([[1, 0], [0, s(1 - g)]]), s(q) * np.array([[0, s(g)], [0, 0]]),
                s(1 - q) * np.array([[s(1 - g), 0], [0, 1]]), s(1 - q) * np.array([[0, 0], [s(g), 0]])]
    if name == "phase_damping":
        return [np.array([[1, 0], [0, s(1 - p)]]), np.array([[0, 0], [0, s(p)]])]
    if name == "depolarizing":
        return [s(1 - 3 * p / 4) * I2, s(p / 4) * X, s(p / 4) * Y, s(p / 4) * Z]
    if name == "pauli_channel":
        px, py, pz = v[0]
        return [s(1 - px - py - pz) * I2, s(px) * X, s(py) * Y, s(pz) * Z]
    if name == "reset_channel":
        p0, p1 = v[0]
        return [np.array([[s(p0), 0], [0, 0]]), np.array([[0, s(p0)], [0, 0]]), np.array([[0, 0], [s(p1), 0]]),
                np.array([[0, 0], [0, s(p1)]]), s(1 - p0 - p1) * I2]
    if name == "thermal_relaxation":  # zero-temperature T1/T2: amplitude then phase damping
        (t1, t2), t = v
        g = 1 - math.exp(-t / t1)
        lam = 1 - math.exp(-2 * t / t2) / (1 - g)  # phase damping making coherence e^{-t/T2}
        ad = kraus_of("amplitude_damping", g)
        pd = kraus_of("phase_damping", lam)
        return [b @ a for a in ad for b in pd]
    raise KeyError(name)


CASES = [("bit_flip", (0.2,)), ("phase_flip", (0.3,)), ("bit_phase_flip", (0.15,)),
         ("amplitude_damping", (0.35,)), ("generalized_amplitude_damping", (0.3, 0.6)),
         ("phase_damping", (0.45,)), ("depolarizing", (0.25,)), ("pauli_channel", ((0.1, 0.05, 0.2),)),
         ("reset_channel", ((0.2, 0.1),)), ("thermal_relaxation", ((5.0, 4.0), 1.3))]


def prepared(n=2):
    """A circuit making an entangled, complex 2-qubit state, and its density matrix in NumPy."""
    c = Circuit(n)
    c.u3(0.9, 0.4, -0.7, 0).cnot(0, 1).ry(1.3, 1)
    psi = c.state().numpy()
    return c, np.outer(psi, psi.conj())


@pytest.mark.parametrize("name,values", CASES)
def test_channel_matches_kraus_reference(name, values):
    c, rho = prepared()
    getattr(c, name)(*values, 1)
    want = kraus_apply(rho, 2, [1], kraus_of(name, *values))
    np.testing.assert_allclose(c.density_matrix().numpy(), want, atol=1e-13)


def test_matrix_channels_and_generalized_depolarizing():
    c, rho = prepared()
    # Two-qubit depolarizing = Paddle's Kraus set sqrt(1-15p/16) I, sqrt(p/16) sigma_k.
    p = 0.3
    c.generalized_depolarizing(p, [0, 1])
    ks = [math.sqrt(1 - 15 * p / 16) * np.eye(4)] + [math.sqrt(p / 16) * s for s in paulis(2)[1:]]
    np.testing.assert_allclose(c.density_matrix().numpy(), kraus_apply(rho, 2, [0, 1], ks), atol=1e-13)
    # Kraus on qubits [1, 0] (order matters: qubits[0] is the low bit of the operators' index).
    c, rho = prepared()
    u = random_unitary(4, 3)
    ks = [math.sqrt(0.7) * u, math.sqrt(0.3) * np.eye(4)]
    c.kraus_repr(ks, [1, 0])
    np.testing.assert_allclose(c.density_matrix().numpy(), kraus_apply(rho, 2, [1, 0], ks), atol=1e-13)
    # Mixed unitary and the Choi matrix of the same channel.
    c, rho = prepared()
    c.mixed_unitary_channel([u, np.eye(4)], [0.7, 0.3], [1, 0])
    np.testing.assert_allclose(c.density_matrix().numpy(), kraus_apply(rho, 2, [1, 0], ks), atol=1e-13)
    d = 2
    kd = kraus_of("amplitude_damping", 0.4)
    choi = np.zeros((4, 4), dtype=complex)
    for i in range(d):
        for j in range(d):
            eij = np.zeros((d, d)); eij[i, j] = 1
            choi += np.kron(eij, sum(k @ eij @ k.conj().T for k in kd))
    c, rho = prepared()
    c.choi_repr(choi, 0)
    np.testing.assert_allclose(c.density_matrix().numpy(), kraus_apply(rho, 2, [0], kd), atol=1e-13)


def test_analytic_channel_physics():
    # Depolarizing shrinks the Bloch vector by 1 - p; T1/T2 relaxation of populations / coherence.
    c = Circuit(1).u3(1.1, 0.6, 0.0, 0)
    bloch = [c.expectation(Hamiltonian([(1.0, f"{a}0")])).item() for a in "XYZ"]
    n = Circuit(1).u3(1.1, 0.6, 0.0, 0).depolarizing(0.3)
    for a, b in zip("XYZ", bloch):
        assert n.expectation(Hamiltonian([(1.0, f"{a}0")])).item() == pytest.approx(0.7 * b, abs=1e-13)
    t1, t2, t = 40.0, 25.0, 9.0
    c = Circuit(1).x(0).thermal_relaxation((t1, t2), t, 0)
    assert c.probabilities().numpy()[1] == pytest.approx(math.exp(-t / t1), abs=1e-14)
    c = Circuit(1).h(0).thermal_relaxation((t1, t2), t, 0)
    assert c.expectation(Hamiltonian([(1.0, "X0")])).item() == pytest.approx(math.exp(-t / t2), abs=1e-14)


def test_noiseless_density_matrix_equals_state_and_auto_mode():
    c = Circuit(3, seed=4)
    c.complex_entangled_layer(depth=2)
    psi = c.state().numpy()
    np.testing.assert_allclose(c.density_matrix().numpy(), np.outer(psi, psi.conj()), atol=1e-12)
    h = Hamiltonian([(0.7, "Z0 Z1"), (-0.4, "X1 Y2"), (0.2, "X0")])
    assert c.expectation(h, density_matrix=True).item() == pytest.approx(c.expectation(h).item(), abs=1e-12)
    assert not c.has_channels
    c.phase_damping(0.2, 1)
    assert c.has_channels  # expectation now runs on the density matrix by itself
    assert c.expectation(h).item() == pytest.approx(DensityMatrix(c).expectation(h).item(), abs=1e-12)
    with pytest.raises(ValueError, match="noise channel PHASE_DAMPING"):
        c.expectation(h, density_matrix=False)
    with pytest.raises(ValueError, match="noise channel"):
        c.state()


def test_noisy_gradients_parameter_shift_and_channel_parameters():
    c = Circuit(2, seed=1)
    c.ry(None, "full").depolarizing(0.1).cnot(0, 1).rx(None, "full").amplitude_damping(0.2, 0).rzz(None, 0, 1)
    gamma = sp.tensor(np.array([0.3]), requires_grad=True)
    c.phase_damping(gamma, 1)
    h = Hamiltonian([(1.0, "Z0 Z1"), (0.5, "X0"), (-0.3, "Y1")])
    e = c.expectation(h)
    e.backward()
    g = c.parameters.grad.numpy().copy()
    base = c.parameters.detach().numpy()

    def energy(vals, gm=0.3):
        d = Circuit(2)
        d.ry(sp.tensor(vals[0:2]), "full").depolarizing(0.1).cnot(0, 1).rx(sp.tensor(vals[2:4]), "full")
        d.amplitude_damping(0.2, 0).rzz(float(vals[4]), 0, 1).phase_damping(gm, 1)
        return d.expectation(h).item()

    for i in range(len(base)):  # each angle drives one Pauli rotation: the shift rule holds under noise
        plus, minus = base.copy(), base.copy()
        plus[i] += math.pi / 2
        minus[i] -= math.pi / 2
        assert g[i] == pytest.approx((energy(plus) - energy(minus)) / 2, abs=1e-12)
    fd = (energy(base, 0.3 + 1e-6) - energy(base, 0.3 - 1e-6)) / 2e-6
    assert gamma.grad.numpy()[0] == pytest.approx(fd, abs=1e-7)


def test_probabilities_sampling_and_measurement():
    c = Circuit(3).h(0).cnot(0, 1).cnot(1, 2)  # GHZ
    np.testing.assert_allclose(c.probabilities().numpy(), [0.5, 0, 0, 0, 0, 0, 0, 0.5], atol=1e-14)
    counts = c.sample(4000, seed=11)
    assert set(counts) == {"000", "111"} and sum(counts.values()) == 4000
    assert abs(counts["000"] - 2000) < 5 * math.sqrt(4000 * 0.25)
    assert c.sample(4000, seed=11) == counts  # seeded: reproducible
    assert c.sample(50, seed=12, format="bitstrings") != c.sample(50, seed=11, format="bitstrings")
    g = sp.Generator(5)
    a, b = c.sample(100, generator=g, format="outcomes"), c.sample(100, generator=g, format="outcomes")
    assert a.dtype == sp.int64 and not np.array_equal(a.numpy(), b.numpy())  # one draw each
    # Bitstring order: qubits [0, 2] of |q2 q1 q0> = |100> -> '10' (qubit 2 is the first character).
    d = Circuit(3).x(2)
    assert d.sample(10, qubits=[0, 2], seed=0) == {"10": 10}
    # Partial measurement with post-selection: GHZ with qubit 0 = 1 leaves |111>.
    for dm in (False, True):
        post, p = c.measure([0], "1", density_matrix=dm)
        assert p.item() == pytest.approx(0.5, abs=1e-14)
        post = post.numpy()
        assert abs(post[7, 7] if dm else abs(post[7])) == pytest.approx(1.0, abs=1e-14)
    # Noisy: bit flip on qubit 2 after GHZ: P(q2 != q0) = p.
    c.bit_flip(0.15, 2)
    probs = c.probabilities(qubits=[0, 2]).numpy()
    assert probs[1] + probs[2] == pytest.approx(0.15, abs=1e-14)
    # Differentiable: d P(q0 = 1) / d theta for RY(theta) = sin(theta) / 2.
    theta = sp.tensor(np.array([0.8]), requires_grad=True)
    e = Circuit(1).ry(theta, 0).amplitude_damping(0.0, 0)
    p1 = e.probabilities()[1]
    p1.backward()
    assert theta.grad.numpy()[0] == pytest.approx(math.sin(0.8) / 2, abs=1e-12)
    with pytest.raises(ValueError, match="probability 0"):
        Circuit(1).measure([0], [1])


def test_density_matrix_class():
    psi = Circuit(2).h(0).cnot(0, 1).state()
    rho = DensityMatrix.from_state(psi)
    assert rho.n_qubits == 2 and rho.trace().item() == pytest.approx(1.0)
    assert rho.purity().item() == pytest.approx(1.0)
    post, p = rho.measure(1, [0])
    assert p.item() == pytest.approx(0.5) and post.numpy()[0, 0] == pytest.approx(1.0)
    mixed = DensityMatrix(Circuit(2).h(0).cnot(0, 1).depolarizing(0.5))
    assert mixed.purity().item() < 0.9
    assert mixed.expectation(Hamiltonian([(1.0, "Z0 Z1")])).item() == pytest.approx(0.25, abs=1e-13)
    with pytest.raises(ValueError, match=r"\[2\^n, 2\^n\]"):
        DensityMatrix(np.eye(3))


def test_channel_errors():
    c = Circuit(2)
    with pytest.raises(ValueError, match="not trace preserving"):
        c.kraus_repr([np.eye(2), 0.1 * X], 0)
    with pytest.raises(ValueError, match="not trace preserving"):
        c.choi_repr(np.eye(4), 0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Circuit(1).bit_flip(1.5, 0).density_matrix()
    with pytest.raises(ValueError, match="T2 must be <= 2 T1"):
        Circuit(1).thermal_relaxation((1.0, 3.0), 0.1, 0).density_matrix()
    with pytest.raises(ValueError, match="sum to 1"):
        Circuit(1).mixed_unitary_channel([I2, Z], [0.5, 0.2], 0).density_matrix()
    with pytest.raises(IndexError):
        c.amplitude_damping(0.1, 2)
    with pytest.raises(ValueError, match="no OpenQASM"):
        Circuit(1).h(0).depolarizing(0.1).to_qasm()


def test_noisy_vqe_with_adam_reaches_dressed_ground_energy():
    # Local depolarizing on every qubit at the end scales a weight-w Pauli term by (1 - p)^w, so
    # the noisy energy is tr(E^+(H) rho(theta)) and its minimum over pure states is the lowest
    # eigenvalue of E^+(H) = (1-p)^2 Z0 Z1 + 0.5 (1-p) (X0 + X1): the target, from numpy.
    p = 0.1
    h = Hamiltonian([(1.0, "Z0 Z1"), (0.5, "X0"), (0.5, "X1")])
    dressed = Hamiltonian([((1 - p) ** 2, "Z0 Z1"), (0.5 * (1 - p), "X0"), (0.5 * (1 - p), "X1")])
    target = np.linalg.eigvalsh(dressed.matrix(2))[0]
    exact = np.linalg.eigvalsh(h.matrix(2))[0]
    c = Circuit(2, seed=3)
    c.ry(None, "full").cnot(0, 1).ry(None, "full").cnot(0, 1).ry(None, "full").depolarizing(p)
    opt = optim.Adam([c.parameters], lr=0.1)
    for _ in range(300):
        opt.zero_grad()
        e = c.expectation(h)
        e.backward()
        opt.step()
    final = c.expectation(h).item()
    assert final == pytest.approx(target, abs=1e-4)
    assert final > exact + 0.05  # the noise costs energy: it did not find the noiseless optimum


def test_density_matrix_channels_and_circuits_on_a_given_state():
    # Bell state, then 2-qubit depolarizing on the DensityMatrix: the isotropic state (1-p) Phi+ + p I/4.
    p = 0.4
    bell = DensityMatrix.from_state(Circuit(2).h(0).cnot(0, 1).state())
    iso = bell.generalized_depolarizing(p, [0, 1]).numpy()
    phi = np.zeros(4); phi[[0, 3]] = 1 / math.sqrt(2)
    np.testing.assert_allclose(iso, (1 - p) * np.outer(phi, phi) + p * np.eye(4) / 4, atol=1e-14)
    # Each channel method equals the same channel at the end of a circuit.
    for name, values in CASES:
        c, rho = prepared()
        got = getattr(DensityMatrix(rho), name)(*values, 0).numpy()
        getattr(c, name)(*values, 0)
        np.testing.assert_allclose(got, c.density_matrix().numpy(), atol=1e-13, err_msg=name)
    # Gradients flow through the input matrix and the applied circuit's parameters.
    theta = sp.tensor(np.array([0.7, -0.4]), requires_grad=True)
    h = Hamiltonian([(1.0, "Z0 Z1"), (0.6, "X0")])

    def energy(t, via_state):
        first = Circuit(2).ry(t[0:1], 0).cnot(0, 1)
        second = Circuit(2).amplitude_damping(0.3, 1).rx(t[1:2], 0).depolarizing(0.1, 0)
        if via_state:
            rho = DensityMatrix.from_state(first.state()).apply(second)
            return rho.expectation(h)
        whole = Circuit(2).ry(t[0:1], 0).cnot(0, 1).amplitude_damping(0.3, 1).rx(t[1:2], 0).depolarizing(0.1, 0)
        return whole.expectation(h)

    e = energy(theta, True)
    g = sp.grad([e], [theta])[0].numpy()
    ref = sp.grad([energy(theta, False)], [theta])[0].numpy()
    assert e.item() == pytest.approx(energy(theta, False).item(), abs=1e-13)
    np.testing.assert_allclose(g, ref, atol=1e-12)
    with pytest.raises(ValueError, match="3 qubits"):
        bell.apply(Circuit(3))
