"""sampan.quantum: states against a NumPy Kronecker-product reference, gradients against
parameter shift, and a VQE that reaches the exact ground energy (numpy.linalg.eigvalsh)."""
import math

import numpy as np
import pytest

import sampan as sp
from sampan import optim
from sampan.quantum import Circuit, Hamiltonian

I2 = np.eye(2, dtype=complex)
X = np.array([[0, 1], [1, 0]], dtype=complex)
Y = np.array([[0, -1j], [1j, 0]], dtype=complex)
Z = np.diag([1, -1]).astype(complex)
H = np.array([[1, 1], [1, -1]], dtype=complex) / math.sqrt(2)
P0, P1 = np.diag([1, 0]).astype(complex), np.diag([0, 1]).astype(complex)


def op_on(n, ops):
    """Kronecker product with ops[q] on qubit q (qubit n-1 leftmost: qubit 0 is the low bit)."""
    m = np.ones((1, 1), dtype=complex)
    for q in reversed(range(n)):
        m = np.kron(m, ops.get(q, I2))
    return m


def rot(p, th):
    return math.cos(th / 2) * np.eye(len(p)) - 1j * math.sin(th / 2) * p


def controlled(n, controls, target, u):
    proj = op_on(n, {c: P1 for c in controls})
    return np.eye(2 ** n) - proj + op_on(n, {**{c: P1 for c in controls}, target: u})


def reference_gate(n, name, qubits, angles):
    q = qubits
    fixed = {"h": H, "x": X, "y": Y, "z": Z, "s": np.diag([1, 1j]), "sdg": np.diag([1, -1j]),
             "t": np.diag([1, np.exp(1j * math.pi / 4)]), "tdg": np.diag([1, np.exp(-1j * math.pi / 4)])}
    if name in fixed:
        return op_on(n, {q[0]: fixed[name]})
    one = {"p": lambda a: np.diag([1, np.exp(1j * a)]), "rx": lambda a: rot(X, a),
           "ry": lambda a: rot(Y, a), "rz": lambda a: rot(Z, a)}
    if name in one:
        return op_on(n, {q[0]: one[name](angles[0])})
    if name == "u3":
        t, p, l = angles
        u = np.array([[math.cos(t / 2), -np.exp(1j * l) * math.sin(t / 2)],
                      [np.exp(1j * p) * math.sin(t / 2), np.exp(1j * (p + l)) * math.cos(t / 2)]])
        return op_on(n, {q[0]: u})
    ctrl = {"cnot": X, "cy": Y, "cz": Z}
    if name in ctrl:
        return controlled(n, [q[0]], q[1], ctrl[name])
    cone = {"cp": "p", "crx": "rx", "cry": "ry", "crz": "rz"}
    if name in cone:
        return controlled(n, [q[0]], q[1], one[cone[name]](angles[0]))
    if name == "ccx":
        return controlled(n, [q[0], q[1]], q[2], X)
    if name == "cu":
        return controlled(n, [q[0]], q[1], reference_gate(1, "u3", [0], angles))
    if name == "cswap":
        swap = 0.5 * sum(op_on(n, {q[1]: p, q[2]: p}) for p in (I2, X, Y, Z))
        proj = op_on(n, {q[0]: P1})
        return np.eye(2 ** n) - proj + proj @ swap
    if name == "ms":
        return (np.eye(2 ** n) + 1j * op_on(n, {q[0]: X, q[1]: X})) / math.sqrt(2)
    if name == "swap":
        return 0.5 * sum(op_on(n, {q[0]: p, q[1]: p}) for p in (I2, X, Y, Z))
    pa = {"rxx": X, "ryy": Y, "rzz": Z}[name]
    a = angles[0]
    return math.cos(a / 2) * np.eye(2 ** n) - 1j * math.sin(a / 2) * op_on(n, {q[0]: pa, q[1]: pa})


GATES = [("h", 1, 0), ("x", 1, 0), ("y", 1, 0), ("z", 1, 0), ("s", 1, 0), ("sdg", 1, 0), ("t", 1, 0),
         ("tdg", 1, 0), ("p", 1, 1), ("rx", 1, 1), ("ry", 1, 1), ("rz", 1, 1), ("u3", 1, 3),
         ("cnot", 2, 0), ("cy", 2, 0), ("cz", 2, 0), ("swap", 2, 0), ("cp", 2, 1), ("crx", 2, 1),
         ("cry", 2, 1), ("crz", 2, 1), ("rxx", 2, 1), ("ryy", 2, 1), ("rzz", 2, 1), ("ccx", 3, 0),
         ("cu", 2, 3), ("ms", 2, 0), ("cswap", 3, 0)]


def random_circuit(rng, n, n_gates):
    """A random circuit with fixed angles; returns it and the reference unitary."""
    c = Circuit(n)
    u = np.eye(2 ** n, dtype=complex)
    for _ in range(n_gates):
        name, nq, npar = GATES[rng.integers(len(GATES))]
        qs = [int(q) for q in rng.permutation(n)[:nq]]
        angles = [float(a) for a in rng.uniform(-math.pi, math.pi, npar)]
        if npar and name not in ("u3",) and nq == 1:
            getattr(c, name)(angles[0], qs[0])
        elif name == "u3":
            c.u3(*angles, qs[0])
        elif name == "cu":
            c.cu(*angles, *qs)
        elif npar:
            getattr(c, name)(angles[0], *qs)
        elif nq == 1:
            getattr(c, name)(qs[0])
        else:
            getattr(c, name)(*qs)
        u = reference_gate(n, name, qs, angles) @ u
    return c, u


@pytest.mark.parametrize("seed", range(5))
def test_state_matches_numpy_kronecker_reference_on_4_qubits(seed):
    rng = np.random.default_rng(seed)
    c, u = random_circuit(rng, 4, 40)
    st = c.state()
    assert st.dtype == sp.complex128
    np.testing.assert_allclose(st.numpy(), u[:, 0], atol=1e-12)


def test_ms_is_rxx_minus_half_pi_and_cswap_is_fredkin():
    a, b = Circuit(2), Circuit(2)
    a.h(0).ry(0.4, 1).ms(0, 1)
    b.h(0).ry(0.4, 1).rxx(-math.pi / 2, 0, 1)
    np.testing.assert_allclose(a.state().numpy(), b.state().numpy(), atol=1e-14)
    c = Circuit(3)
    c.x(0).x(1).cswap(0, 1, 2)  # control 0 set: |011> -> |101>
    np.testing.assert_allclose(c.state().numpy(), np.eye(8)[5], atol=0)


def universal_reference(t, q0, q1, n):
    g = [("u3", [q0], t[0:3]), ("u3", [q1], t[3:6]), ("cnot", [q1, q0], []), ("rz", [q0], t[6:7]),
         ("ry", [q1], t[7:8]), ("cnot", [q0, q1], []), ("ry", [q1], t[8:9]), ("cnot", [q1, q0], []),
         ("u3", [q0], t[9:12]), ("u3", [q1], t[12:15])]
    u = np.eye(2 ** n, dtype=complex)
    for name, qs, a in g:
        u = reference_gate(n, name, qs, list(a)) @ u
    return u


def test_universal_two_qubit_gate_structure_state_and_gradient():
    rng = np.random.default_rng(5)
    t = rng.uniform(-3, 3, 15)
    c = Circuit(3)
    c.h("full").universal_two_qubit(list(t), 2, 0)
    assert c.gate_counts() == {"h": 3, "u3": 4, "cnot": 3, "rz": 1, "ry": 2}
    u = universal_reference(t, 2, 0, 3) @ op_on(3, {0: H, 1: H, 2: H})
    np.testing.assert_allclose(c.state().numpy(), u[:, 0], atol=1e-12)
    ham = Hamiltonian([(0.7, "Z0 X2"), (-0.4, "Y0"), (0.9, "X1 Z2")])
    theta = sp.tensor(t, requires_grad=True)

    def energy(v):
        return Circuit(3).h("full").universal_two_qubit(v, 2, 0).expectation(ham)
    energy(theta).backward()
    for i in range(15):
        d = np.zeros(15)
        d[i] = 1e-6
        fd = (energy(sp.tensor(t + d)).item() - energy(sp.tensor(t - d)).item()) / 2e-6
        assert abs(theta.grad.numpy()[i] - fd) < 1e-7, i
    owned = Circuit(2).universal_two_qubit(None, 0, 1)
    assert owned.parameters.shape == (15,)
    with pytest.raises(ValueError, match="15"):
        Circuit(2).universal_two_qubit([0.1] * 14, 0, 1)
    with pytest.raises(ValueError, match="repeat"):
        Circuit(2).universal_two_qubit(None, 1, 1)


def random_unitary(rng, dim):
    q, r = np.linalg.qr(rng.normal(size=(dim, dim)) + 1j * rng.normal(size=(dim, dim)))
    return q * (np.diag(r) / abs(np.diag(r)))


def embed(n, u, targets, controls=()):
    """Dense 2^n matrix of u (local bit j = targets[j]) acting where every control is 1."""
    dim = 2 ** n
    out = np.zeros((dim, dim), dtype=complex)
    for j in range(dim):
        if any(not (j >> c) & 1 for c in controls):
            out[j, j] = 1
            continue
        lj = sum(((j >> t) & 1) << b for b, t in enumerate(targets))
        rest = j & ~sum(1 << t for t in targets)
        for li in range(2 ** len(targets)):
            i = rest | sum(((li >> b) & 1) << t for b, t in enumerate(targets))
            out[i, j] = u[li, lj]
    return out


@pytest.mark.parametrize("k,controls", [(1, []), (2, []), (3, []), (1, [3]), (2, [0, 3])])
def test_unitary_and_controlled_unitary_match_dense_reference(k, controls):
    rng = np.random.default_rng(k + 10 * len(controls))
    n = 4
    targets = [q for q in (2, 1, 0, 3) if q not in controls][:k]
    u = random_unitary(rng, 2 ** k)
    c = Circuit(n).h("full").ry(0.3, 1).cnot(1, 3).rz(0.7, 3)
    prep = c.state().numpy()
    c.controlled_unitary(u, controls, targets) if controls else c.unitary(u, targets)
    np.testing.assert_allclose(c.state().numpy(), embed(n, u, targets, controls) @ prep, atol=1e-12)
    assert c.gate_counts()["unitary"] == 1 and str(c).count("*") == 1 + len(controls)  # the CNOT has one


def test_gradient_flows_through_a_circuit_with_matrix_gates():
    rng = np.random.default_rng(8)
    u = random_unitary(rng, 4)
    ham = Hamiltonian([(1.0, "Z0 Z2"), (0.4, "X1")])
    t = rng.uniform(-2, 2, 3)

    def energy(v):
        return Circuit(3).ry(v[0], 0).unitary(u, [0, 2]).rx(v[1], 1).controlled_unitary(u, 1, [2, 0]) \
            .rz(v[2], 2).h(2).expectation(ham)
    theta = sp.tensor(t, requires_grad=True)
    energy(theta).backward()
    for i in range(3):
        d = np.zeros(3)
        d[i] = 1e-6
        fd = (energy(sp.tensor(t + d)).item() - energy(sp.tensor(t - d)).item()) / 2e-6
        assert abs(theta.grad.numpy()[i] - fd) < 1e-7


def test_unitary_errors():
    c = Circuit(3)
    with pytest.raises(ValueError, match=r"not unitary: max \|U\^\+ U - I\| = 0.0201"):
        c.unitary(np.diag([1, 1.01]), [0])
    with pytest.raises(ValueError, match="must be 4x4"):
        c.unitary(np.eye(2), [0, 1])
    with pytest.raises(ValueError, match="repeat"):
        c.controlled_unitary(np.eye(2), [1], [1])
    with pytest.raises(IndexError, match="qubit 3"):
        c.unitary(np.eye(2), [3])
    # The op checks too: a non-unitary matrix in a hand-made encoding.
    with pytest.raises(ValueError, match="not unitary"):
        sp.ops.quantum.statevector(sp.zeros(0, dtype=sp.float64), [28, 0, 1, 0, 0], [2, 0, 0, 0, 0, 0, 1, 0], 3)


def test_qubit_order_convention():
    c = Circuit(3)
    c.x(1)  # |010> = index 2
    np.testing.assert_allclose(c.state().numpy(), np.eye(8)[2], atol=0)


def test_expectation_gradient_matches_parameter_shift():
    rng = np.random.default_rng(3)
    n = 3
    theta = sp.tensor(rng.uniform(-3, 3, 9), requires_grad=True)
    ham = Hamiltonian([(0.8, "Z0 Z1"), (-0.6, "X2"), (0.3, "Y0 Y2"), (0.5, "Z1")])

    def build(t):
        c = Circuit(n)
        c.h("full")
        c.rx(t[0], 0).ry(t[1], 1).rz(t[2], 2)
        c.cnot(0, 1).rxx(t[3], 1, 2).ryy(t[4], 0, 2).rzz(t[5], 0, 1)
        c.ry(t[6:9], "full")  # one tensor, one element per qubit
        return c

    e = build(theta).expectation(ham)
    e.backward()
    grad = theta.grad.numpy()
    base = theta.detach().numpy()
    for i in range(9):
        def energy(delta):
            v = base.copy()
            v[i] += delta
            return build(sp.tensor(v)).expectation(ham).item()
        shift = (energy(math.pi / 2) - energy(-math.pi / 2)) / 2
        assert abs(grad[i] - shift) < 1e-10, (i, grad[i], shift)


def test_owned_parameters_are_seeded_and_receive_gradients():
    def make(seed):
        c = Circuit(2, seed=seed)
        c.ry(None, "full").cnot(0, 1).rz(None, 1)
        return c
    a, b, other = make(7), make(7), make(8)
    np.testing.assert_array_equal(a.parameters.numpy(), b.parameters.numpy())
    assert not np.array_equal(a.parameters.numpy(), other.parameters.numpy())
    assert a.parameters.requires_grad and a.parameters.shape == (3,)
    e = a.expectation(Hamiltonian([(1.0, "Z0"), (1.0, "X1")]))
    e.backward()
    assert a.parameters.grad.shape == (3,)
    with pytest.raises(RuntimeError, match="after circuit.parameters"):
        a.rx(None, 0)


def test_vqe_reaches_exact_ground_energy():
    ham = Hamiltonian([(1.0, "Z0 Z1"), (0.5, "X0"), (0.5, "X1"), (0.3, "Y0 Y1"), (-0.2, "Z0")])
    exact = np.linalg.eigvalsh(ham.matrix(2))[0]
    c = Circuit(2, seed=1)
    # Any 2-qubit state is (U3 x U3) CNOT (U3 x U3)|00> (Schmidt decomposition).
    for q in range(2):
        c.u3(None, None, None, q)
    c.cnot(0, 1)
    for q in range(2):
        c.u3(None, None, None, q)
    opt = optim.Adam([c.parameters], lr=0.05)
    for _ in range(1500):
        opt.zero_grad()
        e = c.expectation(ham)
        e.backward()
        opt.step()
    assert abs(c.expectation(ham).item() - exact) < 1e-6


def test_circuit_text_depth_and_counts():
    c = Circuit(3)
    c.h("full").cnot(0, 2).rz(0.1, 1).ccx(0, 1, 2)
    text = str(c)
    assert text.splitlines()[0].startswith("q0:") and len(text.splitlines()) == 3
    assert "*" in text and "RZ" in text
    assert c.gate_counts() == {"h": 3, "cnot": 1, "rz": 1, "ccx": 1}
    assert c.depth == 3 and len(c) == 6


def test_circuit_diagram_exact_text():
    # Columns worked out by hand: H | CNOT(0->2) spanning q1 | RY on q0 and RZ on q1 share a
    # column (disjoint qubits) | CP(1->2). Each column is as wide as its widest label, centred,
    # joined by '-'.
    c = Circuit(3)
    c.h(0).cnot(0, 2).rz(0.1, 1).ry(0.25, 0).cp(0.5, 1, 2)
    expected = ("q0: -H-*-RY(0.25)---------\n"
                "q1: ---|-RZ(0.10)----*----\n"
                "q2: ---X----------P(0.50)-")
    assert c.diagram() == expected and str(c) == expected
    assert c.diagram(decimals=1).splitlines()[0] == "q0: -H-*-RY(0.2)--------"  # 0.25 rounds to 0.2 (half even)
    # Trainable angles show their current values; SWAP ends are 'x'; U3 lists three angles.
    d = Circuit(2, seed=0).ry(None, 0).swap(0, 1).u3(0.1, 0.2, -0.3, 1)
    with sp.no_grad():
        d.parameters.fill_(1.5708)
    assert d.diagram() == ("q0: -RY(1.57)-x-" + "-" * 19 + "-\n"
                           "q1: ----------x-U3(0.10,0.20,-0.30)-")
    assert Circuit(2).diagram() == "q0: -\nq1: -"
    # Channels: named ones show their parameters, matrix ones only their name.
    e = Circuit(2).h(0).bit_flip(0.1, 1).kraus_repr([np.eye(4)], [0, 1])
    # H and BIT_FLIP share column 0 (14 wide: H is centred with 6 dashes left, 7 right).
    assert e.diagram() == ("q0: -" + "------H-------" + "-KRAUS_REPR-\n"
                           "q1: -BIT_FLIP(0.10)-KRAUS_REPR-")


def test_errors():
    c = Circuit(2)
    with pytest.raises(IndexError, match="qubit 2 is out of range for 2 qubits"):
        c.h(2)
    with pytest.raises(ValueError, match="repeat"):
        c.cnot(1, 1)
    with pytest.raises(ValueError, match="selector"):
        c.h("cycle")
    with pytest.raises(ValueError, match="elements"):
        c.rx(sp.tensor([0.1, 0.2, 0.3]), "full")
    with pytest.raises(ValueError, match="cannot read"):
        Hamiltonian([(1.0, "Q0")])
    with pytest.raises(IndexError, match="qubit 3"):
        c.expectation(Hamiltonian([(1.0, "Z3")]))
    with pytest.raises(ValueError):
        Circuit(61)
    # The op itself validates the encoding (the C++ error reaches Python as IndexError).
    with pytest.raises(IndexError, match="qubit 5 is out of range for 2 qubits"):
        sp.ops.quantum.statevector(sp.zeros(0, dtype=sp.float64), [0, 5], [], 2)


def cnot_m(n, c, t):
    return controlled(n, [c], t, X)


def test_pair_selectors_linear_cycle_full_and_lists():
    assert Circuit(4).cnot("linear").gates() == [("cnot", (0, 1)), ("cnot", (1, 2)), ("cnot", (2, 3))]
    assert Circuit(4).cz("cycle").gates() == [("cz", (0, 1)), ("cz", (1, 2)), ("cz", (2, 3)), ("cz", (3, 0))]
    assert Circuit(3).swap("full").gates() == [("swap", (0, 1)), ("swap", (0, 2)), ("swap", (1, 2))]
    assert Circuit(3).ms([[2, 0], [0, 1]]).gates() == [("ms", (2, 0)), ("ms", (0, 1))]
    c = Circuit(3).rzz(None, "cycle")
    assert len(c.parameters.numpy()) == 3  # one angle per pair
    c = Circuit(3).crx(sp.tensor([0.1, 0.2]), "linear")
    with pytest.raises(ValueError, match="selector 'ring'"):
        Circuit(3).cnot("ring")
    with pytest.raises(ValueError, match="elements"):
        Circuit(3).rxx(sp.tensor([0.1, 0.2]), "cycle")


def test_superposition_layers():
    n = 3
    np.testing.assert_allclose(Circuit(n).superposition_layer().state().numpy(),
                               np.full(8, 1 / math.sqrt(8)), atol=1e-14)
    ref = op_on(n, {q: rot(Y, math.pi / 4) for q in range(n)})[:, 0]
    np.testing.assert_allclose(Circuit(n).weak_superposition_layer().state().numpy(), ref, atol=1e-14)


def test_entangled_layers_match_numpy():
    rng = np.random.default_rng(4)
    n, depth = 3, 2
    # real: per layer RY on all, CNOT (0,1) (1,2) (2,0)
    t = rng.uniform(-3, 3, n * depth)
    c = Circuit(n).real_entangled_layer(depth, list(t))
    u = np.eye(8, dtype=complex)
    for d in range(depth):
        u = op_on(n, {q: rot(Y, t[d * n + q]) for q in range(n)}) @ u
        for a, b in [(0, 1), (1, 2), (2, 0)]:
            u = cnot_m(n, a, b) @ u
    np.testing.assert_allclose(c.state().numpy(), u[:, 0], atol=1e-12)
    # linear: RY all, CNOT linear, RZ all, CNOT linear
    t = rng.uniform(-3, 3, 2 * n * depth)
    c = Circuit(n).linear_entangled_layer(depth, sp.tensor(t))
    u = np.eye(8, dtype=complex)
    for d in range(depth):
        base = 2 * n * d
        u = op_on(n, {q: rot(Y, t[base + q]) for q in range(n)}) @ u
        u = cnot_m(n, 1, 2) @ cnot_m(n, 0, 1) @ u
        u = op_on(n, {q: rot(Z, t[base + n + q]) for q in range(n)}) @ u
        u = cnot_m(n, 1, 2) @ cnot_m(n, 0, 1) @ u
    np.testing.assert_allclose(c.state().numpy(), u[:, 0], atol=1e-12)
    # complex: U3 all, CNOT cycle
    c = Circuit(n, seed=2).complex_entangled_layer(depth)
    p = c.parameters.detach().numpy()
    assert p.shape == (3 * n * depth,)
    u = np.eye(8, dtype=complex)
    for d in range(depth):
        u = op_on(n, {q: reference_gate(1, "u3", [0], p[3 * (d * n + q):3 * (d * n + q) + 3]) for q in range(n)}) @ u
        for a, b in [(0, 1), (1, 2), (2, 0)]:
            u = cnot_m(n, a, b) @ u
    np.testing.assert_allclose(c.state().numpy(), u[:, 0], atol=1e-12)


def test_block_layers_gate_sequence_and_state():
    n = 4
    c = Circuit(n, seed=5).real_block_layer(1)
    block = lambda a, b: [("ry", (a,)), ("ry", (b,)), ("cnot", (a, b)), ("ry", (a,)), ("ry", (b,))]
    assert c.gates() == [("ry", (q,)) for q in range(n)] + block(0, 1) + block(2, 3) + block(1, 2)
    p = c.parameters.detach().numpy()
    assert p.shape == (n + 4 * (n - 1),)
    u = op_on(n, {q: rot(Y, p[q]) for q in range(n)})
    k = n
    for a, b in [(0, 1), (2, 3), (1, 2)]:
        u = op_on(n, {a: rot(Y, p[k]), b: rot(Y, p[k + 1])}) @ u
        u = cnot_m(n, a, b) @ u
        u = op_on(n, {a: rot(Y, p[k + 2]), b: rot(Y, p[k + 3])}) @ u
        k += 4
    np.testing.assert_allclose(c.state().numpy(), u[:, 0], atol=1e-12)
    cc = Circuit(3, seed=1).complex_block_layer(2)
    assert cc.parameters.shape == (3 * (3 + 4 * 2 * 2),)
    assert cc.gate_counts() == {"u3": 3 + 4 * 2 * 2, "cnot": 2 * 2}
    with pytest.raises(ValueError, match="expected 11 angles"):
        Circuit(3).real_block_layer(1, [0.0] * 10)


def test_qaoa_layer_matches_numpy_and_optimizes_maxcut_of_a_triangle():
    edges = [(0, 1), (1, 2), (0, 2)]
    n = 3
    gamma, beta = [0.4, -0.9], [1.1, 0.3]
    c = Circuit(n).superposition_layer().qaoa_layer(edges, depth=2, gamma=gamma, beta=beta)
    assert c.gates()[3:9] == [("rzz", e) for e in edges] + [("rx", (q,)) for q in range(n)]
    cost = sum(op_on(n, {a: Z, b: Z}) for a, b in edges)  # diagonal
    u = op_on(n, {q: H for q in range(n)})
    for g, b in zip(gamma, beta):
        u = np.diag(np.exp(-0.5j * g * np.diag(cost))) @ u   # CNOT RZ CNOT on each edge = exp(-i g/2 ZZ)
        u = op_on(n, {q: rot(X, b) for q in range(n)}) @ u
    np.testing.assert_allclose(c.state().numpy(), u[:, 0], atol=1e-12)
    # Trainable: minimise sum ZZ (max cut 2 of 3 edges -> <sum ZZ> >= -1).
    q = Circuit(n, seed=0).superposition_layer().qaoa_layer(edges, depth=2)
    assert q.parameters.shape == (4,)
    ham = Hamiltonian([(1.0, f"Z{a} Z{b}") for a, b in edges])
    opt = optim.Adam([q.parameters], lr=0.05)
    for _ in range(300):
        opt.zero_grad()
        e = q.expectation(ham)
        e.backward()
        opt.step()
    assert q.expectation(ham).item() < -0.95


def test_qasm_round_trip_of_every_gate_keeps_the_state():
    rng = np.random.default_rng(11)
    c, u = random_circuit(rng, 4, 60)
    c.ms(0, 2).universal_two_qubit(None, 3, 1).real_block_layer(1)
    text = c.to_qasm()
    assert text.startswith('OPENQASM 2.0;\ninclude "qelib1.inc";\n') and "\nqreg q[4];\n" in text
    back = Circuit.from_qasm(text)
    assert back.gates() == [(g if g != "ms" else "rxx", q) for g, q in c.gates()]  # definitions map back
    np.testing.assert_allclose(back.state().numpy(), c.state().numpy(), atol=1e-12)
    assert Circuit.from_qasm(back.to_qasm()).to_qasm() == back.to_qasm()


def test_qasm_import_of_a_hand_written_program():
    text = """// Bell pair and friends
OPENQASM 2.0;
include "qelib1.inc";
qreg a[1];
qreg b[2];   // b[0] is qubit 1
creg c[3];
h a[0];
cx a[0], b[1];
u2(0, pi) b[0];          // = H
u1(-pi/4) b[0];
u3(2*pi/3, -0.5, 1e-1) a[0];
barrier a[0], b[0];
cu3(0.3, 0.2, -(0.1 + 0.2)) b[1], b[0];
id a[0];
rz(sqrt(2)/2) b[1];
ccx a[0], b[0], b[1];
"""
    c = Circuit.from_qasm(text)
    ref = Circuit(3)
    ref.h(0).cnot(0, 2).u3(math.pi / 2, 0, math.pi, 1).p(-math.pi / 4, 1).u3(2 * math.pi / 3, -0.5, 0.1, 0)
    ref.cu(0.3, 0.2, -0.3, 2, 1).rz(math.sqrt(2) / 2, 2).ccx(0, 1, 2)
    assert c.gates() == ref.gates()
    np.testing.assert_allclose(c.state().numpy(), ref.state().numpy(), atol=1e-12)


@pytest.mark.parametrize("text,where,what", [
    ("qreg q[2];", "line 1, column 1", "OPENQASM 2.0"),
    ("OPENQASM 3.0;\nqreg q[1];", "line 1, column 10", "only OpenQASM 2.0"),
    ("OPENQASM 2.0;\nqreg q[2];\nh q[2];", "line 3, column 5", "out of range"),
    ("OPENQASM 2.0;\nqreg q[2];\n  foo q[0];", "line 3, column 3", "unknown gate"),
    ("OPENQASM 2.0;\nqreg q[2];\ncx q[0];", "line 3, column 1", "acts on 2 qubit"),
    ("OPENQASM 2.0;\nqreg q[2];\nrx q[0];", "line 3, column 1", "takes 1 parameter"),
    ("OPENQASM 2.0;\nqreg q[2];\nrx(0.1 q[0];", "line 3, column 8", "expected ')'"),
    ("OPENQASM 2.0;\nqreg q[2];\nh r[0];", "line 3, column 3", "unknown quantum register"),
    ("OPENQASM 2.0;\nqreg q[2];\nh q[0]", "line 3, column 7", "expected ';'"),
    ("OPENQASM 2.0;\nqreg q[2];\nh q[0]; $", "line 3, column 9", "unexpected character"),
    ("OPENQASM 2.0;\nqreg q[2];\nmeasure q[0] -> c[0];", "line 3, column 17", "unknown classical register 'c'"),
    ("OPENQASM 2.0;\nqreg q[2];\ncx q[1], q[1];", "line 3, column 1", "repeats a qubit"),
])
def test_qasm_errors_name_line_and_column(text, where, what):
    with pytest.raises(ValueError) as info:
        Circuit.from_qasm(text)
    msg = str(info.value)
    assert where in msg and what in msg, msg


def test_qasm_export_uses_current_parameter_values_and_keeps_the_circuit_open():
    c = Circuit(2, seed=4).ry(None, "full")
    c.to_qasm()
    c.rx(None, 0)  # export did not freeze the owned parameters
    with sp.no_grad():
        c.parameters.fill_(0.25)
    assert c.to_qasm().count("(0.25)") == 3


def test_qasm_export_refuses_matrix_gates_without_a_qelib1_form():
    # A 1-qubit matrix is exported as u3; a generic 2-qubit one has no qelib1.inc form.
    with pytest.raises(ValueError, match="gate 0 \\(UNITARY\\) has no OpenQASM 2.0"):
        Circuit(2).unitary(np.eye(4)[[0, 2, 1, 3]], [0, 1]).to_qasm()
